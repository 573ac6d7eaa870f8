// The scheduler pass (the `schedule_automations` task, every minute; docs/automations.md "Scheduling"): active
// automations whose `next_run_at` has come get their slot claimed — a run row unique per (automation, slot) and a
// `run_automation` job keyed by both — and `next_run_at` moved to the next slot, all in one transaction per batch
// with the rows locked (SKIP LOCKED), so two schedulers never claim one slot. Event sources read the outbox.
import { withTransaction, type Pool, type Queryable } from '../../db/pool.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import * as repo from './automations.repo.ts';
import { nextSlot, queueRuns } from './automations.service.ts';

export interface SchedulerDeps {
  pool: Pool;
  clock: Clock;
  batchSize: number;
  rssPollMinutes: number;
}

/** Events are read once they are this old, so an event committed late with an earlier id is not passed over. */
export const EVENT_SETTLE_MS = 5_000;

/** One pass; answers the runs queued. */
export async function scheduleDueAutomations(deps: SchedulerDeps): Promise<number> {
  let queued = 0;
  for (;;) {
    const now = deps.clock.now();
    const claimed = await withTransaction(deps.pool, async (tx) => {
      const due = await repo.lockDue(tx, now, deps.batchSize);
      if (due.length === 0) return 0;
      const runs = await repo.insertRuns(
        tx,
        due.map((a) => ({
          id: newId('arun'),
          automation_id: a.id,
          workspace_id: a.workspace_id,
          slot: a.next_run_at!.toISOString(),
          trigger: a.source.type === 'rss' ? ('feed' as const) : ('schedule' as const),
        })),
      );
      await queueRuns(tx, runs);
      await repo.setNextRuns(
        tx,
        due.map((a) => ({ id: a.id, next: nextSlot(a, a.next_run_at!, now, deps.rssPollMinutes) })),
      );
      return due.length;
    });
    queued += claimed;
    if (claimed < deps.batchSize) break;
  }
  return queued + (await scheduleEvents(deps));
}

/**
 * Event sources: a run per new event of the watched type; posts an automation made itself start nothing. The
 * automations are read a batch at a time in id order, one transaction each, so every one of them is read on every
 * pass, not only the first batch.
 */
async function scheduleEvents(deps: SchedulerDeps): Promise<number> {
  const settled = new Date(deps.clock.now().getTime() - EVENT_SETTLE_MS);
  let queued = 0;
  for (let afterId = ''; ;) {
    const page = await withTransaction(deps.pool, (tx) => scheduleEventPage(deps, tx, afterId, settled));
    queued += page.queued;
    if (page.read < deps.batchSize) return queued;
    afterId = page.lastId;
  }
}

/** One batch of event automations: their new events claimed as runs, their cursors moved past them. */
async function scheduleEventPage(
  deps: SchedulerDeps,
  tx: Queryable,
  afterId: string,
  settled: Date,
): Promise<{ queued: number; read: number; lastId: string }> {
  const automations = await repo.lockEventAutomations(tx, afterId, deps.batchSize);
  let queued = 0;
  for (const a of automations) {
    const events = await repo.eventsAfter(tx, a.workspace_id, a.source.event!, a.event_cursor ?? '', settled, 100);
    if (events.length === 0) continue;
    const wanted = events.filter((e) => (e.data as { created_via?: string }).created_via !== 'automation');
    const runs = await repo.insertRuns(
      tx,
      wanted.map((e) => ({
        id: newId('arun'),
        automation_id: a.id,
        workspace_id: a.workspace_id,
        slot: `event:${e.id}`,
        trigger: 'event' as const,
      })),
    );
    await queueRuns(tx, runs);
    await repo.updateAutomation(tx, a.workspace_id, a.id, { event_cursor: events.at(-1)!.id });
    queued += runs.length;
  }
  return { queued, read: automations.length, lastId: automations.at(-1)?.id ?? afterId };
}
