-- Core: people, workspaces, brands, API keys, posts and their targets, the events outbox, idempotency records.
-- Timestamps are timestamptz(3): millisecond precision, exactly what the API and JavaScript Dates carry, so a
-- keyset cursor built from a returned timestamp matches the stored value.
-- Every tenant table carries workspace_id so that a distribution by workspace stays possible.

CREATE TABLE users (
  id            text PRIMARY KEY,
  email         text NOT NULL,
  password_hash text,
  created_at    timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE workspaces (
  id         uuid PRIMARY KEY,
  name       text NOT NULL,
  mode       text NOT NULL CHECK (mode IN ('live', 'test')),
  created_at timestamptz(3) NOT NULL DEFAULT now()
);

CREATE TABLE memberships (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role         text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at   timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, user_id)
);
CREATE INDEX memberships_user_idx ON memberships (user_id);

CREATE TABLE brands (
  id           text PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name         text NOT NULL,
  is_default   boolean NOT NULL DEFAULT false,
  created_at   timestamptz(3) NOT NULL DEFAULT now()
);
-- One default brand per workspace.
CREATE UNIQUE INDEX brands_one_default_idx ON brands (workspace_id) WHERE is_default;
CREATE INDEX brands_workspace_idx ON brands (workspace_id, created_at, id);

CREATE TABLE api_keys (
  id            text PRIMARY KEY,
  user_id       text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name          text NOT NULL,
  token_hash    bytea NOT NULL UNIQUE,          -- sha256 of the key; the key itself is never stored
  prefix        text NOT NULL,                  -- e.g. hk_test_4fQz, for recognising a key in a list
  last4         text NOT NULL,
  scopes        text[] NOT NULL,
  workspace_ids uuid[],                         -- NULL: every workspace of the user
  brand_ids     text[],                         -- NULL: every brand of those workspaces
  expires_at    timestamptz(3),
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  last_used_at  timestamptz(3),
  revoked_at    timestamptz(3)
);
CREATE INDEX api_keys_user_idx ON api_keys (user_id, created_at);

CREATE TABLE posts (
  id               text PRIMARY KEY,
  workspace_id     uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  brand_id         text NOT NULL REFERENCES brands (id),
  content          text NOT NULL,
  platforms        text[] NOT NULL,
  platform_options jsonb NOT NULL DEFAULT '{}',
  media_ids        text[] NOT NULL DEFAULT '{}',
  status           text NOT NULL CHECK (status IN ('draft', 'pending_approval', 'scheduled', 'publishing', 'published',
                                                   'partially_published', 'failed', 'cancelled')),
  publish_now      boolean NOT NULL DEFAULT false,
  schedule_at      timestamptz(3),
  published_at     timestamptz(3),
  created_via      text NOT NULL CHECK (created_via IN ('api', 'mcp', 'dashboard', 'automation')),
  created_by       text,                        -- the user whose key created it
  approval         jsonb,
  created_at       timestamptz(3) NOT NULL DEFAULT now(),
  updated_at       timestamptz(3) NOT NULL DEFAULT now(),
  deleted_at       timestamptz(3)
);
-- Keyset pagination for each sort GET /v1/posts offers; deleted posts never appear in lists.
CREATE INDEX posts_created_idx ON posts (workspace_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX posts_status_created_idx ON posts (workspace_id, status, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX posts_schedule_idx ON posts (workspace_id, schedule_at, id) WHERE deleted_at IS NULL;
CREATE INDEX posts_status_schedule_idx ON posts (workspace_id, status, schedule_at, id) WHERE deleted_at IS NULL;
CREATE INDEX posts_schedule_desc_idx ON posts (workspace_id, schedule_at DESC NULLS LAST, id DESC) WHERE deleted_at IS NULL;

CREATE TABLE post_targets (
  id               text PRIMARY KEY,
  workspace_id     uuid NOT NULL,
  post_id          text NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  position         integer NOT NULL,            -- order of the targets within the post
  platform         text NOT NULL,
  connection_id    text,
  sandbox          boolean NOT NULL,
  status           text NOT NULL CHECK (status IN ('pending', 'scheduled', 'publishing', 'published', 'failed', 'cancelled')),
  platform_post_id text,
  url              text,
  published_at     timestamptz(3),
  attempt_count    integer NOT NULL DEFAULT 0,
  error            jsonb,
  created_at       timestamptz(3) NOT NULL DEFAULT now(),
  updated_at       timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX post_targets_post_idx ON post_targets (post_id, position);

CREATE TABLE target_attempts (
  id           text PRIMARY KEY,
  workspace_id uuid NOT NULL,
  target_id    text NOT NULL REFERENCES post_targets (id) ON DELETE CASCADE,
  started_at   timestamptz(3) NOT NULL DEFAULT now(),
  finished_at  timestamptz(3),
  outcome      text,                            -- NULL while running
  error_code   text
);
CREATE INDEX target_attempts_target_idx ON target_attempts (target_id, started_at);

-- The outbox: one row per lifecycle event, written in the transaction that made the change.
CREATE TABLE events (
  id           text PRIMARY KEY,
  workspace_id uuid NOT NULL,
  type         text NOT NULL,
  data         jsonb NOT NULL,
  created_at   timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX events_workspace_idx ON events (workspace_id, created_at, id);

-- Stored answers of mutating requests, replayed for a retry with the same Idempotency-Key (docs/api.md "Idempotency").
CREATE TABLE idempotency_keys (
  workspace_id    uuid NOT NULL,                -- the nil UUID for calls outside a workspace
  user_id         text NOT NULL,
  key             text NOT NULL,
  fingerprint     bytea NOT NULL,
  response_status integer NOT NULL,
  response_body   bytea NOT NULL,
  encrypted       boolean NOT NULL DEFAULT false,
  created_at      timestamptz(3) NOT NULL DEFAULT now(),
  expires_at      timestamptz(3) NOT NULL,
  PRIMARY KEY (workspace_id, user_id, key)
);
CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at);

-- Facts about this installation, e.g. which user is the owner and which workspace is the first-start Sandbox.
CREATE TABLE instance_settings (
  key   text PRIMARY KEY,
  value text NOT NULL
);
