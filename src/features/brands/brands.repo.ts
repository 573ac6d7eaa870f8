// SQL of the brands table (docs/tables.md: this feature owns it). Every function takes the workspace id.
import type { Queryable } from '../../db/pool.ts';
import type { CursorPosition } from '../../app/cursor.ts';
import type { PlatformName } from '../../platforms/limits.ts';

export type RuleApply = 'always' | 'never' | 'platforms';

export interface BrandRules {
  banned_terms: { severity: 'warning' | 'error' };
  required_terms: { apply: RuleApply; platforms: PlatformName[]; when_missing: 'append' | 'warning' | 'error' };
  signature: { apply: RuleApply; platforms: PlatformName[] };
  cta: { apply: RuleApply; platforms: PlatformName[] };
  default_hashtags: { apply: RuleApply; platforms: PlatformName[] };
}

export interface BrandVoice {
  descriptors: string[];
  formality: number | null;
  emoji: 'none' | 'light' | 'rich' | null;
  hashtags: 'none' | 'few' | 'many' | null;
  do: string[];
  dont: string[];
  examples: string[];
}

export interface MemoryItem {
  id: string;
  text: string;
  tags: string[];
}

export interface BrandDocument {
  media_id: string;
  title: string;
}

export interface BrandRow {
  id: string;
  workspace_id: string;
  name: string;
  slug: string;
  is_default: boolean;
  website: string | null;
  industry: string | null;
  timezone: string | null;
  language: string | null;
  colors: string[];
  logo_media_id: string | null;
  /** Stored as given; read through `brandVoice`, which fills the defaults. */
  voice: Partial<BrandVoice>;
  audience: { summary?: string | null; segments?: string[] };
  goals: string[];
  offer: string | null;
  guidelines_md: string | null;
  banned_terms: string[];
  required_terms: string[];
  default_hashtags: string[];
  signature: string | null;
  cta_default: string | null;
  memory: MemoryItem[];
  documents: BrandDocument[];
  rules: Partial<{ [K in keyof BrandRules]: Partial<BrandRules[K]> }>;
  version: number;
  created_at: Date;
  updated_at: Date;
}

/** The settable fields, as stored. */
export type BrandFields = Omit<
  BrandRow,
  'id' | 'workspace_id' | 'is_default' | 'version' | 'created_at' | 'updated_at'
>;

/** A brand's fields before anything is set (a new brand starts from these). */
export const EMPTY_BRAND_FIELDS: Omit<BrandFields, 'name' | 'slug'> = {
  website: null,
  industry: null,
  timezone: null,
  language: null,
  colors: [],
  logo_media_id: null,
  voice: {},
  audience: {},
  goals: [],
  offer: null,
  guidelines_md: null,
  banned_terms: [],
  required_terms: [],
  default_hashtags: [],
  signature: null,
  cta_default: null,
  memory: [],
  documents: [],
  rules: {},
};

const COLUMNS = `id, workspace_id, name, slug, is_default, website, industry, timezone, language, colors, logo_media_id,
  voice, audience, goals, offer, guidelines_md, banned_terms, required_terms, default_hashtags, signature, cta_default,
  memory, documents, rules, version, created_at, updated_at`;

/** Columns written as JSON. */
const JSON_COLUMNS = new Set(['voice', 'audience', 'memory', 'documents', 'rules']);

/** What a post needs of its brand: the rules and the terms, nothing else (one small row per post created). */
export type BrandForPosts = Pick<
  BrandRow,
  'id' | 'version' | 'banned_terms' | 'required_terms' | 'default_hashtags' | 'signature' | 'cta_default' | 'rules'
>;

export async function insertBrand(
  db: Queryable,
  b: { id: string; workspaceId: string; isDefault: boolean } & Partial<BrandFields> & { name: string; slug: string },
): Promise<BrandRow> {
  const { id, workspaceId, isDefault, ...fields } = b;
  const names = Object.keys(fields);
  const values = names.map((n) => {
    const v = (fields as Record<string, unknown>)[n];
    return JSON_COLUMNS.has(n) ? JSON.stringify(v) : v;
  });
  const { rows } = await db.query<BrandRow>(
    `INSERT INTO brands (id, workspace_id, is_default, ${names.join(', ')})
     VALUES ($1, $2, $3, ${names.map((_, i) => `$${i + 4}`).join(', ')}) RETURNING ${COLUMNS}`,
    [id, workspaceId, isDefault, ...values],
  );
  return rows[0]!;
}

export async function findBrandRow(
  db: Queryable,
  workspaceId: string,
  id: string,
  lock = false,
): Promise<BrandRow | undefined> {
  const { rows } = await db.query<BrandRow>(
    `SELECT ${COLUMNS} FROM brands WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL${lock ? ' FOR UPDATE' : ''}`,
    [workspaceId, id],
  );
  return rows[0];
}

export async function findBrandForPosts(
  db: Queryable,
  workspaceId: string,
  id: string,
): Promise<BrandForPosts | undefined> {
  const { rows } = await db.query<BrandForPosts>(
    `SELECT id, version, banned_terms, required_terms, default_hashtags, signature, cta_default, rules
       FROM brands WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL`,
    [workspaceId, id],
  );
  return rows[0];
}

/** Brands of the workspace in (created_at, id) order, optionally only `ids`. */
export async function listBrandRows(
  db: Queryable,
  workspaceId: string,
  ids: readonly string[] | null,
  after: CursorPosition | undefined,
  limit: number,
): Promise<BrandRow[]> {
  const { rows } = await db.query<BrandRow>(
    `SELECT ${COLUMNS} FROM brands
      WHERE workspace_id = $1 AND deleted_at IS NULL AND ($2::text[] IS NULL OR id = ANY($2::text[]))
        AND ($3::timestamptz IS NULL OR (created_at, id) > ($3, $4))
      ORDER BY created_at, id LIMIT $5`,
    [workspaceId, ids, after?.value ?? null, after?.id ?? null, limit],
  );
  return rows;
}

/** Slugs of the workspace equal to `base` or starting with `base-`, to choose a free one. */
export async function slugsLike(db: Queryable, workspaceId: string, base: string): Promise<Set<string>> {
  const { rows } = await db.query<{ slug: string }>(
    `SELECT slug FROM brands WHERE workspace_id = $1 AND deleted_at IS NULL AND (slug = $2 OR starts_with(slug, $2 || '-'))`,
    [workspaceId, base],
  );
  return new Set(rows.map((r) => r.slug));
}

export async function slugTaken(db: Queryable, workspaceId: string, slug: string, exceptId?: string): Promise<boolean> {
  const { rows } = await db.query<{ taken: boolean }>(
    'SELECT EXISTS (SELECT 1 FROM brands WHERE workspace_id = $1 AND deleted_at IS NULL AND slug = $2 AND id IS DISTINCT FROM $3) AS taken',
    [workspaceId, slug, exceptId ?? null],
  );
  return rows[0]!.taken;
}

/** Writes the changed fields and bumps the version, only if it is still `version`; undefined when it moved on. */
export async function updateBrandRow(
  db: Queryable,
  workspaceId: string,
  id: string,
  version: number,
  changes: Partial<BrandFields>,
): Promise<BrandRow | undefined> {
  const sets = ['version = version + 1', 'updated_at = now()'];
  const values: unknown[] = [workspaceId, id, version];
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    values.push(JSON_COLUMNS.has(name) ? JSON.stringify(value) : value);
    sets.push(`${name} = $${values.length}`);
  }
  const { rows } = await db.query<BrandRow>(
    `UPDATE brands SET ${sets.join(', ')} WHERE workspace_id = $1 AND id = $2 AND version = $3 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
    values,
  );
  return rows[0];
}

/** Hides the brand (never the default one); its posts keep their `brand_id`. */
export async function deleteBrandRow(db: Queryable, workspaceId: string, id: string): Promise<void> {
  await db.query(
    'UPDATE brands SET deleted_at = now(), updated_at = now() WHERE workspace_id = $1 AND id = $2 AND NOT is_default AND deleted_at IS NULL',
    [workspaceId, id],
  );
}

/** Posts of the brand that will still be published (scheduled, awaiting approval, publishing). */
export async function pendingPostsOf(db: Queryable, workspaceId: string, brandId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM posts WHERE workspace_id = $1 AND brand_id = $2 AND deleted_at IS NULL
        AND status IN ('scheduled', 'pending_approval', 'publishing') ORDER BY created_at LIMIT 5`,
    [workspaceId, brandId],
  );
  return rows.map((r) => r.id);
}

/** Connections of the brand that are not disconnected (handles, for the message). */
export async function liveConnectionsOf(db: Queryable, workspaceId: string, brandId: string): Promise<string[]> {
  const { rows } = await db.query<{ label: string }>(
    `SELECT platform || ' @' || handle AS label FROM connections
      WHERE workspace_id = $1 AND brand_id = $2 AND status <> 'disconnected' ORDER BY created_at LIMIT 5`,
    [workspaceId, brandId],
  );
  return rows.map((r) => r.label);
}

/** Brands of the workspace whose logo or documents are this media. */
export async function brandsUsingMedia(db: Queryable, workspaceId: string, mediaId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM brands WHERE workspace_id = $1 AND deleted_at IS NULL
        AND (logo_media_id = $2 OR documents @> jsonb_build_array(jsonb_build_object('media_id', $2::text)))
      ORDER BY created_at`,
    [workspaceId, mediaId],
  );
  return rows.map((r) => r.id);
}
