// The rules of a brand beyond its schema (docs/api.md "Brands"): each is a 422 naming its field and rule. A slug
// another brand holds, an unknown time zone, duplicates, a banned term in the brand's own additions, media that is
// missing, not ready or another workspace's. Also the slug race the unique index catches.
import type { ServiceContext } from '../../app/context.ts';
import { validationFailed, type ErrorDetail } from '../../app/errors.ts';
import { canonicalZone } from '../../lib/timezone.ts';
import { findManyMedia } from '../media/media.repo.ts';
import { containsTerm } from './brand-rules.ts';
import * as repo from './brands.repo.ts';
import type { BrandFields } from './brands.repo.ts';
import { brandRules } from './brands.view.ts';

function duplicates(values: string[], path: string, what: string, details: ErrorDetail[]): void {
  const seen = new Map<string, number>();
  values.forEach((v, i) => {
    const key = v.toLowerCase();
    if (seen.has(key))
      details.push({ path: `${path}/${i}`, rule: 'duplicate', message: `${what} "${v}" is listed twice.` });
    seen.set(key, i);
  });
}

/** The brand as it will be stored, checked as a whole (a PATCH may make a valid field clash with a kept one). */
export async function checkBrand(
  ctx: Pick<ServiceContext, 'db' | 'workspaceId'>,
  brand: Omit<BrandFields, 'name'> & { name: string },
  id?: string,
) {
  const details: ErrorDetail[] = [];
  if (await repo.slugTaken(ctx.db, ctx.workspaceId, brand.slug, id))
    details.push({
      path: '/slug',
      rule: 'slug_taken',
      message: `Another brand of this workspace has the slug "${brand.slug}".`,
    });
  if (brand.timezone !== null) {
    const zone = canonicalZone(brand.timezone);
    if (zone === null)
      details.push({
        path: '/timezone',
        rule: 'timezone_unknown',
        message: `"${brand.timezone}" is not an IANA time zone.`,
      });
    else brand.timezone = zone;
  }
  for (const term of brand.banned_terms) {
    if (term.trim() === '') details.push({ path: '/banned_terms', rule: 'blank', message: 'A banned term is blank.' });
  }
  for (const term of brand.required_terms) {
    if (term.trim() === '')
      details.push({ path: '/required_terms', rule: 'blank', message: 'A required term is blank.' });
  }
  duplicates(brand.banned_terms, '/banned_terms', 'Banned term', details);
  duplicates(brand.required_terms, '/required_terms', 'Required term', details);
  duplicates(brand.default_hashtags, '/default_hashtags', 'Hashtag', details);
  duplicates(brand.colors, '/colors', 'Colour', details);
  // A brand cannot ban what it adds to every post itself.
  const own: Array<[string, string[]]> = [
    ['/required_terms', brand.required_terms],
    ['/default_hashtags', brand.default_hashtags],
    ['/signature', brand.signature ? [brand.signature] : []],
    ['/cta_default', brand.cta_default ? [brand.cta_default] : []],
  ];
  for (const term of brand.banned_terms)
    for (const [path, texts] of own)
      if (texts.some((t) => containsTerm(t, term)))
        details.push({
          path,
          rule: 'banned_term_in_brand',
          message: `${path.slice(1)} uses "${term}", which banned_terms bans.`,
        });
  const rules = brandRules(brand.rules);
  for (const name of ['required_terms', 'signature', 'cta', 'default_hashtags'] as const) {
    const { apply, platforms } = rules[name];
    if (apply === 'platforms' && platforms.length === 0)
      details.push({
        path: `/rules/${name}/platforms`,
        rule: 'platforms_required',
        message: `rules.${name}: \`apply: platforms\` needs at least one platform.`,
      });
    if (apply !== 'platforms' && platforms.length > 0)
      details.push({
        path: `/rules/${name}/platforms`,
        rule: 'platforms_unused',
        message: `rules.${name}.platforms is only read with \`apply: platforms\` (it is \`${apply}\`).`,
      });
  }
  const memoryIds = brand.memory.map((m) => m.id);
  memoryIds.forEach((mid, i) => {
    if (memoryIds.indexOf(mid) !== i)
      details.push({ path: `/memory/${i}/id`, rule: 'duplicate', message: `Memory id ${mid} is listed twice.` });
  });
  const mediaIds = [
    ...new Set([...(brand.logo_media_id ? [brand.logo_media_id] : []), ...brand.documents.map((d) => d.media_id)]),
  ];
  // Held until the transaction ends, as posts do: the media cleanup and DELETE /media see the brand's reference.
  const media = await findManyMedia(ctx.db, ctx.workspaceId, mediaIds, true);
  if (brand.logo_media_id) {
    const logo = media.find((m) => m.id === brand.logo_media_id);
    if (!logo || logo.status !== 'ready' || logo.kind !== 'image')
      details.push({
        path: '/logo_media_id',
        rule: logo ? 'media_not_usable' : 'media_not_found',
        message: logo
          ? `Media ${brand.logo_media_id} must be a ready image to be a logo (it is a ${logo.status} ${logo.kind ?? 'upload'}).`
          : `No media ${brand.logo_media_id} in this workspace.`,
      });
  }
  const documentIds = brand.documents.map((d) => d.media_id);
  brand.documents.forEach((d, i) => {
    const row = media.find((m) => m.id === d.media_id);
    if (documentIds.indexOf(d.media_id) !== i)
      details.push({
        path: `/documents/${i}/media_id`,
        rule: 'duplicate',
        message: `Media ${d.media_id} is listed twice.`,
      });
    else if (!row)
      details.push({
        path: `/documents/${i}/media_id`,
        rule: 'media_not_found',
        message: `No media ${d.media_id} in this workspace.`,
      });
    else if (row.status !== 'ready')
      details.push({
        path: `/documents/${i}/media_id`,
        rule: 'media_not_usable',
        message: `Media ${d.media_id} is ${row.status}, not ready.`,
      });
  });
  if (details.length > 0) throw validationFailed(details);
}

/**
 * A write that lost a race for its slug (another brand of the workspace took it between the check and the write,
 * caught by the unique index) is the same 422 the check gives, not a 500.
 */
export async function slugRace<T>(slug: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const e = error as { code?: string; constraint?: string };
    if (e.code === '23505' && e.constraint === 'brands_workspace_slug_key')
      throw validationFailed([
        { path: '/slug', rule: 'slug_taken', message: `Another brand of this workspace has the slug "${slug}".` },
      ]);
    throw error;
  }
}
