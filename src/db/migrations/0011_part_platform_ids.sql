-- A platform post belongs to one Herald part (issue 18, docs/decisions.md "A platform post id is unique per
-- connection"). Each part carries the connection it is published through, and a platform post id appears at most once
-- per connection: a reconciliation look-up that would adopt a post another part already holds fails on this index
-- instead of marking two Herald posts published with one platform post (src/features/publishing/parts.ts turns the
-- violation into "not adopted"). A target's own platform_post_id is its first part's, so the index covers targets too.
ALTER TABLE target_parts ADD COLUMN connection_id text;

-- Backfill from the targets. Where wrong adoptions made before this index already share a platform id, the earliest
-- part to hold it keeps the connection; the later ones keep their history but no connection_id (NULLs are distinct in
-- a unique index), so the index can be built and no later part can take that id again.
WITH ranked AS (
  SELECT p.target_id, p.position, t.connection_id,
         row_number() OVER (PARTITION BY t.connection_id, p.platform_post_id
                            ORDER BY p.published_at NULLS LAST, p.target_id, p.position) AS rank
    FROM target_parts p
    JOIN post_targets t ON t.id = p.target_id
   WHERE t.connection_id IS NOT NULL
)
UPDATE target_parts p SET connection_id = r.connection_id
  FROM ranked r
 WHERE r.target_id = p.target_id AND r.position = p.position
   AND (r.rank = 1 OR p.platform_post_id IS NULL);

CREATE UNIQUE INDEX target_parts_platform_post_idx ON target_parts (connection_id, platform_post_id)
  WHERE platform_post_id IS NOT NULL;
