-- Evergreen recycling (docs/queues.md "Recycling"): a rule per published post that makes new copies of it every
-- few days, and the family link from each copy to the post it recycles.

-- The family: a copy names the original it was made from (the family's id). Written once, by the posts repository
-- (setRecycledFrom), right after the copy is created; null on every other post.
ALTER TABLE posts ADD COLUMN recycled_from text REFERENCES posts (id) ON DELETE SET NULL;
-- A family's members (analytics' family filter) and the foreign key's look-up when an original is deleted.
CREATE INDEX posts_recycled_from_idx ON posts (recycled_from) WHERE recycled_from IS NOT NULL;

-- One rule per original post. `done` copies made so far; `next_at` when the next one is due (null once the rule
-- is stopped or finished). A copy is claimed under the row's lock, in the transaction that creates it.
CREATE TABLE post_recycle_rules (
  post_id      text PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  every_days   integer NOT NULL CHECK (every_days >= 1),
  times        integer NOT NULL CHECK (times BETWEEN 1 AND 100),
  until        timestamptz(3),
  vary         text NOT NULL CHECK (vary IN ('none', 'rotate_variants')),
  variants     text[] NOT NULL DEFAULT '{}',
  status       text NOT NULL CHECK (status IN ('active', 'stopped', 'finished')),
  done         integer NOT NULL DEFAULT 0 CHECK (done >= 0),
  next_at      timestamptz(3),
  last_copy_id text,
  last_error   jsonb,
  created_by   text,
  created_at   timestamptz(3) NOT NULL DEFAULT now(),
  updated_at   timestamptz(3) NOT NULL DEFAULT now(),
  CHECK ((status = 'active') = (next_at IS NOT NULL))
);
-- The recycle_posts task's scan: active rules by due time.
CREATE INDEX post_recycle_rules_due_idx ON post_recycle_rules (next_at) WHERE status = 'active';
