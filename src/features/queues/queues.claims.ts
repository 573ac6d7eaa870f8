// Slots for adds to a queue, given by group commit (docs/queues.md "What the lock costs"): the adds to one queue
// that arrive together get their slots from ONE short transaction on a pool of its own, which locks the queue's row,
// picks that many free slots in order and records a claim for each (queue_claims, migration 0035). Each add's own
// transaction then writes its post at its slot and deletes its claim (posts_create_claimed), so adds to one queue
// commit in parallel and share their flushes instead of holding the queue's lock until their commits.
import { withTransaction, type Pool } from '../../db/pool.ts';
import { newId } from '../../lib/ids.ts';
import { batcher } from '../../lib/batcher.ts';
import { lastTakenSlot } from '../posts/posts.queue.repo.ts';
import { insertClaims, reapClaims, takeClaims } from './queue-claims.repo.ts';
import { findSlots, HORIZON_DAYS, type Claim, type ClaimRequest, type QueueClaims } from './queues.assign.ts';
import { lockQueueForClaims, type QueueRow } from './queues.repo.ts';
import { occurrences, scanWindows } from './queues.slots.ts';

/** Queues whose batcher and last fill hint a process keeps (idle ones beyond this are forgotten, oldest first). */
const KEPT_QUEUES = 1_000;
/** Most adds given slots by one claim transaction. */
const MAX_BATCH = 256;
/** How long a claim transaction waits for the queue's row before its adds take the locked path instead. */
const LOCK_TIMEOUT_MS = 1_000;
/**
 * Candidates beyond one per add handed to queue_claims_take: room for slots others hold past the hint (another
 * process's claims, posts a `last` add or an edit put there). Each candidate costs about 10 µs to compute and send,
 * per batch; when more are held than this, the batch takes the locked path once, which moves the hint past them.
 */
const SPARE_CANDIDATES = 32;
const DAY_MS = 86_400_000;

/** The queue's next `count` slots from `start`, consecutive (within the horizon). */
function nextSlots(queue: QueueRow, start: Date, count: number): Date[] {
  const rules = { slots: queue.slots, pauses: queue.pauses };
  const found: Date[] = [];
  for (const [from, to] of scanWindows(start, new Date(start.getTime() + HORIZON_DAYS * DAY_MS))) {
    for (const { at } of occurrences(rules, from, to, count - found.length)) found.push(at);
    if (found.length >= count) break;
  }
  return found;
}

/**
 * Claims for a batch of `next` adds in one statement (queue_claims_take), from candidates computed from `hint` (the
 * last hint this process saw for the queue, else the row's as read) and the newest row the adds read; null when they
 * cannot answer. Returns the claims and the queue's new fill hint.
 */
async function claimInOneStatement(
  pool: Pool,
  requests: readonly ClaimRequest[],
  now: Date,
  hint: Date | null,
): Promise<{ claims: Claim[]; hint: Date } | null> {
  if (requests.some((r) => r.position !== 'next')) return null;
  const queue = requests.map((r) => r.queue).reduce((a, b) => (b.updated_at > a.updated_at ? b : a));
  if (queue.min_spacing_minutes > 0 || queue.slots.length === 0) return null;
  const known = hint ?? queue.fill_hint;
  const start = known && known > now ? known : now;
  const candidates = nextSlots(queue, start, requests.length + SPARE_CANDIDATES);
  if (candidates.length < requests.length) return null;
  const claimIds = requests.map(() => newId('qcl'));
  try {
    const slots = await takeClaims(
      pool,
      queue.workspace_id,
      queue.id,
      { updatedAt: queue.updated_at, now, start, candidates, claimIds },
      LOCK_TIMEOUT_MS,
    );
    if (!slots) return null;
    return {
      claims: slots.map((slot, i) => ({ slot, claimId: claimIds[i]! })),
      hint: new Date(slots.at(-1)!.getTime() + 1),
    };
  } catch {
    return null;
  }
}

/**
 * Claims slots for adds to one queue (all of `requests` name it), in one transaction: `next` adds take the earliest
 * free slots from the queue's fill hint in arrival order, then `last` adds the first ones after the latest slot held.
 * A slot is free when no post holds it and no claim does (claims past their expiry are deleted first, their slots
 * free again). Null for every add when the queue has a spacing (its slots depend on each post's connections), is
 * gone, or the transaction fails (a lock not had in time, a queue without a free slot): they take the locked path,
 * which says why when it fails too.
 */
export async function claimSlots(pool: Pool, requests: ReadonlyArray<Omit<ClaimRequest, 'queue'>>): Promise<Claim[]> {
  return (await claimLocked(pool, requests)).claims;
}

/** claimSlots, with the queue's fill hint it left (null: not known). */
async function claimLocked(
  pool: Pool,
  requests: ReadonlyArray<Omit<ClaimRequest, 'queue'>>,
): Promise<{ claims: Claim[]; hint: Date | null }> {
  const none = requests.map(() => null);
  const { workspaceId, queueId } = requests[0]!;
  const now = new Date(Math.max(...requests.map((r) => r.now.getTime())));
  try {
    return await withTransaction(pool, async (tx) => {
      const queue = await lockQueueForClaims(tx, workspaceId, queueId, LOCK_TIMEOUT_MS);
      if (!queue || queue.min_spacing_minutes > 0 || queue.slots.length === 0) return { claims: none, hint: null };
      const reaped = await reapClaims(tx, workspaceId, queueId, true);
      const hint = queue.fill_hint && reaped && reaped < queue.fill_hint ? reaped : queue.fill_hint;
      const nexts = requests.filter((r) => r.position === 'next').length;
      const lasts = requests.length - nexts;
      const wanted = (n: number) => Array.from({ length: n }, () => ({ connectionIds: [] as string[] }));
      const moving = new Set<string>();
      const nextAt =
        nexts > 0
          ? (await findSlots(tx, workspaceId, queue, hint && hint > now ? hint : now, wanted(nexts), moving)).at
          : [];
      let lastAt: Date[] = [];
      if (lasts > 0) {
        const held = await lastTakenSlot(tx, workspaceId, queueId);
        const after = [held, nextAt.at(-1)].filter((d): d is Date => !!d && d >= now);
        const start = after.length > 0 ? new Date(Math.max(...after.map((d) => d.getTime())) + 1) : now;
        lastAt = (await findSlots(tx, workspaceId, queue, start, wanted(lasts), moving)).at;
      }
      const claims = requests.map((r) => ({
        slot: (r.position === 'next' ? nextAt : lastAt).shift()!,
        claimId: newId('qcl'),
      }));
      // The `next` adds took the first free slots from the hint, one after another: every slot up to the last of
      // them is taken now.
      const lastNext = claims.filter((_, i) => requests[i]!.position === 'next').at(-1);
      const after = lastNext ? new Date(lastNext.slot.getTime() + 1) : null;
      await insertClaims(tx, workspaceId, queueId, claims, after);
      return { claims, hint: after };
    });
  } catch {
    return { claims: none, hint: null };
  }
}

/**
 * The process's claimer: one batcher per queue (one claim transaction at a time per queue: they would wait on the
 * queue's row anyway), with the queue's fill hint after its last batch, so the next batch's candidates start where
 * the queue is. A batch is claimed in one statement when it can be, else from the locked row (claimSlots). Idle
 * queues beyond KEPT_QUEUES are forgotten, oldest first.
 */
export function createQueueClaims(pool: Pool): QueueClaims {
  interface Entry {
    claim: (r: ClaimRequest) => Promise<Claim>;
    waiting: number;
    /** The queue's fill hint after this process's last claim (null: not known, read the adds' row). */
    hint: Date | null;
  }
  const byQueue = new Map<string, Entry>();
  const run = async (entry: Entry, items: ClaimRequest[]): Promise<Claim[]> => {
    const now = new Date(Math.max(...items.map((r) => r.now.getTime())));
    const fast = await claimInOneStatement(pool, items, now, entry.hint);
    const done = fast ?? (await claimLocked(pool, items));
    entry.hint = done.hint;
    return done.claims;
  };
  const forgetIdle = () => {
    for (const [key, entry] of byQueue) {
      if (byQueue.size <= KEPT_QUEUES) return;
      if (entry.waiting === 0) byQueue.delete(key);
    }
  };
  return async (request) => {
    const key = `${request.workspaceId} ${request.queueId}`;
    let entry = byQueue.get(key);
    if (!entry) {
      const made: Entry = { claim: () => Promise.resolve(null), waiting: 0, hint: null };
      made.claim = batcher((items: ClaimRequest[]) => run(made, items), { max: MAX_BATCH, parallel: 1 });
      entry = made;
      byQueue.set(key, entry);
      forgetIdle();
    }
    entry.waiting++;
    try {
      return await entry.claim(request);
    } finally {
      entry.waiting--;
    }
  };
}
