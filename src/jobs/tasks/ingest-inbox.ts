// Every minute: one inbox ingestion pass (src/features/inbox/ingest.ts) — sources enrolled for new connections, due
// sources polled. Idempotent: a pass claims its sources under a lease, and an item ingested twice creates nothing.
// Failures are recorded on the sources (their health), not thrown.
import { ingestDue, type IngestDeps } from '../../features/inbox/ingest.ts';

export function ingestInboxTask(deps: IngestDeps) {
  return async function ingestInbox(): Promise<void> {
    const tally = await ingestDue(deps);
    if (tally.polled + tally.rateLimited + tally.failed > 0) deps.logger.info(tally, 'inbox ingested');
  };
}
