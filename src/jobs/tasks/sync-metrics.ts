// Every minute: one metrics sync pass (src/features/analytics/sync.ts) — newly published targets enrolled, due
// targets read. Idempotent: a pass claims its targets under a lease, so two passes never read the same target,
// and a pass that dies leaves them due again when the lease ends. Failures are recorded on the targets, not thrown.
import { syncDueMetrics, type SyncDeps } from '../../features/analytics/sync.ts';

export function syncMetricsTask(deps: SyncDeps) {
  return async function syncMetrics(): Promise<void> {
    const tally = await syncDueMetrics(deps);
    if (tally.enrolled + tally.synced + tally.rateLimited + tally.expired + tally.failed > 0)
      deps.logger.info(tally, 'metrics synced');
  };
}
