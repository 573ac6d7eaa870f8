// Posting queues (docs/queues.md): create, read, list, change and delete a brand's queue, and preview its slots.
// Changing the slots or pauses moves the queued posts that are not pinned, in order, in the caller's transaction;
// adding a post to a queue is part of creating it (src/features/posts/posts.create.ts through queues.assign.ts).
import type { ServiceContext } from '../../app/context.ts';
import { AppError, notFound, validationFailed } from '../../app/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { canonicalZone } from '../../lib/timezone.ts';
import { findBrandForPosts } from '../brands/brands.repo.ts';
import { detachQueue, takenSlots } from '../posts/posts.queue.repo.ts';
import { dropClaims } from './queue-claims.repo.ts';
import type { MediaLists } from '../posts/posts.view.ts';
import { emitRescheduled, repack } from './queues.assign.ts';
import * as repo from './queues.repo.ts';
import type { QueueRow } from './queues.repo.ts';
import {
  MAX_PREVIEW_DAYS,
  type CreateQueueBody,
  type ListQueuesQuery,
  type QueueSlotsQuery,
  type UpdateQueueBody,
} from './queues.schemas.ts';
import { occurrences, type WeeklySlot } from './queues.slots.ts';
import { findConnections } from '../connections/connections.repo.ts';
import { slotsFromBestTimes } from './best-times.ts';

export interface QueuesDeps {
  clock: Clock;
  media: MediaLists;
}

const DAY_MS = 86_400_000;

export function queueJson(q: QueueRow): Record<string, unknown> {
  return {
    id: q.id,
    object: 'queue',
    brand_id: q.brand_id,
    name: q.name,
    connection_ids: q.connection_ids,
    slots: q.slots,
    pauses: q.pauses,
    min_spacing_minutes: q.min_spacing_minutes,
    gap_policy: q.gap_policy,
    created_at: q.created_at.toISOString(),
    updated_at: q.updated_at.toISOString(),
  };
}

/** Zones canonical, slots in week order and each once (a repeated one is a 422). */
function checkSlots(slots: readonly WeeklySlot[]): WeeklySlot[] {
  const issues: Array<{ platform: null; rule: string; message: string; path: string }> = [];
  const seen = new Set<string>();
  const checked = slots.map((slot, i) => {
    const zone = canonicalZone(slot.timezone);
    if (!zone) {
      issues.push({
        platform: null,
        rule: 'timezone_unknown',
        message: `${slot.timezone} is not an IANA time zone.`,
        path: `/slots/${i}/timezone`,
      });
      return slot;
    }
    const key = `${slot.day_of_week} ${slot.time} ${zone}`;
    if (seen.has(key))
      issues.push({
        platform: null,
        rule: 'duplicate_slot',
        message: `Slot ${key} is listed twice.`,
        path: `/slots/${i}`,
      });
    seen.add(key);
    return { day_of_week: slot.day_of_week, time: slot.time, timezone: zone };
  });
  if (issues.length > 0) throw validationFailed(issues);
  return checked.toSorted((a, b) => a.day_of_week - b.day_of_week || a.time.localeCompare(b.time));
}

export function createQueuesService(deps: QueuesDeps) {
  /** The queue, when the caller's key reaches its brand; else a 404, as for a queue that does not exist. */
  function visible(ctx: ServiceContext, queue: QueueRow | null | undefined): QueueRow {
    if (!queue || (ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(queue.brand_id))) throw notFound('queue');
    return queue;
  }

  async function load(ctx: ServiceContext, id: string, lock = false): Promise<QueueRow> {
    return visible(ctx, await repo.findQueue(ctx.db, ctx.workspaceId, id, lock));
  }

  /** Each restricting connection must be one of the brand's. */
  async function checkConnections(ctx: ServiceContext, brandId: string, ids: string[] | null | undefined) {
    if (!ids) return;
    const found = await findConnections(ctx.db, ctx.workspaceId, ids);
    const issues = ids
      .map((id, i) => ({ id, i, row: found.find((c) => c.id === id) }))
      .filter(({ row }) => !row || row.brand_id !== brandId)
      .map(({ id, i }) => ({
        platform: null,
        rule: 'connection_not_in_brand',
        message: `Connection ${id} is not a connection of brand ${brandId}.`,
        path: `/connection_ids/${i}`,
      }));
    if (issues.length > 0) throw validationFailed(issues);
  }

  return {
    async create(ctx: ServiceContext, body: CreateQueueBody) {
      const brandId = body.brand_id ?? ctx.brandId;
      if (brandId === null)
        throw new AppError('PUBLIC_API_BRAND_FORBIDDEN', 'This key may not use the default brand: send brand_id.');
      if (ctx.brandFromHeader && body.brand_id !== undefined && body.brand_id !== ctx.brandId)
        throw new AppError(
          'PUBLIC_API_BODY_INVALID',
          `brand_id ${body.brand_id} differs from the x-herald-brand-id header.`,
          {
            details: [{ path: '/brand_id', message: 'differs from the x-herald-brand-id header' }],
          },
        );
      const reachable = !ctx.allowedBrandIds || ctx.allowedBrandIds.includes(brandId);
      if (!reachable || !(await findBrandForPosts(ctx.db, ctx.workspaceId, brandId)))
        throw new AppError(
          'PUBLIC_API_BRAND_FORBIDDEN',
          'That brand is not in this workspace or not reachable by this key.',
        );
      await checkConnections(ctx, brandId, body.connection_ids);
      const suggested = await slotsFromBestTimes(ctx.db, ctx.workspaceId, brandId, body, deps.clock.now());
      const slots = checkSlots(suggested ?? body.slots ?? []);
      const row = await repo.insertQueue(ctx.db, ctx.workspaceId, {
        id: newId('que'),
        brandId,
        name: body.name,
        connectionIds: body.connection_ids ?? null,
        slots,
        pauses: (body.pauses ?? []).toSorted(),
        minSpacingMinutes: body.min_spacing_minutes ?? 0,
        gapPolicy: body.gap_policy ?? 'close',
      });
      return queueJson(row);
    },

    async get(ctx: ServiceContext, id: string) {
      return queueJson(await load(ctx, id));
    },

    async list(ctx: ServiceContext, query: ListQueuesQuery) {
      if (query.brand_id && ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(query.brand_id))
        throw new AppError('PUBLIC_API_BRAND_FORBIDDEN', 'That brand is not reachable by this key.');
      const brands = query.brand_id ? [query.brand_id] : ctx.allowedBrandIds;
      const rows = await repo.listQueues(ctx.db, ctx.workspaceId, brands);
      return { items: rows.map(queueJson), next_cursor: null, has_more: false };
    },

    /**
     * Fields sent replace the queue's. New slots, pauses or spacing move the queue's waiting posts that are not
     * pinned, in order, to the first slots the new rules give from now (`post.rescheduled` for each that moved).
     */
    async update(ctx: ServiceContext, id: string, patch: UpdateQueueBody) {
      const queue = await load(ctx, id, true);
      const slots = patch.slots ? checkSlots(patch.slots) : queue.slots;
      if (patch.connection_ids !== undefined) await checkConnections(ctx, queue.brand_id, patch.connection_ids);
      const rulesChanged =
        patch.slots !== undefined || patch.pauses !== undefined || patch.min_spacing_minutes !== undefined;
      const updated = await repo.updateQueue(
        ctx.db,
        ctx.workspaceId,
        id,
        {
          name: patch.name ?? queue.name,
          connectionIds: patch.connection_ids === undefined ? queue.connection_ids : patch.connection_ids,
          slots,
          pauses: patch.pauses ? patch.pauses.toSorted() : queue.pauses,
          minSpacingMinutes: patch.min_spacing_minutes ?? queue.min_spacing_minutes,
          gapPolicy: patch.gap_policy ?? queue.gap_policy,
        },
        rulesChanged,
      );
      if (rulesChanged) {
        // Claimed slots may not be slots any more: their adds find their claims gone and take a slot under the lock.
        await dropClaims(ctx.db, ctx.workspaceId, id);
        await emitRescheduled(ctx, deps.media, await repack(ctx, updated, deps.clock.now()));
      }
      return queueJson(updated);
    },

    /** The queue goes; its posts keep their times, outside any queue. */
    async remove(ctx: ServiceContext, id: string) {
      await load(ctx, id, true);
      // Its claims first: an add writing its post at one is waited for, so the detach that follows sees the post.
      await dropClaims(ctx.db, ctx.workspaceId, id);
      await detachQueue(ctx.db, ctx.workspaceId, id);
      await repo.deleteQueue(ctx.db, ctx.workspaceId, id);
      return { id, object: 'queue', deleted: true };
    },

    /** The queue's slots in [from, to), taken and free, at most `limit` (the preview). */
    async slots(ctx: ServiceContext, id: string, query: QueueSlotsQuery) {
      // Read often: the slots come from this process's copy when the queue has not changed since.
      const queue = visible(ctx, (await repo.findQueuesReusingSlots(ctx.db, ctx.workspaceId, { id }))[0]);
      const from = query.from ? new Date(query.from) : deps.clock.now();
      const to = query.to ? new Date(query.to) : new Date(from.getTime() + 7 * DAY_MS);
      if (!(to > from) || to.getTime() - from.getTime() > MAX_PREVIEW_DAYS * DAY_MS)
        throw new AppError(
          'PUBLIC_API_QUERY_INVALID',
          `to must be after from, and at most ${MAX_PREVIEW_DAYS} days after it.`,
          {
            details: [{ path: '/to', message: `after from, within ${MAX_PREVIEW_DAYS} days` }],
          },
        );
      const limit = query.limit ?? 200;
      const found = occurrences({ slots: queue.slots, pauses: queue.pauses }, from, to, limit + 1);
      const page = found.slice(0, limit);
      const holders =
        page.length > 0 ? await takenSlots(ctx.db, ctx.workspaceId, id, page[0]!.at, page.at(-1)!.at) : [];
      const byTime = new Map(holders.map((h) => [h.at_ms, h.id]));
      const hasMore = found.length > limit;
      return {
        object: 'queue_slots',
        queue_id: id,
        from: from.toISOString(),
        to: to.toISOString(),
        slots: page.map(({ at, slot }) => {
          const postId = byTime.get(at.getTime()) ?? null;
          return { at: at.toISOString(), ...slot, status: postId ? 'taken' : 'free', post_id: postId };
        }),
        has_more: hasMore,
        next_from: hasMore ? found[limit]!.at.toISOString() : null,
      };
    },
  };
}

export type QueuesService = ReturnType<typeof createQueuesService>;
