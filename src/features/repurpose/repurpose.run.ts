// The `repurpose` job (docs/repurpose.md "The job"): read the source, generate and fit each output, then, in one
// transaction with the row locked, check every output with the posts validator, create the posts (drafts, held for
// approval in one batch, or scheduled), and store the outputs with the terminal status and its event. Exactly once:
// a run that finds the row finished or cancelled does nothing; a run killed before that transaction commits left
// no post behind, and the retry starts again from the row.
import type { ServiceContext } from '../../app/context.ts';
import { isAppError } from '../../app/errors.ts';
import { withTransaction, type Pool } from '../../db/pool.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import type { AiService } from '../ai/ai.service.ts';
import type { GeneratedBy } from '../ai/ai.types.ts';
import { pickHashtags } from '../ai/deterministic/text.ts';
import { closeBatch, openBatch } from '../approvals/approvals.submit.ts';
import { findBrandRow } from '../brands/brands.repo.ts';
import { compileBrandContext } from '../brands/context.ts';
import { appendEvent } from '../events/outbox.ts';
import { workspaceModes } from '../workspaces/workspaces.repo.ts';
import type { PostsService } from '../posts/posts.service.ts';
import type { CreatePostBody } from '../posts/posts.schemas.ts';
import { resolveSchedule } from '../posts/posts.schedule.ts';
import { hasZone } from '../../lib/timezone.ts';
import { readSource, SourceFailure, type FetchCaps, type SourceText } from './repurpose.extract.ts';
import { fitOutput, withUtm, type Draft, type Extras } from './repurpose.fit.ts';
import * as repo from './repurpose.repo.ts';
import type { JobRow, StoredOutput } from './repurpose.repo.ts';
import type { OutputFormat, RepurposeOptions, RepurposeSource } from './repurpose.schemas.ts';
import { repurposeTask } from './repurpose.task.ts';
import { renderJob } from './repurpose.view.ts';

export interface RunDeps {
  pool: Pool;
  ai: AiService;
  posts: PostsService;
  clock: Clock;
  logger: Logger;
  caps: FetchCaps;
}

const RUNNING = ['queued', 'fetching', 'generating'] as const;
/** Hashtags per output when the brand says nothing: a few (fitting drops any the platform's rules refuse). */
const DEFAULT_HASHTAGS = 3;

interface Planned {
  platform: PlatformName;
  format: OutputFormat;
  draft: Draft;
  generatedBy: GeneratedBy;
}

async function generate(deps: RunDeps, job: JobRow, source: SourceText, brand: ReturnType<typeof compileBrandContext>) {
  const options = job.options as RepurposeOptions;
  const planned: Planned[] = [];
  for (const target of job.targets) {
    for (let variant = 0; variant < (target.count ?? 1); variant++) {
      const answer = await deps.ai.generate<Draft>({
        task: repurposeTask,
        brand,
        workspaceId: job.workspace_id,
        onLimit: 'deterministic',
        inputs: {
          platform: target.platform,
          format: target.format,
          ...(source.title ? { title: source.title.slice(0, 300) } : {}),
          text: source.text.slice(0, 100_000),
          ...(options.tone ? { tone: options.tone } : {}),
          ...(options.language ? { language: options.language } : {}),
          variant,
        },
      });
      planned.push({
        platform: target.platform as PlatformName,
        format: target.format as OutputFormat,
        draft: answer.output,
        generatedBy: answer.generated_by,
      });
    }
  }
  return planned;
}

function extrasFor(
  job: JobRow,
  source: SourceText,
  platform: PlatformName,
  brand: ReturnType<typeof compileBrandContext>,
): Extras {
  const options = job.options as RepurposeOptions;
  const link = options.link ?? source.url;
  const utm = {
    source: options.utm?.source ?? platform,
    medium: options.utm?.medium ?? 'social',
    campaign: options.utm?.campaign ?? 'repurpose',
  };
  const style = brand.fields.voice?.hashtags;
  const budget = style === 'none' ? 0 : style === 'many' ? 8 : DEFAULT_HASHTAGS;
  return {
    cta: options.cta ?? null,
    link: link ? withUtm(link, utm) : null,
    hashtags:
      options.hashtags === false
        ? []
        : pickHashtags(`${source.title ?? ''}\n${source.text}`, brand.fields.default_hashtags ?? [], budget),
    brandSuffix: '',
  };
}

function postBody(platform: PlatformName, parts: string[], at: Date | null, mode: string): CreatePostBody {
  return {
    content: parts[0]!,
    platforms: [platform],
    ...(parts.length > 1 ? { platform_options: { [platform]: { thread: parts.slice(1) } } } : {}),
    ...(at ? { schedule_at: at.toISOString() } : mode === 'approval' ? { publish_now: true } : {}),
  } as CreatePostBody;
}

/** The times of scheduled outputs: the first time, then one spacing apart, in the order outputs are listed. */
function timesOf(job: JobRow, count: number, zone: string | null): (Date | null)[] {
  const schedule = job.output.schedule;
  if (!schedule || job.output.mode === 'draft') return Array.from({ length: count }, () => null);
  // Checked at creation; a time without an offset is read in the brand's zone as the zone is now.
  const first = resolveSchedule({
    scheduleAt: schedule.first_at,
    timezone: hasZone(schedule.first_at) ? undefined : (zone ?? 'UTC'),
  }).scheduleAt!.getTime();
  const spacing = (schedule.spacing_minutes ?? 60) * 60_000;
  return Array.from({ length: count }, (_, i) => new Date(first + i * spacing));
}

/** Checks one fitted output with the posts validator and creates its post; the output as stored. */
async function createOutput(
  deps: RunDeps,
  ctx: ServiceContext,
  job: JobRow,
  plan: Planned,
  extras: Extras,
  at: Date | null,
  batchId: string | null,
): Promise<StoredOutput> {
  let fitted = fitOutput(plan.platform, plan.format, plan.draft, extras);
  let checked = fitted.within_limit
    ? await deps.posts.validate(ctx, postBody(plan.platform, fitted.parts, at, job.output.mode))
    : undefined;
  if (checked && !checked.valid) {
    // The brand's rules append text (signature, CTA) to the first part: fit again with that room kept.
    const applied = checked.applied.find((a) => a.platform === plan.platform);
    const suffix =
      applied && applied.text.startsWith(fitted.parts[0]!) ? applied.text.slice(fitted.parts[0]!.length) : '';
    if (suffix) {
      fitted = fitOutput(plan.platform, plan.format, plan.draft, { ...extras, brandSuffix: suffix });
      checked = fitted.within_limit
        ? await deps.posts.validate(ctx, postBody(plan.platform, fitted.parts, at, job.output.mode))
        : undefined;
    }
  }
  const base = {
    id: newId('out'),
    platform: plan.platform,
    format: plan.format,
    content: fitted.parts.join('\n\n'),
    parts: fitted.parts,
    char_count: fitted.char_count,
    within_limit: fitted.within_limit,
    hashtags: fitted.hashtags,
    post_id: null,
    approval_item_id: null,
  };
  const failure = !fitted.within_limit ? fitted.problems[0] : checked && !checked.valid ? checked.issues[0] : undefined;
  if (failure) return { ...base, status: 'failed', error: { rule: failure.rule, message: failure.message } };
  const created = await deps.posts.create(ctx, postBody(plan.platform, fitted.parts, at, job.output.mode), {
    source: { type: 'repurpose', id: job.id },
    batchId,
    review: job.output.mode === 'approval' ? 'always' : 'policy',
  });
  // The post's `approval` field names the item the gate opened (posts.approval.ts `holdForApproval`).
  const approval = created.post.approval as { item_id?: string } | null;
  return {
    ...base,
    status: 'created',
    post_id: created.post_id,
    approval_item_id: approval?.item_id ?? null,
    error: null,
  };
}

async function fail(deps: RunDeps, job: JobRow, error: { code: string; message: string }): Promise<void> {
  await withTransaction(deps.pool, async (tx) => {
    const row = await repo.findJob(tx, job.workspace_id, job.id, { lock: true });
    if (!row || !(RUNNING as readonly string[]).includes(row.status)) return;
    const done = await repo.finishJob(tx, job.workspace_id, job.id, {
      status: 'failed',
      outputs: [],
      error,
      generatedBy: null,
      approvalBatchId: null,
    });
    await appendEvent(tx, job.workspace_id, 'repurpose.failed', renderJob(done));
  });
}

/** Runs one job; `lastAttempt` turns an unexpected error into a failed job rather than a retry. */
export async function runRepurposeJob(
  deps: RunDeps,
  payload: { workspace_id: string; job_id: string },
  lastAttempt: boolean,
): Promise<void> {
  const job = await repo.moveJob(deps.pool, payload.workspace_id, payload.job_id, RUNNING, 'fetching');
  if (!job) return; // finished, cancelled or gone: nothing to do
  try {
    await runSteps(deps, job);
  } catch (error) {
    if (!lastAttempt) throw error;
    deps.logger.error({ err: error, repurpose_job_id: job.id }, 'repurpose job failed unexpectedly');
    await fail(deps, job, {
      code: 'internal_error',
      message: 'Herald could not finish this job (an internal error); start it again.',
    });
  }
}

async function runSteps(deps: RunDeps, job: JobRow): Promise<void> {
  let source: SourceText;
  try {
    source = await readSource(
      { db: deps.pool, caps: deps.caps, now: () => deps.clock.now() },
      job.workspace_id,
      job.source as RepurposeSource,
    );
  } catch (error) {
    if (!(error instanceof SourceFailure)) throw error;
    return fail(deps, job, { code: error.code, message: error.message });
  }
  const generating = await repo.moveJob(
    deps.pool,
    job.workspace_id,
    job.id,
    ['fetching'],
    'generating',
    source.snapshot,
  );
  if (!generating) return;
  const brandRow = await findBrandRow(deps.pool, job.workspace_id, job.brand_id);
  if (!brandRow) return fail(deps, job, { code: 'brand_missing', message: 'The job’s brand was deleted.' });
  const brand = compileBrandContext(brandRow);
  const planned = await generate(deps, job, source, brand);
  const mode = (await workspaceModes(deps.pool, [job.workspace_id])).get(job.workspace_id) ?? 'live';

  await withTransaction(deps.pool, async (tx) => {
    const row = await repo.findJob(tx, job.workspace_id, job.id, { lock: true });
    if (!row || row.status !== 'generating') return; // cancelled meanwhile, or another run finished it
    const ctx: ServiceContext = {
      db: tx,
      workspaceId: job.workspace_id,
      workspaceMode: mode,
      brandId: job.brand_id,
      brandFromHeader: false,
      allowedBrandIds: null,
      userId: job.created_by,
      via: 'repurpose',
    };
    // The batch is undone below when no output became a post: an empty batch would sit in the approvals list.
    await tx.query('SAVEPOINT repurpose_batch');
    let batch = job.output.mode === 'approval' ? await openBatch(ctx, { type: 'repurpose', id: job.id }) : null;
    const times = timesOf(job, planned.length, brandRow.timezone);
    const outputs: StoredOutput[] = [];
    for (const [i, plan] of planned.entries()) {
      const extras = extrasFor(job, source, plan.platform, brand);
      // Each output in a savepoint: one refused after its post row was written leaves nothing of it behind.
      await tx.query('SAVEPOINT repurpose_output');
      try {
        outputs.push(await createOutput(deps, ctx, job, plan, extras, times[i] ?? null, batch?.id ?? null));
        await tx.query('RELEASE SAVEPOINT repurpose_output');
      } catch (error) {
        // A rule the validator did not foresee (a connection gone meanwhile): this output fails, the others stand.
        if (!isAppError(error)) throw error;
        await tx.query('ROLLBACK TO SAVEPOINT repurpose_output');
        const detail = error.details?.[0];
        outputs.push({
          id: newId('out'),
          platform: plan.platform,
          format: plan.format,
          status: 'failed',
          content: '',
          parts: [],
          char_count: 0,
          within_limit: false,
          hashtags: [],
          post_id: null,
          approval_item_id: null,
          error: { rule: detail?.rule ?? error.code, message: detail?.message ?? error.message },
        });
      }
    }
    const created = outputs.filter((o) => o.status === 'created').length;
    if (batch && created === 0) {
      await tx.query('ROLLBACK TO SAVEPOINT repurpose_batch');
      batch = null;
    }
    if (batch) await closeBatch(ctx, batch.id);
    const status = created === outputs.length ? 'completed' : created > 0 ? 'partially_completed' : 'failed';
    const firstFailure = outputs.find((o) => o.error)?.error;
    const done = await repo.finishJob(tx, job.workspace_id, job.id, {
      status,
      outputs,
      error:
        status === 'failed'
          ? {
              code: 'outputs_failed',
              message: `No output passed the platform rules: ${firstFailure?.message ?? ''}`.trim(),
            }
          : null,
      generatedBy: planned.find((p) => p.generatedBy.engine === 'llm')?.generatedBy ?? planned[0]?.generatedBy ?? null,
      approvalBatchId: batch?.id ?? null,
    });
    await appendEvent(
      tx,
      job.workspace_id,
      status === 'failed' ? 'repurpose.failed' : 'repurpose.completed',
      renderJob(done),
    );
  });
}
