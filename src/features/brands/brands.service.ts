// Brands (docs/api.md "Brands"): list, read, compile the brand context, create, edit with optimistic concurrency on
// `version`, delete. Every write happens in the caller's transaction with its event (brand.created / .updated /
// .deleted). A key limited to some brands sees and changes only those, and cannot create brands.
import type { ServiceContext } from '../../app/context.ts';
import { decodeCursor, keysetPage } from '../../app/cursor.ts';
import { AppError, notFound } from '../../app/errors.ts';
import type { Queryable } from '../../db/pool.ts';
import { newId } from '../../lib/ids.ts';
import { appendEvent, type EventType } from '../events/outbox.ts';
import { checkBrand, slugRace } from './brands.checks.ts';
import * as repo from './brands.repo.ts';
import { EMPTY_BRAND_FIELDS, type BrandFields, type BrandRow } from './brands.repo.ts';
import type { CreateBrandBody, ListBrandsQuery, UpdateBrandBody } from './brands.schemas.ts';
import { brandJson } from './brands.view.ts';
import { BRAND_CONTEXT_MAX_CHARS, compileBrandContext, type BrandContext } from './context.ts';

/** What the brands service needs of its caller (a ServiceContext has it; the CLI builds one). */
export type BrandsContext = Pick<
  ServiceContext,
  'db' | 'workspaceId' | 'allowedBrandIds' | 'brandId' | 'brandFromHeader'
>;

// ---- slugs ----------------------------------------------------------------------------------------------------------

/** The name as a slug: lower-case ASCII letters and digits in words joined by `-` (accents dropped); `brand` if none. */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 48)
    .replace(/^-+|-+$/g, '');
  return slug === '' ? 'brand' : slug;
}

/** A slug made from `name` that no other live brand of the workspace has (`acme`, `acme-2`, …). */
export async function freeSlug(db: Queryable, workspaceId: string, name: string): Promise<string> {
  const base = slugify(name);
  const taken = await repo.slugsLike(db, workspaceId, base);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

/** A brand with only a name (a workspace's default brand, `herald brands create --name`): no event, no checks. */
export async function insertNamedBrand(
  db: Queryable,
  workspaceId: string,
  name: string,
  isDefault: boolean,
): Promise<BrandRow> {
  return repo.insertBrand(db, {
    id: newId('brand'),
    workspaceId,
    isDefault,
    name,
    slug: await freeSlug(db, workspaceId, name),
  });
}

// ---- from the request to stored fields -----------------------------------------------------------------------------

type Patch = Omit<UpdateBrandBody, 'version'>;

function memoryOf(items: NonNullable<Patch['memory']>): repo.MemoryItem[] {
  return items.map((m) => ({ id: m.id ?? newId('mem'), text: m.text, tags: m.tags ?? [] }));
}

/** The brand after applying `patch` to `current` (RFC 7396: objects merge, lists replace, null clears). */
function merged(current: Omit<BrandFields, 'name'> & { name: string }, patch: Patch) {
  const next = { ...current };
  const set = <K extends keyof typeof next>(key: K, value: (typeof next)[K] | undefined) => {
    if (value !== undefined) next[key] = value;
  };
  set('name', patch.name);
  set('slug', patch.slug);
  set('website', patch.website);
  set('industry', patch.industry);
  set('timezone', patch.timezone);
  set('language', patch.language);
  set(
    'colors',
    patch.colors?.map((c) => c.toLowerCase()),
  );
  set('logo_media_id', patch.logo_media_id);
  if (patch.voice) next.voice = { ...current.voice, ...patch.voice };
  if (patch.audience) next.audience = { ...current.audience, ...patch.audience };
  set('goals', patch.goals);
  set('offer', patch.offer);
  set('guidelines_md', patch.guidelines_md);
  set('banned_terms', patch.banned_terms);
  set('required_terms', patch.required_terms);
  set('default_hashtags', patch.default_hashtags);
  set('signature', patch.signature);
  set('cta_default', patch.cta_default);
  if (patch.memory) next.memory = memoryOf(patch.memory);
  set('documents', patch.documents);
  if (patch.rules) {
    const rules: BrandRow['rules'] = { ...current.rules };
    for (const [name, value] of Object.entries(patch.rules)) {
      const key = name as keyof BrandRow['rules'];
      if (!value) continue;
      const rule: Record<string, unknown> = { ...(current.rules[key] ?? {}), ...value };
      // Moving away from `apply: platforms` drops the list it no longer reads, unless the patch sends one.
      if ('apply' in value && value.apply !== 'platforms' && !('platforms' in value)) delete rule.platforms;
      rules[key] = rule as never;
    }
    next.rules = rules;
  }
  return next;
}

function fieldsOf(row: BrandRow): Omit<BrandFields, 'name'> & { name: string } {
  const { id: _id, workspace_id: _w, is_default: _d, version: _v, created_at: _c, updated_at: _u, ...fields } = row;
  return fields;
}

// ---- the service ----------------------------------------------------------------------------------------------------

function reachable(ctx: BrandsContext, id: string): boolean {
  return !ctx.allowedBrandIds || ctx.allowedBrandIds.includes(id);
}

async function load(ctx: BrandsContext, id: string, lock = false): Promise<BrandRow> {
  const row = reachable(ctx, id) ? await repo.findBrandRow(ctx.db, ctx.workspaceId, id, lock) : undefined;
  if (!row) throw notFound('brand');
  return row;
}

function eventData(row: BrandRow, changed: string[]) {
  return {
    brand_id: row.id,
    id: row.id,
    object: 'brand',
    name: row.name,
    slug: row.slug,
    is_default: row.is_default,
    version: row.version,
    updated_at: row.updated_at.toISOString(),
    changed,
  };
}

async function emit(ctx: BrandsContext, type: EventType, row: BrandRow, changed: string[] = []): Promise<void> {
  await appendEvent(ctx.db, ctx.workspaceId, type, eventData(row, changed));
}

export async function listBrands(ctx: BrandsContext, query: ListBrandsQuery) {
  const limit = query.limit ?? 20;
  const ids = ctx.brandFromHeader && ctx.brandId !== null ? [ctx.brandId] : ctx.allowedBrandIds;
  const binding = { list: 'brands', ids: ids ? [...ids].sort() : null };
  const after = query.cursor ? decodeCursor(query.cursor, binding) : undefined;
  const rows = await repo.listBrandRows(ctx.db, ctx.workspaceId, ids, after, limit + 1);
  const { page, ...more } = keysetPage(rows, limit, binding, (row) => row.created_at);
  return { items: page.map(brandJson), ...more };
}

export async function getBrand(ctx: BrandsContext, id: string) {
  return brandJson(await load(ctx, id));
}

/** The compiled context of a brand the caller reaches (404 otherwise). */
export async function brandContext(ctx: BrandsContext, id: string): Promise<BrandContext> {
  return compileBrandContext(await load(ctx, id));
}

export function brandContextJson(context: BrandContext) {
  return { object: 'brand_context', ...context, max_chars: BRAND_CONTEXT_MAX_CHARS };
}

export async function createBrand(ctx: BrandsContext, body: CreateBrandBody) {
  if (ctx.allowedBrandIds !== null)
    throw new AppError(
      'PUBLIC_API_BRAND_FORBIDDEN',
      'This key is limited to some brands and cannot create brands (it could not reach the new one).',
    );
  const { name, ...rest } = body;
  const fields = merged(
    { ...EMPTY_BRAND_FIELDS, name, slug: body.slug ?? (await freeSlug(ctx.db, ctx.workspaceId, name)) },
    rest,
  );
  await checkBrand(ctx, fields);
  const row = await slugRace(fields.slug, () =>
    repo.insertBrand(ctx.db, { id: newId('brand'), workspaceId: ctx.workspaceId, isDefault: false, ...fields }),
  );
  await emit(ctx, 'brand.created', row);
  return brandJson(row);
}

export async function updateBrand(ctx: BrandsContext, id: string, body: UpdateBrandBody) {
  const current = await load(ctx, id, true);
  const { version, ...patch } = body;
  if (version !== current.version)
    throw new AppError(
      'PUBLIC_API_VERSION_CONFLICT',
      `Brand ${id} is at version ${current.version}, not ${version}: it changed since you read it. Read it again, reapply your change and send version ${current.version}.`,
      { details: [{ path: '/version', rule: 'stale_version', message: `current version is ${current.version}` }] },
    );
  const before = fieldsOf(current);
  const next = merged(before, patch);
  const changes: Partial<BrandFields> = {};
  for (const key of Object.keys(next) as Array<keyof typeof next>)
    if (JSON.stringify(next[key]) !== JSON.stringify(before[key]))
      (changes as Record<string, unknown>)[key] = next[key];
  if (Object.keys(changes).length === 0) return brandJson(current);
  await checkBrand(ctx, next, id);
  // checkBrand may canonicalise the time zone.
  if (changes.timezone !== undefined) changes.timezone = next.timezone;
  const row = await slugRace(next.slug, () => repo.updateBrandRow(ctx.db, ctx.workspaceId, id, version, changes));
  if (!row) throw notFound('brand');
  await emit(ctx, 'brand.updated', row, Object.keys(changes).sort());
  return brandJson(row);
}

export async function deleteBrand(ctx: BrandsContext, id: string) {
  const brand = await load(ctx, id, true);
  if (brand.is_default)
    throw new AppError(
      'PUBLIC_API_STATE_CONFLICT',
      'The default brand of a workspace cannot be deleted: posts without a brand use it.',
    );
  const pending = await repo.pendingPostsOf(ctx.db, ctx.workspaceId, id);
  if (pending.length > 0)
    throw new AppError(
      'PUBLIC_API_STATE_CONFLICT',
      `Brand ${id} has posts still to be published (${pending.join(', ')}${pending.length === 5 ? ', …' : ''}); cancel or publish them first.`,
    );
  const connections = await repo.liveConnectionsOf(ctx.db, ctx.workspaceId, id);
  if (connections.length > 0)
    throw new AppError(
      'PUBLIC_API_STATE_CONFLICT',
      `Brand ${id} still has connected accounts (${connections.join(', ')}); disconnect them first.`,
    );
  await repo.deleteBrandRow(ctx.db, ctx.workspaceId, id);
  await emit(ctx, 'brand.deleted', brand);
  return { id, object: 'brand', deleted: true };
}

/** For text-producing features (src/features/ai): the context of a brand by id, or undefined. No access check. */
export async function loadBrandContext(
  db: Queryable,
  workspaceId: string,
  brandId: string,
): Promise<BrandContext | undefined> {
  const row = await repo.findBrandRow(db, workspaceId, brandId);
  return row ? compileBrandContext(row) : undefined;
}
