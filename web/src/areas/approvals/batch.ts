// Deciding the items a reviewer selected in the queue, exactly as the page showed them. Items of one run's batch go
// through POST /v1/approvals/batches/{id}/actions with `expected_item_ids` (the batch API decides only those, at the
// version they are at when it locks them); an item outside any batch goes through its own action with the `version`
// the list showed, so an edit made since is a 409 instead of an approval of text nobody reviewed.
import type { Herald } from '@herald/client';
import { describeError } from '../../api.ts';
import type { Item } from './shared.tsx';

export type BatchVerb = 'approve' | 'reject';

export interface Outcome {
  item: Item;
  outcome: 'approved' | 'rejected' | 'skipped';
  error: { code: string; message: string } | null;
}

function refused(item: Item, error: unknown): Outcome {
  const { code, message } = describeError(error);
  return { item, outcome: 'skipped', error: { code, message } };
}

async function decideBatch(herald: Herald, batchId: string, items: Item[], verb: BatchVerb, reason?: string) {
  const byId = new Map(items.map((i) => [i.id, i]));
  try {
    const answer = await herald.POST('/approvals/batches/{id}/actions', {
      params: { path: { id: batchId } },
      body: {
        action: verb === 'approve' ? 'approve_all' : 'reject_all',
        expected_item_ids: items.map((i) => i.id),
        ...(reason ? { reason } : {}),
      },
    });
    return answer.results.flatMap((r): Outcome[] => {
      const item = byId.get(r.item_id);
      return item ? [{ item, outcome: r.outcome, error: r.error }] : [];
    });
  } catch (error) {
    return items.map((item) => refused(item, error));
  }
}

async function decideOne(herald: Herald, item: Item, verb: BatchVerb, reason?: string): Promise<Outcome> {
  try {
    await herald.POST('/approvals/items/{id}/actions', {
      params: { path: { id: item.id } },
      body: { action: verb, version: item.version, ...(reason ? { reason } : {}) },
    });
    return { item, outcome: verb === 'approve' ? 'approved' : 'rejected', error: null };
  } catch (error) {
    return refused(item, error);
  }
}

/** One outcome per selected item, in the order they were shown. */
export async function decideSelected(
  herald: Herald,
  selected: Item[],
  verb: BatchVerb,
  reason?: string,
): Promise<Outcome[]> {
  const batches = new Map<string, Item[]>();
  const loose: Item[] = [];
  for (const item of selected) {
    if (item.batch_id) batches.set(item.batch_id, [...(batches.get(item.batch_id) ?? []), item]);
    else loose.push(item);
  }
  const outcomes: Outcome[] = [];
  for (const [batchId, items] of batches) outcomes.push(...(await decideBatch(herald, batchId, items, verb, reason)));
  // One at a time: each decision locks its post, and a reviewer's batch is small.
  for (const item of loose) outcomes.push(await decideOne(herald, item, verb, reason));
  const order = new Map(selected.map((item, i) => [item.id, i]));
  return outcomes.sort((a, b) => order.get(a.item.id)! - order.get(b.item.id)!);
}
