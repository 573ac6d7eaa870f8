// Which slot a post takes in a queue, and what happens to the queue's posts when a slot frees up or the slots change
// (docs/queues.md). Every change of a queue's posts takes the queue's row lock first (then the posts' rows), inside
// the caller's transaction: adds, moves and releases of one queue happen one at a time, so no slot is given twice
// and none is skipped, and the lock order (queue, then posts) leaves no room for a deadlock. Adds without a spacing
// take their slots from claims instead (queues.claims.ts), which every slot search here counts as taken.
import type { ServiceContext } from '../../app/context.ts';
import { notFound, validationFailed } from '../../app/errors.ts';
import { queuePublishJobsAt } from '../../app/publish-queue.ts';
import type { Queryable } from '../../db/pool.ts';
import {
  busyTimes,
  heldSlots,
  lastTakenSlot,
  lockQueueOfPost,
  moveToSlots,
  placeInQueue,
  releaseSlots,
  waitingPosts,
} from '../posts/posts.queue.repo.ts';
import type { NewPost, PostRow, TargetRow } from '../posts/posts.repo.ts';
import {
  createClaimedPostRows,
  createPostRows,
  type NewTargets,
  type TargetOptions,
} from '../posts/posts.create.repo.ts';
import { renderPosts, type MediaLists } from '../posts/posts.view.ts';
import { appendEvents } from '../events/outbox.ts';
import { findQueue, findQueuesReusingSlots, setFillHint, type QueueRow } from './queues.repo.ts';
import type { RuleIssue } from '../posts/posts.rules.ts';
import { occurrences, scanWindows } from './queues.slots.ts';
import { reapClaims } from './queue-claims.repo.ts';

/** What an add asks the claimer (src/features/queues/queues.claims.ts) for. */
export interface ClaimRequest {
  workspaceId: string;
  queueId: string;
  position: QueuePosition;
  now: Date;
  /** The queue's row as the add read it (unlocked): where the one-statement claim computes its candidates from. */
  queue: QueueRow;
}

/** A slot claimed for one add; null: the claim cannot answer (the add takes the locked path). */
export type Claim = { slot: Date; claimId: string } | null;

export type QueueClaims = (request: ClaimRequest) => Promise<Claim>;

/** How far ahead a queue looks for a free slot before it says it is full. */
export const HORIZON_DAYS = 730;
const DAY_MS = 86_400_000;

export type QueuePosition = 'next' | 'last';

interface Wanted {
  /** The connections of the post's targets: what the minimum spacing is kept on. */
  connectionIds: readonly string[];
}

const full = (queue: QueueRow) =>
  validationFailed([
    {
      platform: null,
      rule: queue.slots.length === 0 ? 'queue_has_no_slots' : 'queue_full',
      message:
        queue.slots.length === 0
          ? `Queue ${queue.id} has no time slots.`
          : `Queue ${queue.id} has no free slot within ${HORIZON_DAYS} days (its slots, pauses and spacing).`,
      path: '/queue',
    },
  ]);

/**
 * Slots for these posts, in order, each the earliest free one from `start` (and after the previous post's) that keeps
 * the minimum spacing on the post's connections; posts in `moving` do not count as busy (they are the ones placed).
 * `firstFree`: the first slot nobody holds, whether or not spacing let a post take it.
 */
export async function findSlots(
  db: Queryable,
  workspaceId: string,
  queue: QueueRow,
  start: Date,
  wanted: readonly Wanted[],
  moving: ReadonlySet<string>,
): Promise<{ at: Date[]; firstFree: Date | null }> {
  const rules = { slots: queue.slots, pauses: queue.pauses };
  const spacing = queue.min_spacing_minutes * 60_000;
  const connections = [...new Set(wanted.flatMap((w) => w.connectionIds))];
  const placed: Array<{ at: number; connectionIds: readonly string[] }> = [];
  const at: Date[] = [];
  let firstFree: Date | null = null;
  if (queue.slots.length === 0 || wanted.length === 0) {
    if (wanted.length === 0) return { at, firstFree };
    throw full(queue);
  }
  for (const [from, to] of scanWindows(start, new Date(start.getTime() + HORIZON_DAYS * DAY_MS))) {
    const window = occurrences(rules, from, to);
    if (window.length === 0) continue;
    const first = window[0]!.at;
    const last = window.at(-1)!.at;
    // Slots held by posts and by claims of adds still writing theirs (queues.claims.ts).
    const taken = new Set((await heldSlots(db, workspaceId, queue.id, first, last)).map((at) => at.getTime()));
    const busy =
      spacing > 0 && connections.length > 0
        ? (
            await busyTimes(
              db,
              workspaceId,
              connections,
              new Date(first.getTime() - spacing),
              new Date(last.getTime() + spacing),
            )
          ).filter((b) => !moving.has(b.id))
        : [];
    for (const { at: slot } of window) {
      const time = slot.getTime();
      if (taken.has(time)) continue;
      firstFree ??= slot;
      const post = wanted[at.length]!;
      if (spacing > 0) {
        const near = (other: number) => Math.abs(other - time) < spacing;
        const clash =
          busy.some((b) => near(b.at.getTime()) && post.connectionIds.includes(b.connection_id)) ||
          placed.some((p) => near(p.at) && p.connectionIds.some((c) => post.connectionIds.includes(c)));
        if (clash) continue;
      }
      at.push(slot);
      placed.push({ at: time, connectionIds: post.connectionIds });
      taken.add(time);
      if (at.length === wanted.length) return { at, firstFree };
    }
  }
  throw full(queue);
}

/** What a new post asks of a queue (`POST /v1/posts`). */
export interface QueueRequest {
  queue?: QueuePosition;
  queue_id?: string;
  schedule_at?: string;
  publish_now?: boolean;
}

const issue = (rule: string, message: string, path: string): RuleIssue => ({ platform: null, rule, message, path });

/**
 * Which queue a new post joins, and whether it may (read before any lock, so `POST /v1/posts/validate` says the same):
 * the brand's one queue or `queue_id`, and the queue's connection restriction. Null queue: the post asks for none.
 */
export async function resolveQueue(
  db: Queryable,
  workspaceId: string,
  brandId: string,
  request: QueueRequest,
  connectionIds: ReadonlyArray<string | null>,
): Promise<{ queue: QueueRow | null; issues: RuleIssue[] }> {
  if (request.queue === undefined) {
    const stray = request.queue_id !== undefined;
    return {
      queue: null,
      issues: stray ? [issue('queue_id_without_queue', 'queue_id needs queue ("next" or "last").', '/queue_id')] : [],
    };
  }
  if (request.schedule_at !== undefined || request.publish_now === true)
    return {
      queue: null,
      issues: [
        issue(
          'queue_with_schedule',
          'Send either queue or schedule_at/publish_now: a queued post takes its time from its slot.',
          request.schedule_at !== undefined ? '/schedule_at' : '/publish_now',
        ),
      ],
    };
  let queue: QueueRow | null;
  if (request.queue_id !== undefined) {
    queue = (await findQueuesReusingSlots(db, workspaceId, { id: request.queue_id }))[0] ?? null;
    if (!queue || queue.brand_id !== brandId)
      return {
        queue: null,
        issues: [issue('queue_not_found', `No queue ${request.queue_id} for brand ${brandId}.`, '/queue_id')],
      };
  } else {
    const queues = await findQueuesReusingSlots(db, workspaceId, { brandId, limit: 2 });
    if (queues.length !== 1)
      return {
        queue: null,
        issues: [
          queues.length === 0
            ? issue('brand_has_no_queue', `Brand ${brandId} has no queue: create one with POST /v1/queues.`, '/queue')
            : issue('queue_id_required', `Brand ${brandId} has several queues: name one with queue_id.`, '/queue_id'),
        ],
      };
    queue = queues[0]!;
  }
  const allowed = queue.connection_ids;
  const outside = allowed ? connectionIds.filter((c) => c === null || !allowed.includes(c)) : [];
  const issues = outside.map((c) =>
    issue(
      'connection_not_in_queue',
      `Queue ${queue.id} takes posts for connections ${allowed!.join(', ')} only; ${c ?? 'a target without a connection'} is not one of them.`,
      '/connection_ids',
    ),
  );
  return { queue, issues };
}

/**
 * The slot a new post takes (`next`: the earliest free one from now; `last`: the first after the latest taken one),
 * found by scanning under the queue's row lock, which the caller's transaction holds until it commits. `unlocked` is
 * the row as read before the lock (resolveQueue). `place` records the post in the slot once it exists.
 */
export async function takeSlot(
  db: Queryable,
  workspaceId: string,
  unlocked: QueueRow,
  position: QueuePosition,
  wanted: Wanted,
  now: Date,
): Promise<{ at: Date; place: (postId: string) => Promise<void> }> {
  const place = (slot: Date, hint?: Date) => async (postId: string) => {
    await placeInQueue(db, workspaceId, postId, unlocked.id, slot);
    if (hint) await setFillHint(db, workspaceId, unlocked.id, hint);
  };
  const queue = await findQueue(db, workspaceId, unlocked.id, true);
  if (!queue) throw notFound('queue');
  // Under this lock no add is writing at a claimed slot: an expired claim is abandoned, its slot free again.
  const reaped = await reapClaims(db, workspaceId, queue.id, false);
  const from = queue.fill_hint && reaped && reaped < queue.fill_hint ? reaped : queue.fill_hint;
  let start = now;
  if (position === 'next' && from && from > now) start = from;
  if (position === 'last') {
    const last = await lastTakenSlot(db, workspaceId, queue.id);
    if (last && last >= now) start = new Date(last.getTime() + 1);
  }
  const { at, firstFree } = await findSlots(db, workspaceId, queue, start, [wanted], new Set());
  const slot = at[0]!;
  // Every slot before the first free one is taken; the one just given is taken too.
  const hint =
    position === 'next'
      ? firstFree && firstFree.getTime() !== slot.getTime()
        ? firstFree
        : new Date(slot.getTime() + 1)
      : undefined;
  return { at: slot, place: place(slot, hint) };
}

/**
 * A queued post's rows, at its slot: without a spacing, at the slot `claims` gives it (a claim transaction shared
 * with the adds to the queue arriving with it), written with its claim's deletion in the caller's transaction; when
 * the claim cannot answer (or is gone by then), the slot found by takeSlot under the queue's lock, then the post
 * created the ordinary way and placed. `p.scheduleAt` and `t.jobsAt` stand for the slot (only whether there are jobs
 * is read from them).
 */
export async function createQueuedPost(
  ctx: ServiceContext,
  queue: QueueRow,
  position: QueuePosition,
  p: NewPost,
  targets: NewTargets,
  t: TargetOptions,
  now: Date,
  claims: QueueClaims | undefined,
): Promise<{ post: PostRow; targets: TargetRow[] }> {
  const wanted = { connectionIds: [...new Set(targets.flatMap((x) => (x.connectionId ? [x.connectionId] : [])))] };
  const spaced = queue.min_spacing_minutes > 0 && wanted.connectionIds.length > 0;
  const claim =
    claims && !spaced && queue.slots.length > 0
      ? await claims({ workspaceId: ctx.workspaceId, queueId: queue.id, position, now, queue })
      : null;
  const made = claim ? await createClaimedPostRows(ctx.db, p, targets, t, { queueId: queue.id, ...claim }) : null;
  if (made) return made;
  const slot = await takeSlot(ctx.db, ctx.workspaceId, queue, position, wanted, now);
  const created = await createPostRows(ctx.db, { ...p, scheduleAt: slot.at }, targets, {
    ...t,
    jobsAt: t.jobsAt ? slot.at : null,
  });
  await slot.place(created.post.id);
  return { ...created, post: { ...created.post, queue_id: queue.id, queue_slot: slot.at } };
}

/**
 * The queue's posts holding a slot from `from` on (scheduled or awaiting approval) take, in order, the earliest
 * slots the queue's current rules give from there: after its slots changed (from now), or to close a gap. Their
 * publish jobs follow them. Returns the posts whose time changed. The caller holds the queue's row lock.
 */
export async function repack(ctx: ServiceContext, queue: QueueRow, from: Date): Promise<PostRow[]> {
  const waiting = await waitingPosts(ctx.db, ctx.workspaceId, queue.id, from);
  if (waiting.length === 0) return [];
  const ids = waiting.map((w) => w.id);
  await releaseSlots(ctx.db, ctx.workspaceId, ids);
  const { at } = await findSlots(
    ctx.db,
    ctx.workspaceId,
    queue,
    from,
    waiting.map((w) => ({ connectionIds: w.connection_ids })),
    new Set(ids),
  );
  const changed = new Set(waiting.filter((w, i) => w.queue_slot.getTime() !== at[i]!.getTime()).map((w) => w.id));
  const moved = await moveToSlots(
    ctx.db,
    ctx.workspaceId,
    waiting.map((w, i) => ({ id: w.id, at: at[i]! })),
  );
  await queuePublishJobsAt(
    ctx.db,
    moved.targets.filter((t) => changed.has(t.postId)).map((t) => ({ targetId: t.id, runAt: t.at })),
  );
  return moved.posts.filter((p) => changed.has(p.id));
}

/**
 * A queued post leaves its slot (cancelled, deleted, published now, or given its own time): the queue closes the
 * gap (its later posts move up) or leaves it, as its `gap_policy` says. Call it first in the transaction, before
 * the post's own row is locked. Returns the other posts that moved (for their `post.rescheduled` events).
 */
export async function leaveSlot(ctx: ServiceContext, postId: string, now: Date): Promise<PostRow[]> {
  const held = await lockQueueOfPost(ctx.db, ctx.workspaceId, postId);
  if (!held) return [];
  await releaseSlots(ctx.db, ctx.workspaceId, [postId]);
  if (held.slot < now) return [];
  const queue = (await findQueue(ctx.db, ctx.workspaceId, held.queueId))!;
  if (!queue.fill_hint || held.slot < queue.fill_hint) await setFillHint(ctx.db, ctx.workspaceId, queue.id, held.slot);
  return queue.gap_policy === 'close' ? repack(ctx, queue, held.slot) : [];
}

/** `post.rescheduled` for each post a change of its queue moved, with the post as it is now. */
export async function emitRescheduled(ctx: ServiceContext, media: MediaLists, moved: PostRow[]): Promise<void> {
  if (moved.length === 0) return;
  const views = await renderPosts(ctx.db, ctx.workspaceId, moved, media);
  await appendEvents(
    ctx.db,
    views.map((data) => ({ workspaceId: ctx.workspaceId, type: 'post.rescheduled' as const, data })),
  );
}

/** leaveSlot, then the events of the posts that moved up: what posts' cancel, delete, publish and edit call first. */
export async function leaveQueue(ctx: ServiceContext, media: MediaLists, postId: string, now: Date): Promise<void> {
  await emitRescheduled(ctx, media, await leaveSlot(ctx, postId, now));
}
