-- Media variants: a media item fitted to one platform's rules (an image converted to JPEG, scaled, recompressed,
-- padded or cropped, its metadata stripped; later a video transcoded). One row per media and rule key, made once
-- by the `make_media_variant` job and reused by every target that needs it; the original is never changed. The
-- bytes sit beside the original in the same storage driver and go with it (media.cleanup.ts).
CREATE TABLE media_variants (
  id            text PRIMARY KEY,
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  media_id      text NOT NULL REFERENCES media (id) ON DELETE CASCADE,
  rule_key      text NOT NULL,                  -- `<platform>:<hash of the spec>`: what was asked for, exactly
  platform      text NOT NULL,                  -- whose rule it is (shown on the media record)
  spec          jsonb NOT NULL,                 -- what to make (kind 'image': type, bounds, aspect, fit, metadata)
  status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ready', 'failed')),
  error         text,                           -- why it failed, phrased for the API client
  content_type  text,
  width         integer,
  height        integer,
  size_bytes    bigint,
  sha256        text,
  storage_key   text,                           -- set when ready
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  updated_at    timestamptz(3) NOT NULL DEFAULT now(),
  UNIQUE (media_id, rule_key)
);
CREATE INDEX media_variants_workspace_idx ON media_variants (workspace_id, media_id);
