-- Analytics (src/features/analytics, docs/analytics.md): what each platform reports of a published target,
-- captured over time and never overwritten, and one rollup row per target that the sync job keeps current.

-- One reading of one metric of one target. `value` is NULL exactly when `status` is 'unavailable': the platform
-- does not give that metric (or not to this app's permissions), which is never estimated.
CREATE TABLE metric_snapshots (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  target_id    text NOT NULL REFERENCES post_targets (id) ON DELETE CASCADE,
  metric       text NOT NULL,
  value        bigint CHECK (value IS NULL OR value >= 0),
  unit         text NOT NULL DEFAULT 'count',
  status       text NOT NULL CHECK (status IN ('ok', 'unavailable')),
  captured_at  timestamptz(3) NOT NULL,
  source       text NOT NULL CHECK (source IN ('platform', 'sandbox')),
  CHECK ((status = 'ok') = (value IS NOT NULL))
);
CREATE INDEX metric_snapshots_target_idx ON metric_snapshots (target_id, metric, captured_at);
CREATE INDEX metric_snapshots_workspace_idx ON metric_snapshots (workspace_id, captured_at);

-- The rollup: per published target, the latest value of each metric (`latest`: {"likes": 12, ...}; metrics the
-- platform does not give are listed in `unavailable`), the denormalised keys summaries filter on, and the sync
-- schedule. Summaries read this table, so their cost follows the number of targets in the window, not the
-- number of snapshots.
CREATE TABLE target_metrics (
  target_id        text PRIMARY KEY REFERENCES post_targets (id) ON DELETE CASCADE,
  workspace_id     uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  post_id          text NOT NULL,
  brand_id         text NOT NULL,
  connection_id    text,
  platform         text NOT NULL,
  sandbox          boolean NOT NULL,
  published_at     timestamptz(3) NOT NULL,
  latest           jsonb NOT NULL DEFAULT '{}',
  unavailable      text[] NOT NULL DEFAULT '{}',
  first_captured_at timestamptz(3),
  last_captured_at timestamptz(3),
  sync_count       integer NOT NULL DEFAULT 0,
  next_sync_at     timestamptz(3),               -- NULL: no more syncs (past the configured age)
  last_error       jsonb
);
CREATE INDEX target_metrics_window_idx ON target_metrics (workspace_id, published_at);
CREATE INDEX target_metrics_due_idx ON target_metrics (next_sync_at) WHERE next_sync_at IS NOT NULL;

-- The sync enrolls published targets without a rollup row, within its window (src/features/analytics/sync.ts).
CREATE INDEX post_targets_published_idx ON post_targets (published_at) WHERE status = 'published';
