-- Posting queues (docs/queues.md): a brand's weekly time slots; a post added to a queue takes the next or the last
-- free slot and publishes at it.
--
-- `slots`: [{"day_of_week": 0-6 (0 = Sunday), "time": "HH:mm", "timezone": "<IANA>"}], each a weekly wall-clock time
-- in its own zone. `pauses`: dates on which no slot is offered (a slot's date is read in the slot's zone).
-- `connection_ids` NULL: every connection of the brand; else a post queued here must target only these.
-- `gap_policy`: what cancelling (or deleting, or pinning) a queued post does to the later posts: `close` moves the
-- later unpinned posts up, `leave` leaves its slot free.
CREATE TABLE queues (
  id                  text PRIMARY KEY,
  workspace_id        uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  brand_id            text NOT NULL REFERENCES brands (id) ON DELETE CASCADE,
  name                text NOT NULL,
  connection_ids      text[],
  slots               jsonb NOT NULL DEFAULT '[]',
  pauses              date[] NOT NULL DEFAULT '{}',
  min_spacing_minutes integer NOT NULL DEFAULT 0 CHECK (min_spacing_minutes >= 0),
  gap_policy          text NOT NULL DEFAULT 'close' CHECK (gap_policy IN ('close', 'leave')),
  -- Every slot from now up to fill_hint is taken: adding at "next" scans from here (NULL: from now). Kept under the
  -- queue's row lock by src/features/queues/queues.assign.ts, forgotten whenever the slots change.
  fill_hint           timestamptz(3),
  created_at          timestamptz(3) NOT NULL DEFAULT now(),
  updated_at          timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX queues_workspace_idx ON queues (workspace_id, created_at DESC, id DESC);
CREATE INDEX queues_brand_idx ON queues (workspace_id, brand_id);

-- A post's place in a queue (written through src/features/posts/posts.queue.repo.ts by the queues feature):
-- `queue_id` the queue it was added to; `queue_slot` the slot it holds (its schedule_at), NULL once it holds none
-- (cancelled, deleted, or pinned: its time set explicitly, so edits of the queue's slots no longer move it).
-- No foreign key: every post insert would queue a check trigger for a column almost always NULL; deleting a queue
-- clears its posts' columns in the same transaction instead.
ALTER TABLE posts ADD COLUMN queue_id text, ADD COLUMN queue_slot timestamptz(3);
-- One post per slot: the backstop of the per-queue lock the allocation takes (src/features/queues/queues.assign.ts).
CREATE UNIQUE INDEX posts_queue_slot_key ON posts (queue_id, queue_slot) WHERE queue_slot IS NOT NULL;
-- The posts of a queue, pinned ones included (deleting a queue).
CREATE INDEX posts_queue_idx ON posts (queue_id) WHERE queue_id IS NOT NULL;
