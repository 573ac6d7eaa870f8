-- The dashboard (docs/api.md "Sessions"): people get a display name, keys record who made them, and workspace
-- invites are single-use links. An invite's token is random; only its SHA-256 is stored, so a database read does
-- not hand out membership.
ALTER TABLE users ADD COLUMN name text;

-- The person whose session or key made this key over HTTP (NULL: made by the CLI, first start or an OAuth grant).
ALTER TABLE api_keys ADD COLUMN created_by text REFERENCES users (id) ON DELETE SET NULL;

CREATE TABLE workspace_invites (
  id           text PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  email        text NOT NULL,
  role         text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  token_hash   bytea NOT NULL UNIQUE,
  invited_by   text REFERENCES users (id) ON DELETE SET NULL,
  created_at   timestamptz(3) NOT NULL DEFAULT now(),
  expires_at   timestamptz(3) NOT NULL,
  -- Set once, by the single accept; an accepted invite is kept as a record of who let whom in.
  accepted_at  timestamptz(3),
  accepted_by  text REFERENCES users (id) ON DELETE SET NULL
);
CREATE INDEX workspace_invites_workspace_idx ON workspace_invites (workspace_id, created_at, id);
