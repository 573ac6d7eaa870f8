-- Brands as settings (docs/api.md "Brands"): identity, voice, audience, the rules Herald applies to posts without
-- any model, and the material text generation reads (memory, documents). The API checks every field and its limits
-- (src/features/brands/brands.schemas.ts); the constraints here only keep the shapes the code relies on.

ALTER TABLE brands
  ADD COLUMN slug             text,
  ADD COLUMN website          text,
  ADD COLUMN industry         text,
  ADD COLUMN timezone         text,                          -- IANA zone, e.g. Europe/Paris; NULL: not set
  ADD COLUMN language         text,                          -- BCP 47 tag; NULL: not set
  ADD COLUMN colors           text[] NOT NULL DEFAULT '{}',  -- #rrggbb
  ADD COLUMN logo_media_id    text,                          -- a ready image of the same workspace
  ADD COLUMN voice            jsonb NOT NULL DEFAULT '{}',
  ADD COLUMN audience         jsonb NOT NULL DEFAULT '{}',
  ADD COLUMN goals            text[] NOT NULL DEFAULT '{}',
  ADD COLUMN offer            text,
  ADD COLUMN guidelines_md    text,
  ADD COLUMN banned_terms     text[] NOT NULL DEFAULT '{}',
  ADD COLUMN required_terms   text[] NOT NULL DEFAULT '{}',
  ADD COLUMN default_hashtags text[] NOT NULL DEFAULT '{}',
  ADD COLUMN signature        text,
  ADD COLUMN cta_default      text,
  ADD COLUMN memory           jsonb NOT NULL DEFAULT '[]',   -- [{id, text, tags[]}]
  ADD COLUMN documents        jsonb NOT NULL DEFAULT '[]',   -- [{media_id, title}]
  ADD COLUMN rules            jsonb NOT NULL DEFAULT '{}',   -- where additions apply, how banned terms count
  ADD COLUMN version          integer NOT NULL DEFAULT 1,
  ADD COLUMN updated_at       timestamptz(3) NOT NULL DEFAULT now(),
  -- DELETE /v1/brands/{id} hides the brand: posts keep referring to it (their history stays readable).
  ADD COLUMN deleted_at       timestamptz(3);

-- Slugs for the brands made before this migration: the name in lower-case ASCII words joined by `-` (common
-- accented letters lose their accent, as brands.service's slugify does); a name that
-- gives nothing becomes `brand`, and a slug another brand of the workspace already has gets a piece of its id.
WITH base AS (
  SELECT id, workspace_id, created_at,
         coalesce(nullif(trim(BOTH '-' FROM left(regexp_replace(translate(lower(name), 'àáâãäåçèéêëìíîïñòóôõöøùúûüýÿ', 'aaaaaaceeeeiiiinoooooouuuuyy'), '[^a-z0-9]+', '-', 'g'), 48)), ''),
                  'brand') AS slug
    FROM brands
), numbered AS (
  SELECT id, slug, row_number() OVER (PARTITION BY workspace_id, slug ORDER BY created_at, id) AS n FROM base
)
UPDATE brands b
   SET slug = CASE WHEN numbered.n = 1 THEN numbered.slug
                   ELSE numbered.slug || '-' || lower(right(regexp_replace(b.id, '[^a-zA-Z0-9]', '', 'g'), 10)) END
  FROM numbered
 WHERE numbered.id = b.id;

UPDATE brands SET updated_at = created_at;

ALTER TABLE brands ALTER COLUMN slug SET NOT NULL;
ALTER TABLE brands ADD CONSTRAINT brands_slug_shape CHECK (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND length(slug) <= 64);
ALTER TABLE brands ADD CONSTRAINT brands_version_positive CHECK (version >= 1);
-- A deleted brand's slug may be used again.
CREATE UNIQUE INDEX brands_workspace_slug_key ON brands (workspace_id, slug) WHERE deleted_at IS NULL;
-- Media cleanup keeps a brand's logo: the sweep looks brands up by media id.
CREATE INDEX brands_logo_media_idx ON brands (workspace_id, logo_media_id) WHERE logo_media_id IS NOT NULL;

-- What the brand's rules added to each platform's text of a post (signature, call to action, hashtags, missing
-- required terms), fixed when the post is created or edited, so that what POST /v1/posts/validate showed is what
-- the engine publishes even if the brand changes later (docs/decisions.md "Brand additions are fixed on the post").
-- {"<platform>": {"suffix": "…", "additions": [{"rule", "text"}], "brand_version": n}}; '{}' when nothing applies.
ALTER TABLE posts ADD COLUMN brand_additions jsonb NOT NULL DEFAULT '{}';
