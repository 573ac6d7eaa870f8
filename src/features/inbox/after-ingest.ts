// What happens to newly ingested inbox items (docs/inbox.md "Automations"): called by the ingestion
// (src/features/inbox/ingest.ts) with only the rows it has just created, in its transaction or right after commit.
// It emits `inbox.item.created` for each item, pauses automation for a thread where the account itself answered
// (a `from_account` item not sent by an automation), and evaluates the workspace's inbox automations on the rest.
import type { Queryable } from '../../db/pool.ts';
import type { Clock } from '../../lib/clock.ts';
import type { InboxItemRow } from './inbox.types.ts';
import { evaluateItems } from './automations.evaluate.ts';

export interface AfterIngestDeps {
  /** The ingestion's transaction (or the pool: each item is then handled in statements of its own). */
  db: Queryable;
  clock: Clock;
}

/** What afterIngest did with the items it was given. */
export interface AfterIngestTally {
  created: number;
  takenOver: number;
  runs: number;
}

export async function afterIngest(deps: AfterIngestDeps, items: readonly InboxItemRow[]): Promise<AfterIngestTally> {
  return evaluateItems(deps, items);
}
