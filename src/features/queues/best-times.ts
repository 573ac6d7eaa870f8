// Best-time suggestions (docs/queues.md "Best times"): weekly slots proposed from the account's own engagement —
// the analytics rollup grouped by weekday and hour in the queue's zone — and, where that history is too thin,
// conventional defaults that say so (`source: "default"`, no score, no confidence). Nothing here makes up a figure:
// a score and a confidence exist only for a weekday-hour with at least the minimum sample.
import type { ServiceContext } from '../../app/context.ts';
import type { Queryable } from '../../db/pool.ts';
import { notFound, validationFailed } from '../../app/errors.ts';
import { knownZone, zoneRefusedByDatabase } from '../../app/timezone.ts';
import { brandConnectionIds, hourGroups, type HourGroup } from './best-times.repo.ts';
import { findQueue } from './queues.repo.ts';

/**
 * Posts a weekday-hour needs before its average is trusted, as the analytics `best_time` insight's slot minimum
 * (3): below it one lucky post would decide a slot. A request may ask for more (`min_sample`), never fewer than 2,
 * since a spread — and so a confidence — needs two values.
 */
export const BEST_TIMES_MIN_SAMPLE = 3;
export const BEST_TIMES_MIN_SAMPLE_FLOOR = 2;
export const BEST_TIMES_MIN_SAMPLE_MAX = 1000;
/** Slots answered by default, and at most (a week of hourly slots is 168; 50 is more than any queue uses). */
export const BEST_TIMES_DEFAULT_COUNT = 7;
export const BEST_TIMES_MAX_COUNT = 50;
/** How far back posts count: the analytics insights' default period, long enough for a few posts per slot. */
export const BEST_TIMES_LOOKBACK_DAYS = 90;
/**
 * Posts younger than this are left out: their totals are still growing (docs/analytics.md "Sync": most of a
 * post's reach arrives in its first hours; the day-one reading is the first of its tail), so they would pull their
 * slot down against settled posts.
 */
export const BEST_TIMES_SETTLE_HOURS = 24;

/**
 * The fallback where history is too thin: Monday to Friday at 09:00, 12:00 and 17:00 in the queue's zone (start of
 * the working day, midday, end of the working day). A convention, not a measurement: Herald has no evidence that
 * these hours do better on any platform, and none that would tell platforms apart, so every platform gets the same
 * list and no score. Ordered so that the first five cover each weekday once.
 */
export const DEFAULT_SLOTS: ReadonlyArray<{ dow: number; hour: number }> = [9, 12, 17].flatMap((hour) =>
  [1, 2, 3, 4, 5].map((dow) => ({ dow, hour })),
);

export type SlotSource = 'history' | 'default';

export interface SuggestedSlot {
  /** 0 = Sunday … 6 = Saturday, in `timezone`. */
  day_of_week: number;
  /** `HH:mm`, the start of the hour. */
  time: string;
  timezone: string;
  /** Mean engagement index of the slot's posts (1 = the accounts' own average); null for a default. */
  score: number | null;
  /** 1 − relative standard error of the score, in [0, 1]; null for a default. */
  confidence: number | null;
  /** Posts measured in this weekday-hour (for a default, how few there were). */
  sample_size: number;
  source: SlotSource;
}

export interface SuggestionBasis {
  measure: 'engagement_index';
  brand_id: string;
  /** The connections whose posts were read; null: every post of the brand. */
  connection_ids: string[] | null;
  timezone: string;
  window: { from: string; to: string };
  min_sample: number;
  /** Published targets with a known engagement index in the window. */
  samples: number;
  /** Of them, measured by engagement rate (the others by engagements per post). */
  samples_by_rate: number;
  /** Weekday-hours with at least `min_sample` posts. */
  slots_measured: number;
  history: number;
  defaults: number;
}

export interface Suggestion {
  slots: SuggestedSlot[];
  basis: SuggestionBasis;
}

export interface SuggestInput {
  brandId: string;
  /** The queue's connections (or a request's subset of them); null: the whole brand. */
  connectionIds: readonly string[] | null;
  /** An IANA zone, already checked by the caller. */
  timezone: string;
  count?: number;
  minSample?: number;
  now: Date;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const timeOf = (hour: number) => `${String(hour).padStart(2, '0')}:00`;
/** Monday first, so ties fall to the earlier slot of a working week whatever order rows came in. */
const weekOrder = (g: { dow: number; hour: number }) => ((g.dow + 6) % 7) * 24 + g.hour;
const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;
/** The score as answered (3 decimals), also what is compared with the average: no float's last bit decides. */
const scoreOf = (g: Pick<HourGroup, 'mean'>) => round(g.mean, 3);

/**
 * 1 − (s ÷ √n) ÷ m, clamped to [0, 1]: how tight the slot's mean index m is, from its n posts and their sample
 * standard deviation s. 1 when every post of the slot did alike; 0 when the mean's standard error is as large as
 * the mean itself.
 */
export function confidenceOf(g: Pick<HourGroup, 'n' | 'mean' | 'sd'>): number {
  if (g.mean <= 0) return 0;
  const relativeError = g.sd / Math.sqrt(g.n) / g.mean;
  return round(Math.min(1, Math.max(0, 1 - relativeError)), 2);
}

/**
 * The slots to propose from the groups, best first: weekday-hours with at least `minSample` posts whose mean
 * index is at least the accounts' average (a slot measured below it is evidence against it), by score, then
 * confidence, then sample; then defaults, skipping those already proposed or measured below average, up to `count`.
 */
export function rankSlots(
  groups: readonly HourGroup[],
  opts: { count: number; minSample: number; timezone: string },
): SuggestedSlot[] {
  const key = (g: { dow: number; hour: number }) => g.dow * 24 + g.hour;
  const byKey = new Map(groups.map((g) => [key(g), g]));
  const history = groups
    .filter((g) => g.n >= opts.minSample && scoreOf(g) >= 1)
    .map((g) => ({ g, confidence: confidenceOf(g) }))
    .sort(
      (a, b) =>
        scoreOf(b.g) - scoreOf(a.g) || b.confidence - a.confidence || b.g.n - a.g.n || weekOrder(a.g) - weekOrder(b.g),
    )
    .slice(0, opts.count)
    .map(({ g, confidence }): SuggestedSlot => ({
      day_of_week: g.dow,
      time: timeOf(g.hour),
      timezone: opts.timezone,
      score: scoreOf(g),
      confidence,
      sample_size: g.n,
      source: 'history',
    }));
  const taken = new Set(history.map((s) => s.day_of_week * 24 + Number(s.time.slice(0, 2))));
  const defaults = DEFAULT_SLOTS.filter((d) => {
    const measured = byKey.get(key(d));
    return !taken.has(key(d)) && !(measured && measured.n >= opts.minSample && scoreOf(measured) < 1);
  })
    .slice(0, Math.max(0, opts.count - history.length))
    .map((d): SuggestedSlot => ({
      day_of_week: d.dow,
      time: timeOf(d.hour),
      timezone: opts.timezone,
      score: null,
      confidence: null,
      sample_size: byKey.get(key(d))?.n ?? 0,
      source: 'default',
    }));
  return [...history, ...defaults];
}

/** Suggested weekly slots for a brand (or some of its connections) in a zone, with what they rest on. */
export async function suggestSlots(db: Queryable, workspaceId: string, input: SuggestInput): Promise<Suggestion> {
  const count = input.count ?? BEST_TIMES_DEFAULT_COUNT;
  const minSample = input.minSample ?? BEST_TIMES_MIN_SAMPLE;
  const to = new Date(input.now.getTime() - BEST_TIMES_SETTLE_HOURS * HOUR_MS);
  const from = new Date(to.getTime() - BEST_TIMES_LOOKBACK_DAYS * DAY_MS);
  const connectionIds = input.connectionIds ? [...new Set(input.connectionIds)] : null;
  const groups = await hourGroups(db, workspaceId, {
    brandId: input.brandId,
    connectionIds,
    timezone: input.timezone,
    from,
    to,
  }).catch((error: unknown) => {
    // A zone the engine's data knows but PostgreSQL's does not (their releases differ): the caller's fault to fix.
    throw zoneRefusedByDatabase(error, input.timezone, '/timezone');
  });
  const slots = rankSlots(groups, { count, minSample, timezone: input.timezone });
  const history = slots.filter((s) => s.source === 'history').length;
  return {
    slots,
    basis: {
      measure: 'engagement_index',
      brand_id: input.brandId,
      connection_ids: connectionIds,
      timezone: input.timezone,
      window: { from: from.toISOString(), to: to.toISOString() },
      min_sample: minSample,
      samples: groups.reduce((sum, g) => sum + g.n, 0),
      samples_by_rate: groups.reduce((sum, g) => sum + g.byRate, 0),
      slots_measured: groups.filter((g) => g.n >= minSample).length,
      history,
      defaults: slots.length - history,
    },
  };
}

/**
 * The connections a request may narrow to: within the queue's own when it has some, else the brand's; any other
 * id is a 422 naming it. Undefined or empty: the queue's restriction as it is.
 */
export async function narrowConnections(
  db: Queryable,
  workspaceId: string,
  scope: { brandId: string; queueConnectionIds: readonly string[] | null },
  requested: readonly string[] | undefined,
): Promise<readonly string[] | null> {
  if (!requested?.length) return scope.queueConnectionIds;
  const allowed = scope.queueConnectionIds
    ? new Set(scope.queueConnectionIds)
    : new Set(await brandConnectionIds(db, workspaceId, scope.brandId, requested));
  const details = requested.flatMap((id, i) =>
    allowed.has(id)
      ? []
      : [
          {
            path: `/connection_ids/${i}`,
            rule: 'connection_not_in_queue',
            message: scope.queueConnectionIds
              ? `Connection ${id} is not one of this queue's connections.`
              : `Connection ${id} is not a connection of this queue's brand.`,
          },
        ],
  );
  if (details.length) throw validationFailed(details);
  return requested;
}

/**
 * The zone a queue's suggestions are grouped in: the request's, else the one most of its slots use (the first
 * slot's on a tie). A queue without slots has no zone of its own, so the request must name one.
 */
function zoneFor(requested: string | undefined, slotZones: readonly string[]): string {
  if (requested !== undefined) {
    return knownZone(requested, '/timezone');
  }
  const counts = new Map<string, number>();
  for (const z of slotZones) counts.set(z, (counts.get(z) ?? 0) + 1);
  let best: string | undefined;
  for (const [zone, n] of counts) if (best === undefined || n > counts.get(best)!) best = zone;
  if (best === undefined)
    throw validationFailed([
      {
        path: '/timezone',
        rule: 'timezone_required',
        message: 'There are no slots to take a time zone from: name one in `timezone`.',
      },
    ]);
  return best;
}

/** POST /v1/queues/{id}/suggest-slots: suggestions for a queue of the caller's workspace (and brands). */
export async function suggestForQueue(
  ctx: ServiceContext,
  queueId: string,
  body: { count?: number; connection_ids?: string[]; min_sample?: number; timezone?: string },
  now: Date,
): Promise<Suggestion> {
  const queue = await findQueue(ctx.db, ctx.workspaceId, queueId);
  if (!queue || (ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(queue.brand_id))) throw notFound('queue');
  const timezone = zoneFor(
    body.timezone,
    queue.slots.map((s) => s.timezone),
  );
  const connectionIds = await narrowConnections(
    ctx.db,
    ctx.workspaceId,
    { brandId: queue.brand_id, queueConnectionIds: queue.connection_ids },
    body.connection_ids,
  );
  return suggestSlots(ctx.db, ctx.workspaceId, {
    brandId: queue.brand_id,
    connectionIds,
    timezone,
    count: body.count,
    minSample: body.min_sample,
    now,
  });
}

/** What queue creation sends that decides where its slots come from. */
export interface QueueSlotsSource {
  slots?: ReadonlyArray<{ day_of_week: number; time: string; timezone: string }>;
  queue_slots_from?: 'best_times';
  /** The zone of best-time slots. */
  timezone?: string;
  connection_ids?: string[] | null;
}

/**
 * POST /v1/queues with `queue_slots_from: "best_times"`: the new queue's slots are the suggestions (default count)
 * for its brand and connections, in `timezone`. Null when the body gives `slots` itself; a body with both, or
 * neither, is a 422.
 */
export async function slotsFromBestTimes(
  db: Queryable,
  workspaceId: string,
  brandId: string,
  body: QueueSlotsSource,
  now: Date,
): Promise<Array<{ day_of_week: number; time: string; timezone: string }> | null> {
  if (body.queue_slots_from === undefined) {
    if (body.slots !== undefined) return null;
    throw validationFailed([
      { path: '/slots', rule: 'slots_required', message: 'Send `slots`, or `queue_slots_from: "best_times"`.' },
    ]);
  }
  if (body.slots !== undefined)
    throw validationFailed([
      {
        path: '/queue_slots_from',
        rule: 'slots_or_best_times',
        message: 'Send either `slots` or `queue_slots_from`, not both.',
      },
    ]);
  const timezone = zoneFor(body.timezone, []);
  const { slots } = await suggestSlots(db, workspaceId, {
    brandId,
    connectionIds: body.connection_ids ?? null,
    timezone,
    now,
  });
  return slots.map((s) => ({ day_of_week: s.day_of_week, time: s.time, timezone: s.timezone }));
}
