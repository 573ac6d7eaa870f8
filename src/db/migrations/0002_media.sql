-- Media: uploaded images, videos and documents. A row is made when an upload URL is issued (pending_upload)
-- and completed once the bytes are checked (ready or failed). Bytes live in the storage driver, never here.

CREATE TABLE media (
  id                text PRIMARY KEY,
  workspace_id      uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  filename          text NOT NULL,
  content_type      text NOT NULL,                -- declared, normalised (lower-case type/subtype)
  kind              text NOT NULL CHECK (kind IN ('image', 'video', 'document')),
  status            text NOT NULL CHECK (status IN ('pending_upload', 'ready', 'failed')),
  failure_reason    text,
  declared_size     bigint,                       -- size_bytes the client announced (signed into the URL)
  max_bytes         bigint NOT NULL,              -- the cap signed into the upload URL
  size_bytes        bigint,                       -- the bytes received
  sha256            text,                         -- hex
  width             integer,
  height            integer,
  duration_ms       bigint,
  unreadable        jsonb NOT NULL DEFAULT '[]',  -- [{field, reason}] for metadata Herald could not read
  storage_driver    text NOT NULL CHECK (storage_driver IN ('local', 's3')),
  upload_key        text NOT NULL,                -- where the client's PUT lands (s3) or the media's name (local)
  storage_key       text,                         -- the immutable checked copy, once ready
  upload_expires_at timestamptz(3) NOT NULL,
  created_by        text,
  created_at        timestamptz(3) NOT NULL DEFAULT now(),
  updated_at        timestamptz(3) NOT NULL DEFAULT now(),
  completed_at      timestamptz(3),
  deleted_at        timestamptz(3)                   -- set by DELETE; the bytes and the row are purged by a job
);
CREATE INDEX media_list_idx ON media (workspace_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
-- The cleanup job's sweeps: expired pending uploads, and everything by age.
CREATE INDEX media_pending_idx ON media (upload_expires_at) WHERE status = 'pending_upload' AND deleted_at IS NULL;
CREATE INDEX media_created_idx ON media (created_at) WHERE deleted_at IS NULL;
CREATE INDEX media_deleted_idx ON media (deleted_at) WHERE deleted_at IS NOT NULL;

-- "Which posts use this media?" (DELETE /media refuses while a scheduled post does; retention keeps used media).
CREATE INDEX posts_media_ids_idx ON posts USING gin (media_ids) WHERE deleted_at IS NULL;
