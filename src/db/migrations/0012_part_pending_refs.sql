-- What an adapter must find again after a restart to publish a part exactly once: the platform references it made
-- for the part before the call that publishes it (the Meta container id: created, then `media_publish`ed). Written by
-- the engine, fenced by the target's claim, BEFORE that call (src/features/publishing/parts.ts); read back on the
-- next attempt so the re-send publishes (or looks up) that same container instead of making a second post. A JSON
-- object of names to strings, `{}` when the adapter recorded nothing; kept once the part is published, as the
-- record of what became the post.
ALTER TABLE target_parts ADD COLUMN pending_refs jsonb NOT NULL DEFAULT '{}';
