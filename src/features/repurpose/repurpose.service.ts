// Repurpose jobs (docs/repurpose.md): starting one (the row and its `repurpose` job, in the caller's transaction),
// reading, listing and cancelling them. The work itself is repurpose.run.ts, run by the worker.
import type { ServiceContext } from '../../app/context.ts';
import { decodeCursor, keysetPage } from '../../app/cursor.ts';
import { AppError, notFound, validationFailed, type ErrorDetail } from '../../app/errors.ts';
import type { Queryable } from '../../db/pool.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { OutboundBlockedError, type OutboundGuard } from '../../lib/ssrf.ts';
import { hasZone } from '../../lib/timezone.ts';
import { PLATFORM_LIMITS } from '../../platforms/catalogue.ts';
import { findMedia } from '../media/media.repo.ts';
import { findPost } from '../posts/posts.repo.ts';
import { resolveSchedule } from '../posts/posts.schedule.ts';
import * as repo from './repurpose.repo.ts';
import {
  TERMINAL_STATUSES,
  type CreateRepurposeBody,
  type JobStatus,
  type ListRepurposeQuery,
  type RepurposeSource,
} from './repurpose.schemas.ts';
import { renderJob } from './repurpose.view.ts';
import { bodyBrand } from '../brands/body-brand.ts';

/** Attempts of the job: a worker killed mid-run is retried from the row's state; the last one fails the job. */
export const REPURPOSE_ATTEMPTS = 3;

export interface RepurposeServiceDeps {
  clock: Clock;
  guard: OutboundGuard;
}

/** The fields each source type reads; any other is refused, so a request means one thing. */
const SOURCE_FIELDS: Record<RepurposeSource['type'], readonly string[]> = {
  url: ['url'],
  text: ['text', 'title'],
  post: ['post_id'],
  media: ['media_id', 'transcript', 'title'],
};
const REQUIRED: Record<RepurposeSource['type'], string> = {
  url: 'url',
  text: 'text',
  post: 'post_id',
  media: 'media_id',
};

export async function queueRepurpose(db: Queryable, workspaceId: string, jobId: string): Promise<void> {
  await db.query(
    `SELECT graphile_worker.add_job('repurpose', json_build_object('workspace_id', $1::text, 'job_id', $2::text),
              job_key => 'repurpose:' || $2, max_attempts => $3)`,
    [workspaceId, jobId, REPURPOSE_ATTEMPTS],
  );
}

function rule(path: string, name: string, message: string): ErrorDetail {
  return { path, rule: name, message, platform: null };
}

async function checkSource(
  deps: RepurposeServiceDeps,
  ctx: ServiceContext,
  source: RepurposeSource,
): Promise<ErrorDetail[]> {
  const issues: ErrorDetail[] = [];
  const allowed = SOURCE_FIELDS[source.type];
  for (const field of Object.keys(source))
    if (field !== 'type' && !allowed.includes(field))
      issues.push(
        rule(`/source/${field}`, 'source_field_unexpected', `${field} does not go with a ${source.type} source.`),
      );
  const required = REQUIRED[source.type];
  if ((source as Record<string, unknown>)[required] === undefined)
    issues.push(rule(`/source/${required}`, 'source_field_required', `A ${source.type} source needs ${required}.`));
  if (source.type === 'media' && source.transcript === undefined)
    issues.push(
      rule(
        '/source/transcript',
        'transcript_required',
        'A media source needs its transcript: Herald does not transcribe video offline. Send the transcript text beside media_id.',
      ),
    );
  if (issues.length > 0) return issues;
  if (source.type === 'url') {
    try {
      await deps.guard.checkUrl(source.url!);
    } catch (error) {
      if (!(error instanceof OutboundBlockedError)) throw error;
      // The guard's codes (`url_invalid`, `scheme_blocked`, `address_blocked`, …) named as source URL rules.
      const name = error.code.startsWith('url_') ? error.code : `url_${error.code}`;
      issues.push(rule('/source/url', name, `The URL cannot be fetched: ${error.message}`));
    }
  }
  if (source.type === 'post') {
    const post = await findPost(ctx.db, ctx.workspaceId, source.post_id!);
    if (!post || (ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(post.brand_id)))
      issues.push(rule('/source/post_id', 'source_post_not_found', `No post ${source.post_id} in this workspace.`));
  }
  if (source.type === 'media') {
    const media = await findMedia(ctx.db, ctx.workspaceId, source.media_id!);
    // The transcript is what is read; the media must still be a video (its kind is unknown while it is fetched).
    if (!media)
      issues.push(rule('/source/media_id', 'source_media_not_found', `No media ${source.media_id} in this workspace.`));
    else if (media.kind !== null && media.kind !== 'video')
      issues.push(
        rule('/source/media_id', 'source_media_not_video', `Media ${source.media_id} is ${media.kind}, not a video.`),
      );
  }
  return issues;
}

function checkTargets(body: CreateRepurposeBody): ErrorDetail[] {
  const issues: ErrorDetail[] = [];
  const seen = new Set<string>();
  body.targets.forEach((t, i) => {
    const key = `${t.platform}:${t.format}`;
    if (seen.has(key))
      issues.push(rule(`/targets/${i}`, 'target_repeated', `${t.platform} ${t.format} is listed twice; use count.`));
    seen.add(key);
    if (t.format === 'thread' && PLATFORM_LIMITS[t.platform].maxThreadParts < 2)
      issues.push(
        rule(
          `/targets/${i}/format`,
          'thread_unsupported',
          `${PLATFORM_LIMITS[t.platform].displayName} does not take threads.`,
        ),
      );
  });
  const link = body.options?.link;
  if (link !== undefined && !(URL.canParse(link) && /^https?:$/.test(new URL(link).protocol)))
    issues.push(rule('/options/link', 'link_invalid', 'The link must be an absolute http(s) URL.'));
  return issues;
}

/** The output plan: `schedule` needs its first time (read in the brand's time zone when it has no offset). */
function checkOutput(body: CreateRepurposeBody, zone: string | null, now: Date): ErrorDetail[] {
  const output = body.output ?? { mode: 'draft' };
  if (output.mode === 'schedule' && !output.schedule)
    return [rule('/output/schedule', 'schedule_required', 'The schedule mode needs schedule.first_at.')];
  if (output.mode === 'draft' && output.schedule)
    return [
      rule('/output/schedule', 'schedule_unexpected', 'Drafts are not scheduled; use mode schedule or approval.'),
    ];
  if (!output.schedule) return [];
  const first = output.schedule.first_at;
  let at: Date;
  try {
    at = resolveSchedule({ scheduleAt: first, timezone: hasZone(first) ? undefined : (zone ?? 'UTC') }).scheduleAt!;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return [rule('/output/schedule/first_at', 'schedule_invalid', error.message)];
  }
  return at.getTime() < now.getTime()
    ? [rule('/output/schedule/first_at', 'schedule_in_past', `${first} is in the past.`)]
    : [];
}

export function createRepurposeService(deps: RepurposeServiceDeps) {
  async function findVisible(ctx: ServiceContext, id: string, lock = false) {
    const row = await repo.findJob(ctx.db, ctx.workspaceId, id, { lock });
    if (!row || (ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(row.brand_id))) throw notFound('repurpose_job');
    return row;
  }

  return {
    async create(ctx: ServiceContext, body: CreateRepurposeBody) {
      const brand = await bodyBrand(ctx, body.brand_id);
      const issues = [
        ...(await checkSource(deps, ctx, body.source)),
        ...checkTargets(body),
        ...checkOutput(body, brand.timezone, deps.clock.now()),
      ];
      if (issues.length > 0) throw validationFailed(issues);
      const row = await repo.insertJob(ctx.db, {
        id: newId('rep'),
        workspace_id: ctx.workspaceId,
        brand_id: brand.id,
        created_by: ctx.userId,
        source: body.source,
        targets: body.targets.map((t) => ({ ...t, count: t.count ?? 1 })),
        options: { hashtags: true, ...body.options },
        output: body.output ?? { mode: 'draft' },
      });
      await queueRepurpose(ctx.db, ctx.workspaceId, row.id);
      return renderJob(row);
    },

    async get(ctx: ServiceContext, id: string) {
      return renderJob(await findVisible(ctx, id));
    },

    async list(ctx: ServiceContext, query: ListRepurposeQuery) {
      const limit = query.limit ?? 20;
      if (query.brand_id !== undefined && ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(query.brand_id))
        throw new AppError('PUBLIC_API_BRAND_FORBIDDEN', 'That brand is not reachable by this key.');
      const filters: repo.JobFilters = {
        statuses: query.status ? ([...new Set(query.status)].sort() as JobStatus[]) : undefined,
        brandIds: query.brand_id !== undefined ? [query.brand_id] : (ctx.allowedBrandIds ?? undefined),
      };
      const after = query.cursor ? decodeCursor(query.cursor, filters) : undefined;
      const rows = await repo.listJobs(ctx.db, ctx.workspaceId, filters, after, limit + 1);
      const { page, ...more } = keysetPage(rows, limit, filters, (row) => row.created_at);
      return { items: page.map(renderJob), ...more };
    },

    /** Stops a job that has not finished: its row says `cancelled` and the worker, finding it so, writes nothing. */
    async cancel(ctx: ServiceContext, id: string) {
      const row = await findVisible(ctx, id, true);
      if (TERMINAL_STATUSES.includes(row.status))
        throw new AppError(
          'PUBLIC_API_STATE_CONFLICT',
          `Repurpose job ${id} is ${row.status}; only a running job can be cancelled.`,
        );
      const cancelled = await repo.moveJob(
        ctx.db,
        ctx.workspaceId,
        id,
        ['queued', 'fetching', 'generating'],
        'cancelled',
      );
      await ctx.db.query(`SELECT graphile_worker.remove_job('repurpose:' || $1)`, [id]);
      return renderJob(cancelled!);
    },
  };
}

export type RepurposeService = ReturnType<typeof createRepurposeService>;
