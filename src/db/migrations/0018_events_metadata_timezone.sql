-- The events API (GET /v1/events), metadata on posts, media and webhook endpoints, and the time zone of a post.

-- The brand an event is about, read from its payload (posts and connections carry `brand_id`; media, webhook
-- endpoints and tests carry none). A key limited to some brands sees only its brands' events; stored, so the list
-- filters on a column rather than on every payload.
ALTER TABLE events ADD COLUMN brand_id text GENERATED ALWAYS AS (data ->> 'brand_id') STORED;
-- GET /v1/events filtered by type: newest first within the types asked for. The unfiltered list uses
-- events_workspace_idx (workspace_id, created_at, id), read backwards.
CREATE INDEX events_workspace_type_idx ON events (workspace_id, type, created_at, id);
-- Retention: events older than HERALD_EVENT_RETENTION_DAYS are pruned by age, across workspaces. Events arrive in
-- time order, so a BRIN index finds the old ones for almost no cost on each insert (a B-tree would add one more
-- index entry to every event of every write).
CREATE INDEX events_created_brin ON events USING brin (created_at);

-- Metadata: string key-value pairs the client keeps on its resources (docs/api.md "Metadata"). Checked by the API
-- (50 keys, keys up to 40 characters without square brackets, values up to 500 characters).
ALTER TABLE posts ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';
ALTER TABLE media ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';
ALTER TABLE webhook_endpoints ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';
-- GET /v1/posts?metadata[key]=value is a containment test (metadata @> '{"key":"value"}'). Only posts that carry
-- metadata are indexed, so a post created without any costs the index nothing.
CREATE INDEX posts_metadata_idx ON posts USING gin (metadata jsonb_path_ops)
  WHERE metadata <> '{}'::jsonb AND deleted_at IS NULL;

-- The IANA zone a post was scheduled in (`timezone`), kept so an edit of `schedule_at` without an offset is read
-- in the same zone. NULL: scheduled with an absolute time.
ALTER TABLE posts ADD COLUMN timezone text;
