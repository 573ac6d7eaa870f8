-- Bulk imports (docs/queues.md "Bulk import"): many posts from one CSV file or one JSON list of rows, created by the
-- `import_posts` job. The import row keeps the rows as received and the caller's context; each row's outcome is a
-- row of `post_import_rows`, unique per (import, row) and written in the transaction that creates the row's post,
-- so a retried or repeated job never creates a row's post twice.
CREATE TABLE post_imports (
  id            text PRIMARY KEY,
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  brand_id      text,                           -- the caller's brand (header or default), for brand-limited keys
  media_id      text,                           -- the CSV's media (source type csv); null for JSON rows
  rows_sha256   text NOT NULL,                  -- hash of the rows as received
  rows          jsonb NOT NULL,                 -- [{column or field: value}], in file order
  context       jsonb NOT NULL,                 -- {brand_id, brand_from_header, allowed_brand_ids, user_id}
  status        text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed')),
  total         integer NOT NULL,
  error         jsonb,                          -- {code, message} when the job itself failed
  approval_batch_id text REFERENCES approval_batches (id), -- the batch its held posts joined (null: none held)
  created_by    text NOT NULL,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  updated_at    timestamptz(3) NOT NULL DEFAULT now(),
  completed_at  timestamptz(3)
);
-- One import per uploaded file: a second request naming the same CSV answers the first import.
CREATE UNIQUE INDEX post_imports_media_idx ON post_imports (workspace_id, media_id) WHERE media_id IS NOT NULL;

CREATE TABLE post_import_rows (
  import_id     text NOT NULL REFERENCES post_imports (id) ON DELETE CASCADE,
  workspace_id  uuid NOT NULL,
  row           integer NOT NULL,               -- 1-based, in file order (the header line is not a row)
  status        text NOT NULL CHECK (status IN ('ok', 'error')),
  post_id       text,
  errors        jsonb NOT NULL DEFAULT '[]',    -- [{code, message, field, platform}]
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (import_id, row)
);
