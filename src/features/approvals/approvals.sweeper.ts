// Expiry of the review queue (docs/approvals.md "Expiry"): pending items past their `expires_at` become `expired`
// and their post goes back to draft or is cancelled, as the policy said when the item was asked for. Run by the
// worker's crontab (src/jobs/tasks/expire-approvals.ts). Each item is expired in its own transaction, locked as a
// decision locks it (post first, then item) and checked again there, so a sweep racing a reviewer, an edit or
// another worker's sweep leaves the item as the first of them settled it.
import type { ServiceContext } from '../../app/context.ts';
import { withTransaction, type Pool } from '../../db/pool.ts';
import type { Clock } from '../../lib/clock.ts';
import { workspaceModes } from '../workspaces/workspaces.repo.ts';
import { dueForExpiry } from './approvals.repo.ts';

/** How many items one sweep expires at most; the next sweep takes the rest. */
export const EXPIRY_SWEEP_LIMIT = 500;

/** Expires every due item (up to `limit`); returns how many this sweep expired. */
export async function expireDueApprovals(
  deps: { pool: Pool; clock: Clock; approvals: { expireItem(ctx: ServiceContext, id: string): Promise<boolean> } },
  limit = EXPIRY_SWEEP_LIMIT,
): Promise<number> {
  const due = await dueForExpiry(deps.pool, deps.clock.now(), limit);
  const modes = await workspaceModes(deps.pool, [...new Set(due.map((item) => item.workspace_id))]);
  let expired = 0;
  for (const item of due) {
    const done = await withTransaction(deps.pool, (tx) =>
      // Herald itself acts: no key, no brand limit; the history row names no actor.
      deps.approvals.expireItem(
        {
          db: tx,
          workspaceId: item.workspace_id,
          workspaceMode: modes.get(item.workspace_id) ?? 'live',
          brandId: item.brand_id,
          brandFromHeader: false,
          allowedBrandIds: null,
          userId: item.requested_by ?? '',
          via: 'automation',
        },
        item.id,
      ),
    );
    if (done) expired++;
  }
  return expired;
}
