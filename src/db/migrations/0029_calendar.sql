-- The calendar (docs/calendar.md): a read model over posts, so its only table is the ICS feeds' secret URLs.
--
-- A post sits on the calendar at coalesce(schedule_at, published_at): its planned time, else (published now) when
-- it went out. posts_schedule_idx orders by schedule_at alone, so a window over that expression would read every
-- post of the workspace; this index answers a window (and its keyset pages) from the first row in it.
CREATE INDEX posts_calendar_idx ON posts (workspace_id, (coalesce(schedule_at, published_at)), id)
  WHERE deleted_at IS NULL AND coalesce(schedule_at, published_at) IS NOT NULL;

-- An ICS feed: `GET /calendar/{token}.ics` needs no key, so the token is the capability. Only its SHA-256 is
-- stored (the URL is shown once); `brand_ids` NULL means every brand, and is the creator's key's brands when the
-- key is limited to some; `platforms` NULL means all. A revoked feed keeps its row (404 from then on).
CREATE TABLE calendar_feeds (
  id            text PRIMARY KEY,
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name          text NOT NULL,
  token_hash    bytea NOT NULL UNIQUE,
  token_last4   text NOT NULL,
  brand_ids     text[],
  platforms     text[],
  types         text[] NOT NULL,
  created_by    text NOT NULL,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  last_read_at  timestamptz(3),
  revoked_at    timestamptz(3)
);
CREATE INDEX calendar_feeds_workspace_idx ON calendar_feeds (workspace_id, created_at DESC, id DESC)
  WHERE revoked_at IS NULL;
