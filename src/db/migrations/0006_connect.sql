-- Connected accounts (issue 6): connect links that walk an end user through a platform's consent, and the
-- OAuth apps Herald registers per Mastodon-style instance.

-- A connect link: short-lived, single use. The URL carries a random token (only its SHA-256 is stored); the
-- OAuth `state` sent to the platform is another random value bound to the link, with the PKCE verifier and the
-- accounts awaiting a choice sealed (AES-256-GCM, purpose "connect-link").
CREATE TABLE connect_links (
  id              text PRIMARY KEY,
  workspace_id    uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  brand_id        text NOT NULL REFERENCES brands (id) ON DELETE CASCADE,
  platform        text NOT NULL,
  sandbox         boolean NOT NULL,
  token_hash      bytea NOT NULL UNIQUE,
  redirect_url    text,
  server_url      text,                      -- the instance / PDS, once known
  state           text UNIQUE,               -- the OAuth state of the consent in progress
  secrets         bytea,                     -- sealed: PKCE verifier, the app used, accounts awaiting a choice
  status          text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'authorizing', 'choosing', 'completed', 'failed')),
  connection_id   text REFERENCES connections (id) ON DELETE SET NULL,
  error_code      text,
  created_by      text,
  expires_at      timestamptz(3) NOT NULL,
  used_at         timestamptz(3),
  created_at      timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX connect_links_workspace_idx ON connect_links (workspace_id, created_at DESC);
CREATE INDEX connect_links_expiry_idx ON connect_links (expires_at);

-- OAuth apps Herald registered on user-chosen servers (Mastodon instances), one per platform × server × callback.
CREATE TABLE platform_apps (
  platform       text NOT NULL,
  server_url     text NOT NULL,
  redirect_uri   text NOT NULL,
  client_id      text NOT NULL,
  client_secret  bytea,                      -- sealed (purpose "platform-app")
  created_at     timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (platform, server_url, redirect_uri)
);

-- The refresh job looks for active connections whose token expires soon.
CREATE INDEX connections_expiry_idx ON connections (token_expires_at) WHERE status = 'active' AND token_expires_at IS NOT NULL;

-- The account's picture (connect-time account lookup), shown by client apps next to the handle.
ALTER TABLE connections ADD COLUMN avatar_url text;
