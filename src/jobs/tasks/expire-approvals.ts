// Expires approval items left undecided past their `expires_at` (src/features/approvals/approvals.sweeper.ts),
// every minute from the worker's crontab.
import type { Pool } from '../../db/pool.ts';
import type { ApprovalsService } from '../../features/approvals/approvals.service.ts';
import { expireDueApprovals } from '../../features/approvals/approvals.sweeper.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';

export function expireApprovalsTask(deps: { pool: Pool; clock: Clock; logger: Logger; approvals: ApprovalsService }) {
  return async function expireApprovals(): Promise<void> {
    const expired = await expireDueApprovals(deps);
    if (expired > 0) deps.logger.info({ expired }, 'approval items expired');
  };
}
