-- Timestamps are timestamptz(3), as in 0001 (what JavaScript Dates and the API carry).
-- Publishing: connected platform accounts, the engine's bookkeeping on targets (who holds a target, the
-- progress of each part of it on the platform) and attempt durations. Worker liveness uses 0004's
-- job_worker_heartbeats.

CREATE TABLE connections (
  id               text PRIMARY KEY,
  workspace_id     uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  brand_id         text NOT NULL REFERENCES brands (id) ON DELETE CASCADE,
  platform         text NOT NULL,
  sandbox          boolean NOT NULL,            -- true: the adapter talks to Herald's simulator of the platform
  account_id       text NOT NULL,               -- the platform's id of the account (X user id, DID, Mastodon id)
  handle           text NOT NULL,
  display_name     text,
  server_url       text,                        -- Mastodon instance / Bluesky PDS; NULL where the platform has one host
  is_default       boolean NOT NULL DEFAULT false,
  status           text NOT NULL CHECK (status IN ('active', 'expired', 'disconnected')),
  credentials      bytea NOT NULL,              -- AES-256-GCM sealed JSON (purpose "connection-credentials")
  token_expires_at timestamptz(3),
  settings         jsonb NOT NULL DEFAULT '{}', -- facts learned from the platform (a Mastodon instance's limits)
  throttled_until  timestamptz(3),                 -- the platform said "not before": publishing waits until then
  last_error       jsonb,
  created_at       timestamptz(3) NOT NULL DEFAULT now(),
  updated_at       timestamptz(3) NOT NULL DEFAULT now()
);
-- One default connection per brand × platform (docs/api.md "Posts").
CREATE UNIQUE INDEX connections_one_default_idx ON connections (brand_id, platform) WHERE is_default AND status <> 'disconnected';
-- One live connection per account and brand.
CREATE UNIQUE INDEX connections_account_idx ON connections (brand_id, platform, coalesce(server_url, ''), account_id) WHERE status <> 'disconnected';
CREATE INDEX connections_list_idx ON connections (workspace_id, created_at DESC, id DESC);

ALTER TABLE post_targets
  ADD COLUMN claimed_by      text,              -- the worker process publishing it now (NULL: nobody holds it)
  ADD COLUMN claim_token     integer NOT NULL DEFAULT 0, -- fencing: bumped at every claim, checked on every write
  ADD COLUMN next_attempt_at timestamptz(3),       -- a publishing target waiting for its next attempt is due then
  ADD COLUMN first_claimed_at timestamptz(3);      -- when the engine first took it (lateness)
CREATE INDEX post_targets_in_flight_idx ON post_targets (status, next_attempt_at) WHERE status IN ('scheduled', 'publishing');

-- Each part of a target (the post, then each thread reply) is marked `sending` with its idempotency key
-- BEFORE the platform call and `published` with the platform's id after it. A part found `sending` after a
-- crash or an unknown outcome is reconciled (looked up on the platform) before it is ever sent again.
CREATE TABLE target_parts (
  target_id        text NOT NULL REFERENCES post_targets (id) ON DELETE CASCADE,
  workspace_id     uuid NOT NULL,
  position         integer NOT NULL,
  state            text NOT NULL CHECK (state IN ('sending', 'published')),
  idempotency_key  text NOT NULL,               -- Mastodon Idempotency-Key, Bluesky record key, X lookup marker
  first_sent_at    timestamptz(3) NOT NULL DEFAULT now(),
  platform_post_id text,
  url              text,
  ref              jsonb,                       -- what the adapter needs to reply to it (Bluesky uri + cid)
  published_at     timestamptz(3),
  PRIMARY KEY (target_id, position)
);

ALTER TABLE target_attempts
  ADD COLUMN duration_ms integer,
  ADD COLUMN worker_id   text,
  ADD COLUMN error       jsonb;
