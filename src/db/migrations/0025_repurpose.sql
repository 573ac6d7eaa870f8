-- Repurpose jobs (docs/repurpose.md): one source turned into platform-fitted drafts by the `repurpose` job. The
-- row is the job's whole state: the worker moves it queued → fetching → generating → a terminal status, and the
-- outputs are written with the terminal status in one transaction, so a worker killed midway leaves a row the
-- retry starts again from, never half an answer.
CREATE TABLE repurpose_jobs (
  id                text PRIMARY KEY,
  workspace_id      uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  brand_id          text NOT NULL,
  created_by        text NOT NULL,
  source            jsonb NOT NULL,                 -- {type, url? | text? | post_id? | media_id? + transcript?}
  targets           jsonb NOT NULL,                 -- [{platform, format, count}]
  options           jsonb NOT NULL,
  output            jsonb NOT NULL,                 -- {mode, schedule?}
  status            text NOT NULL CHECK (status IN ('queued', 'fetching', 'generating', 'completed',
                                                    'partially_completed', 'failed', 'cancelled')),
  source_snapshot   jsonb,                          -- {title, excerpt, sha256, fetched_at}
  outputs           jsonb NOT NULL DEFAULT '[]',
  error             jsonb,                          -- {code, message}
  generated_by      jsonb,
  approval_batch_id text,
  created_at        timestamptz(3) NOT NULL DEFAULT now(),
  updated_at        timestamptz(3) NOT NULL DEFAULT now(),
  completed_at      timestamptz(3)
);
CREATE INDEX repurpose_jobs_created_idx ON repurpose_jobs (workspace_id, created_at DESC, id DESC);
