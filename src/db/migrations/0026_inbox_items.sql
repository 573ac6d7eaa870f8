-- The inbox (docs/inbox.md "Ingestion"): comments, replies, mentions, direct messages and reviews ingested from
-- each connection, and per connection and stream the polling cursor and health. Ingesting an item twice creates
-- nothing: (connection_id, platform_item_id) is unique and the insert is ON CONFLICT DO NOTHING.
CREATE TABLE inbox_items (
  id                   text PRIMARY KEY,
  workspace_id         uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  connection_id        text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
  brand_id             text,                         -- the connection's brand when ingested
  platform             text NOT NULL,
  kind                 text NOT NULL CHECK (kind IN ('comment', 'reply', 'dm', 'mention', 'review')),
  post_id              text,                         -- the Herald post whose published part has platform_post_id
  platform_post_id     text,
  thread_id            text NOT NULL,                -- the platform's thread / conversation root
  parent_id            text,                         -- the platform id of the item this answers
  platform_item_id     text NOT NULL,
  author               jsonb NOT NULL,               -- {platform_user_id, username, display_name, avatar_url}
  text                 text NOT NULL DEFAULT '',
  permalink            text,
  received_at          timestamptz(3) NOT NULL,      -- the platform's time
  ingested_at          timestamptz(3) NOT NULL DEFAULT now(),
  status               text NOT NULL DEFAULT 'open'
                         CHECK (status IN ('open', 'replied', 'resolved', 'archived', 'hidden')),
  assignee_id          text,
  labels               text[] NOT NULL DEFAULT '{}',
  reply_window_ends_at timestamptz(3),               -- NULL: the platform sets no window
  from_account         boolean NOT NULL DEFAULT false, -- the connected account's own message (a human reply)
  platform_ref         jsonb,                        -- what answering needs beyond the id (Bluesky: uri, cid, root)
  UNIQUE (connection_id, platform_item_id)
);
CREATE INDEX inbox_items_status_idx ON inbox_items (workspace_id, status, received_at DESC, id DESC);
CREATE INDEX inbox_items_received_idx ON inbox_items (workspace_id, received_at DESC, id DESC);
-- One brand's list (brand_id, or a brand-limited key) pages in order from this index, not a workspace scan.
CREATE INDEX inbox_items_brand_status_idx ON inbox_items (workspace_id, brand_id, status, received_at DESC, id DESC);
CREATE INDEX inbox_items_thread_idx ON inbox_items (connection_id, thread_id, received_at);
CREATE INDEX inbox_items_post_idx ON inbox_items (post_id) WHERE post_id IS NOT NULL;

-- One row per connection and stream: the cursor the next poll continues from, when it is due, the back-off a
-- rate limit or failure set, and the health the connection's GET shows.
CREATE TABLE inbox_sources (
  connection_id        text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
  workspace_id         uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  stream               text NOT NULL CHECK (stream IN ('comments', 'mentions', 'dms', 'reviews')),
  cursor               jsonb,
  next_poll_at         timestamptz(3) NOT NULL DEFAULT now(),
  backoff_seconds      integer NOT NULL DEFAULT 0,
  last_polled_at       timestamptz(3),
  last_ok_at           timestamptz(3),
  last_error           jsonb,                        -- {code, message, at}
  consecutive_failures integer NOT NULL DEFAULT 0,
  items_ingested       bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (connection_id, stream)
);
CREATE INDEX inbox_sources_due_idx ON inbox_sources (next_poll_at);
