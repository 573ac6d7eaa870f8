-- People and OAuth: sign-in sessions and login throttling; Herald as an OAuth 2.1 authorization server (clients,
-- authorization codes, grants, refresh tokens). The access token of a grant is an ordinary API key (api_keys.grant_id).

-- Browser sessions of signed-in people. The cookie holds a random token; only its SHA-256 is stored.
CREATE TABLE user_sessions (
  token_hash bytea PRIMARY KEY,
  user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  expires_at timestamptz(3) NOT NULL
);
CREATE INDEX user_sessions_user_idx ON user_sessions (user_id);
CREATE INDEX user_sessions_expiry_idx ON user_sessions (expires_at);

-- Failed sign-ins per email (hashed). Rows exist for unknown emails too, so a lockout reveals nothing about
-- which accounts exist.
CREATE TABLE login_failures (
  email_hash       bytea PRIMARY KEY,
  failures         integer NOT NULL,
  first_failure_at timestamptz(3) NOT NULL,
  locked_until     timestamptz(3)
);

-- OAuth clients: registered dynamically (RFC 7591, `kind = 'dcr'`) or described by a Client ID Metadata
-- Document fetched from their https client_id (`kind = 'cimd'`).
CREATE TABLE oauth_clients (
  id                         text PRIMARY KEY,
  kind                       text NOT NULL CHECK (kind IN ('dcr', 'cimd')),
  name                       text NOT NULL,
  redirect_uris              text[] NOT NULL,
  grant_types                text[] NOT NULL,
  token_endpoint_auth_method text NOT NULL CHECK (token_endpoint_auth_method IN ('none', 'client_secret_post', 'client_secret_basic')),
  secret_hash                bytea,              -- sha256 of the client secret (confidential clients only)
  metadata                   jsonb NOT NULL,     -- the client metadata as accepted, returned by registration
  created_at                 timestamptz(3) NOT NULL DEFAULT now(),
  fetched_at                 timestamptz(3)         -- CIMD: when the document was last fetched
);

-- What a person consented to for one client: the workspace (and brands) and scopes its keys are limited to.
CREATE TABLE oauth_grants (
  id             text PRIMARY KEY,
  client_id      text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
  user_id        text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  workspace_id   uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  brand_ids      text[],                         -- NULL: every brand of the workspace
  scopes         text[] NOT NULL,
  resource       text NOT NULL,                  -- RFC 8707 resource the grant was issued for
  created_at     timestamptz(3) NOT NULL DEFAULT now(),
  expires_at     timestamptz(3) NOT NULL,
  revoked_at     timestamptz(3),
  revoked_reason text
);
CREATE INDEX oauth_grants_user_idx ON oauth_grants (user_id, created_at);
CREATE INDEX oauth_grants_end_idx ON oauth_grants (LEAST(expires_at, revoked_at));

-- Authorization codes: single use, short-lived. A code presented twice revokes the grant it produced.
CREATE TABLE oauth_codes (
  code_hash      bytea PRIMARY KEY,
  client_id      text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
  user_id        text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  workspace_id   uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  brand_ids      text[],
  scopes         text[] NOT NULL,
  redirect_uri   text NOT NULL,
  code_challenge text NOT NULL,                  -- PKCE S256
  resource       text NOT NULL,
  created_at     timestamptz(3) NOT NULL DEFAULT now(),
  expires_at     timestamptz(3) NOT NULL,
  used_at        timestamptz(3),
  grant_id       text REFERENCES oauth_grants (id) ON DELETE CASCADE
);
CREATE INDEX oauth_codes_expiry_idx ON oauth_codes (expires_at);

-- The access token of a grant is an API key; a refresh replaces it (the old one is revoked).
ALTER TABLE api_keys ADD COLUMN grant_id text REFERENCES oauth_grants (id) ON DELETE CASCADE;
CREATE INDEX api_keys_grant_idx ON api_keys (grant_id, created_at) WHERE grant_id IS NOT NULL;

-- Every refresh token a grant ever had. Exactly one per grant is current (rotated_at IS NULL); presenting a
-- rotated one revokes the grant, except within the grace window, where `replacement` (the encrypted answer of
-- the rotation) is returned again to a client racing its own refresh.
CREATE TABLE oauth_refresh_tokens (
  token_hash  bytea PRIMARY KEY,
  grant_id    text NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
  key_id      text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  created_at  timestamptz(3) NOT NULL DEFAULT now(),
  rotated_at  timestamptz(3),
  replaced_by bytea,                             -- hash of the token that replaced this one
  replacement bytea
);
CREATE UNIQUE INDEX oauth_refresh_tokens_current_idx ON oauth_refresh_tokens (grant_id) WHERE rotated_at IS NULL;
