// Media variants: a media item fitted to a platform's rules, made once per media and rule key by the
// `make_media_variant` job, kept beside the original (which never changes), reused by every target that needs it
// and removed with the media. Posts ask for them when media are attached (`request`), validation reports what they
// will be (`plans`), and the publishing engine waits for them (`forTarget`). A variant is generic: (media, rule key)
// → stored object; the spec's `kind` picks its maker (`image` here: fit/convert.ts).
import { createHash } from 'node:crypto';
import type { Pool, Queryable } from '../../db/pool.ts';
import type { Logger } from '../../lib/logger.ts';
import { newId } from '../../lib/ids.ts';
import { PLATFORM_LIMITS } from '../../platforms/catalogue.ts';
import { readAll } from '../../platforms/http.ts';
import type { PlatformLimits, PlatformName } from '../../platforms/limits.ts';
import { ConversionRefused, convertImage } from './fit/convert.ts';
import { fitOptionsOf, planImage, type ImagePlan, type ImageVariantSpec } from './fit/plan.ts';
import type { MediaRow } from './media.repo.ts';
import type { MediaIssue } from './media.rules.ts';
import { planVideo, TRANSCODE_TIMEOUT_MS, type VideoPlan } from './fit/video.ts';
import { videoFacts } from './media.video-rules.ts';
import { makeVideoVariant, type VideoVariantDeps } from './media.video-variants.ts';
import { findManyMedia, findMedia } from './media.repo.ts';
import * as repo from './media.variants.repo.ts';
import type { VariantRow } from './media.variants.repo.ts';
import type { MediaStorage } from './storage/storage.ts';

export type { VariantRow } from './media.variants.repo.ts';

/** One target's view of the media: which platform, its rules, its options (`platform_options.<platform>`). */
export interface FitTarget {
  platform: PlatformName;
  limits: PlatformLimits;
  options: Record<string, unknown> | undefined;
  /** This server can transcode video (FFmpeg): a video outside the video rules becomes a variant (fit/video.ts). */
  transcodeVideo?: boolean;
}

/** A variant as the media record lists it (docs/api.md "Media"). */
export interface VariantView {
  platform: string;
  content_type: string;
  width: number;
  height: number;
  size_bytes: number;
  sha256: string;
}

/** What a target will send for one media item: the original, a variant, or nothing yet. */
export type TargetMedia =
  | { use: 'original'; media: MediaRow }
  | { use: 'variant'; media: MediaRow; variant: VariantRow }
  | { use: 'pending'; media: MediaRow; variant: VariantRow }
  | { use: 'failed'; media: MediaRow; variant: VariantRow };

export interface VariantDeps {
  pool: Pool;
  storage: MediaStorage;
  logger: Logger;
  /** Most conversions one process runs at once (HERALD_MEDIA_CONVERSIONS). */
  conversions: number;
  /** Video variants (transcodes): FFmpeg and what the media.failed event of a failed one needs. */
  video?: VideoVariantDeps;
}

/** A still pending image variant this old (its jobs keep failing, or no worker has the task) fails its targets. */
const IMAGE_VARIANT_WAIT_MS = 15 * 60_000;

/**
 * How long after it was asked for a target waits for a variant before failing: bounded, so no target waits forever,
 * and for a video longer than one transcode may run (fit/video.ts), so a long transcode is not abandoned midway.
 */
export function variantWaitMs(variant: Pick<VariantRow, 'spec'>): number {
  return variant.spec.kind === 'video' ? TRANSCODE_TIMEOUT_MS + IMAGE_VARIANT_WAIT_MS : IMAGE_VARIANT_WAIT_MS;
}

/** A counting semaphore: at most `size` tasks inside at once, the rest wait in order. */
export function limiter(size: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async function run<T>(task: () => Promise<T>): Promise<T> {
    if (active >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    else active++;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

/** The plan of one media item for one target; null when nothing is fitted (not an image, or no image rules). */
export function planFor(media: MediaRow, target: FitTarget): ImagePlan | VideoPlan {
  if (media.status === 'ready' && media.kind === 'video' && media.probed_with)
    return planVideo(target.platform, target.limits, videoFacts(media), target.transcodeVideo === true);
  if (media.status !== 'ready' || !media.content_type || media.kind !== 'image') return null;
  return planImage(
    target.platform,
    target.limits,
    {
      id: media.id,
      contentType: media.content_type,
      sizeBytes: media.size_bytes ?? 0,
      width: media.width,
      height: media.height,
    },
    fitOptionsOf(target.options),
  );
}

/** Asks for the variants these media need on these targets (pending rows and their jobs, in the caller's tx). */
export async function requestVariants(
  db: Queryable,
  workspaceId: string,
  media: MediaRow[],
  targets: FitTarget[],
  retryFailed = false,
): Promise<VariantRow[]> {
  const wanted = new Map<string, repo.NewVariant>();
  for (const target of targets)
    for (const row of media) {
      const plan = planFor(row, target);
      if (plan?.kind !== 'variant') continue;
      wanted.set(`${row.id} ${plan.ruleKey}`, {
        id: newId('var'),
        mediaId: row.id,
        ruleKey: plan.ruleKey,
        platform: target.platform,
        spec: plan.spec,
      });
    }
  return repo.requestVariants(db, workspaceId, [...wanted.values()], retryFailed);
}

/** The media of one target as the engine will send them, asking for any variant not yet requested. */
export async function mediaForTarget(
  db: Queryable,
  workspaceId: string,
  media: MediaRow[],
  target: FitTarget,
): Promise<TargetMedia[]> {
  const plans = media.map((row) => planFor(row, target));
  const needed = media.filter((_, i) => plans[i]?.kind === 'variant');
  const variants = needed.length > 0 ? await requestVariants(db, workspaceId, needed, [target]) : [];
  return media.map((row, i): TargetMedia => {
    const plan = plans[i];
    if (plan?.kind !== 'variant') return { use: 'original', media: row };
    const variant = variants.find((v) => v.media_id === row.id && v.rule_key === plan.ruleKey)!;
    if (variant.status === 'ready') return { use: 'variant', media: row, variant };
    return { use: variant.status, media: row, variant };
  });
}

/** The ready variants of these media, as their records list them. */
export async function variantViews(
  db: Queryable,
  workspaceId: string,
  mediaIds: readonly string[],
): Promise<Map<string, VariantView[]>> {
  const views = new Map<string, VariantView[]>();
  for (const v of await repo.variantsOf(db, workspaceId, mediaIds)) {
    if (v.status !== 'ready') continue;
    const list = views.get(v.media_id) ?? [];
    list.push({
      platform: v.platform,
      content_type: v.content_type!,
      width: v.width!,
      height: v.height!,
      size_bytes: v.size_bytes!,
      sha256: v.sha256!,
    });
    views.set(v.media_id, list);
  }
  return views;
}

/** Deletes the bytes of every variant of a media item (before its row goes; the rows go with it by cascade). */
export async function removeVariantBytes(
  db: Queryable,
  storage: MediaStorage,
  workspaceId: string,
  mediaId: string,
): Promise<void> {
  for (const v of await repo.variantsOf(db, workspaceId, [mediaId]))
    if (v.storage_key) await storage.remove(v.storage_key);
}

/** The `make_media_variant` job: makes one pending variant, at most `conversions` at once in this process. */
export function variantMaker(deps: VariantDeps) {
  const run = limiter(deps.conversions);
  return async function makeVariant(
    payload: { workspace_id: string; variant_id: string },
    attempt: { attempts: number; maxAttempts: number },
  ): Promise<'ready' | 'failed' | 'skipped'> {
    const variant = await repo.findVariant(deps.pool, payload.workspace_id, payload.variant_id);
    if (!variant || variant.status !== 'pending') return 'skipped';
    const media = await findMedia(deps.pool, variant.workspace_id, variant.media_id);
    if (!media?.storage_key || !media.content_type) return 'skipped'; // deleted meanwhile: nothing to make
    const fail = async (reason: string) => {
      await repo.markVariantFailed(deps.pool, variant.workspace_id, variant.id, reason);
      deps.logger.warn({ media_id: media.id, variant_id: variant.id, reason }, 'media variant failed');
      return 'failed' as const;
    };
    if (variant.spec.kind === 'video' && deps.video)
      return run(() => makeVideoVariant(deps.video!, variant, media, attempt.attempts >= attempt.maxAttempts));
    if (variant.spec.kind !== 'image') return fail(`Herald cannot make ${variant.spec.kind} variants.`);
    try {
      // Only the conversion holds a slot; storing the result does not.
      const made = await run(async () =>
        convertImage(
          await readAll(await deps.storage.open(media.storage_key!)),
          media.content_type!,
          variant.spec as unknown as ImageVariantSpec,
        ),
      );
      {
        const key = deps.storage.variantKey(variant.workspace_id, media.id, variant.id);
        await deps.storage.put(key, made.data, made.contentType);
        const stored = await repo.markVariantReady(deps.pool, variant.workspace_id, variant.id, {
          contentType: made.contentType,
          width: made.width,
          height: made.height,
          sizeBytes: made.data.length,
          sha256: createHash('sha256').update(made.data).digest('hex'),
          storageKey: key,
        });
        if (stored) return 'ready' as const;
        await repo.discardUnrecorded(deps.pool, deps.storage, variant, key);
        return 'skipped' as const;
      }
    } catch (error) {
      if (error instanceof ConversionRefused)
        return fail(`Media ${media.id} could not be fitted to ${variant.platform}'s rules: ${error.message}.`);
      // Storage or database trouble: the queue tries again; the last try records the failure for the target.
      if (attempt.attempts >= attempt.maxAttempts)
        return fail(
          `Media ${media.id} could not be fitted to ${variant.platform}'s rules: ${(error as Error).message}`,
        );
      throw error;
    }
  };
}

// ---- for posts: what fitting will do, decided from stored facts only --------------------------------------------

/** A media row with its index in the post's `media_ids`. */
export interface PositionedMedia {
  row: MediaRow;
  position: number;
}

/** The stock targets of a post's platforms, with their `platform_options` (connection limits where given). */
export function targetsOf(
  platforms: readonly PlatformName[],
  platformOptions: Record<string, unknown> | undefined,
  limitsOf: (platform: PlatformName) => PlatformLimits = (p) => PLATFORM_LIMITS[p],
): FitTarget[] {
  return platforms.map((platform) => ({
    platform,
    limits: limitsOf(platform),
    options: platformOptions?.[platform] as Record<string, unknown> | undefined,
  }));
}

/** The media that cannot be fitted to a target without changing the picture (or at all), as 422 issues. */
export function fitIssues(media: PositionedMedia[], targets: FitTarget[]): MediaIssue[] {
  const issues: MediaIssue[] = [];
  for (const target of targets)
    for (const { row, position } of media) {
      const plan = planFor(row, target);
      if (plan?.kind === 'refused')
        issues.push({
          platform: target.platform,
          rule: plan.rule,
          message: plan.message,
          path: `/media_ids/${position}`,
        });
    }
  return issues;
}

/** One media item on one platform, as `POST /posts/validate` reports it. */
export interface MediaPlanView {
  platform: PlatformName;
  media_id: string;
  /** `original`: sent as uploaded; `variant`: a fitted copy is sent; `refused`: cannot be fitted (see `issues`). */
  result: 'original' | 'variant' | 'refused';
  content_type: string;
  width: number | null;
  height: number | null;
  actions: string[];
}

export function fitReport(media: PositionedMedia[], targets: FitTarget[]): MediaPlanView[] {
  const report: MediaPlanView[] = [];
  for (const target of targets)
    for (const { row } of media) {
      if (row.status !== 'ready' || !row.content_type) continue;
      const plan = planFor(row, target);
      const base = { platform: target.platform, media_id: row.id };
      if (plan?.kind === 'variant')
        report.push({
          ...base,
          result: 'variant',
          content_type: plan.contentType,
          width: plan.width,
          height: plan.height,
          actions: plan.actions,
        });
      else
        report.push({
          ...base,
          result: plan?.kind === 'refused' ? 'refused' : 'original',
          content_type: row.content_type,
          width: row.width,
          height: row.height,
          actions: plan?.kind === 'refused' ? [plan.message] : [],
        });
    }
  return report;
}

/** The ready media of a post, with their positions (rows that are not ready have issues of their own). */
async function readyMedia(db: Queryable, workspaceId: string, mediaIds: readonly string[]): Promise<PositionedMedia[]> {
  const rows = new Map((await findManyMedia(db, workspaceId, mediaIds)).map((r) => [r.id, r]));
  return mediaIds.flatMap((id, position) => {
    const row = rows.get(id);
    return row?.status === 'ready' ? [{ row, position }] : [];
  });
}

/** `POST /posts/validate`: per platform, what will be done to each media item. */
export async function postMediaPlans(
  db: Queryable,
  workspaceId: string,
  mediaIds: readonly string[],
  targets: FitTarget[],
): Promise<MediaPlanView[]> {
  return fitReport(await readyMedia(db, workspaceId, mediaIds), targets);
}

/** A post was written: ask now for the variants its targets will need, so they are ready before it publishes. */
export async function preparePostVariants(
  db: Queryable,
  workspaceId: string,
  mediaIds: readonly string[],
  targets: FitTarget[],
): Promise<void> {
  const media = await readyMedia(db, workspaceId, mediaIds);
  await requestVariants(
    db,
    workspaceId,
    media.map((m) => m.row),
    targets,
    true,
  );
}
