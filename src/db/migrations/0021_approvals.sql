-- Approvals (docs/approvals.md): the policy per workspace (with per-brand overrides), the review queue's items and
-- the batches one run produced, and the append-only history of every step. Posts gain the origins the gate tells
-- apart (a post's `created_via` is the source the policy is read for).

ALTER TABLE posts DROP CONSTRAINT IF EXISTS posts_created_via_check;
ALTER TABLE posts ADD CONSTRAINT posts_created_via_check
  CHECK (created_via IN ('api', 'mcp', 'dashboard', 'cli', 'automation', 'repurpose', 'queue_import'));

-- No row: the defaults of src/features/approvals/approvals.policy.ts (mode off).
CREATE TABLE approval_policies (
  workspace_id          uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  mode                  text NOT NULL CHECK (mode IN ('off', 'members', 'everyone')),
  sources               text[] NOT NULL,
  approver_roles        text[] NOT NULL,
  allow_self_approval   boolean NOT NULL,
  expire_after_seconds  integer CHECK (expire_after_seconds > 0),  -- NULL: items never expire
  on_expire             text NOT NULL CHECK (on_expire IN ('to_draft', 'cancel')),
  require_reject_reason boolean NOT NULL,
  brand_overrides       jsonb NOT NULL DEFAULT '{}',                 -- {brand_id: {field: value, ...}}
  version               integer NOT NULL DEFAULT 1,
  updated_at            timestamptz(3) NOT NULL DEFAULT now()
);

CREATE TABLE approval_batches (
  id            text PRIMARY KEY,
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  source_type   text NOT NULL,
  source_id     text,
  status        text NOT NULL CHECK (status IN ('open', 'completed')),
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  completed_at  timestamptz(3)
);
CREATE INDEX approval_batches_created_idx ON approval_batches (workspace_id, created_at DESC, id DESC);

CREATE TABLE approval_items (
  id               text PRIMARY KEY,
  workspace_id     uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  brand_id         text NOT NULL,
  batch_id         text REFERENCES approval_batches (id),
  kind             text NOT NULL CHECK (kind IN ('post', 'inbox_reply')),
  subject_type     text NOT NULL,
  subject_id       text NOT NULL,
  action_type      text NOT NULL CHECK (action_type IN ('publish_now', 'schedule', 'send_reply')),
  action_at        timestamptz(3),
  source_type      text NOT NULL,
  source_id        text,
  platforms        text[] NOT NULL DEFAULT '{}',                   -- for the platform filter
  preview          jsonb NOT NULL,
  version          integer NOT NULL DEFAULT 1,
  status           text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'expired', 'cancelled',
                                                   'superseded')),
  on_expire        text NOT NULL CHECK (on_expire IN ('to_draft', 'cancel')),
  requested_by     text,
  requested_at     timestamptz(3) NOT NULL DEFAULT now(),
  decided_by       text,
  decided_at       timestamptz(3),
  reason           text,
  expires_at       timestamptz(3)
);
-- The queue as reviewers read it (newest first, keyset), per status; and all statuses together.
CREATE INDEX approval_items_status_idx ON approval_items (workspace_id, status, requested_at DESC, id DESC);
CREATE INDEX approval_items_requested_idx ON approval_items (workspace_id, requested_at DESC, id DESC);
CREATE INDEX approval_items_batch_idx ON approval_items (batch_id) WHERE batch_id IS NOT NULL;
-- At most one open request per subject: a new one supersedes the old in the same transaction.
CREATE UNIQUE INDEX approval_items_pending_subject_idx ON approval_items (workspace_id, subject_type, subject_id)
  WHERE status = 'pending';
-- The expiry sweep reads only what is due.
CREATE INDEX approval_items_expiry_idx ON approval_items (expires_at) WHERE status = 'pending' AND expires_at IS NOT NULL;

CREATE TABLE approval_events (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  item_id       text NOT NULL REFERENCES approval_items (id) ON DELETE CASCADE,
  type          text NOT NULL CHECK (type IN ('submit', 'approve', 'reject', 'edit', 'comment', 'expire', 'supersede',
                                              'cancel')),
  actor_id      text,                                              -- NULL: Herald itself (expiry)
  reason        text,
  data          jsonb NOT NULL DEFAULT '{}',
  created_at    timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX approval_events_item_idx ON approval_events (item_id, id);

-- The history is append-only: a row once written is never changed (deleting a workspace still cascades).
CREATE FUNCTION approval_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'approval_events is append-only';
END $$;
CREATE TRIGGER approval_events_no_update BEFORE UPDATE ON approval_events
  FOR EACH ROW EXECUTE FUNCTION approval_events_append_only();
