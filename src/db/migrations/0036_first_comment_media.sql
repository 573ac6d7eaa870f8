-- Media of first comments (docs/api.md "First comments"): `platform_options.<platform>.first_comment.media_ids`. The
-- media feature counts them as in use, as it does `posts.media_ids` (docs/decisions.md "First comments' media are in
-- use through an index on the options"): this function reads them out of the options, and the index below finds the
-- live posts naming one media id without reading every post's options.
CREATE FUNCTION posts_first_comment_media(options jsonb) RETURNS text[]
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(id #>> '{}'), '{}')
    FROM jsonb_path_query(options, '$.*.first_comment.media_ids[*] ? (@.type() == "string")') AS id
$$;

-- Partial: only the few posts whose first comment carries media are in it, so a post without any (nearly all) costs
-- no index entry when it is written. A query finds it by repeating the predicate (src/features/media/media.repo.ts).
CREATE INDEX posts_first_comment_media_idx ON posts USING gin (posts_first_comment_media(platform_options))
  WHERE deleted_at IS NULL AND posts_first_comment_media(platform_options) <> '{}';
