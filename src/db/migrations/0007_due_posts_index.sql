-- The posts that can still be due: the sweeper's "overdue scheduled target" look-up and the readiness check start
-- here instead of joining every scheduled target with its post (1.44 s per sweep at a million posts, 27 ms with
-- this index; bench/README.md). A post with a scheduled or in-flight target is always `scheduled` or `publishing`.
CREATE INDEX posts_due_idx ON posts (schedule_at) WHERE status IN ('scheduled', 'publishing') AND deleted_at IS NULL;
