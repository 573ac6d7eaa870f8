// Housekeeping run by the worker on a schedule: forget idempotency answers older than 24 h, ended sign-in
// sessions and sign-in throttles, used or expired OAuth codes, grants ended 30 days ago and registrations never used.
import type { Pool } from '../../db/pool.ts';
import { deleteExpiredSignInState, SIGN_IN_THROTTLE } from '../../features/users/users.service.ts';
import { deleteExpiredIdempotencyKeys } from '../../app/idempotency.ts';
import type { Logger } from '../../lib/logger.ts';
import { deleteUnusedClients } from '../../features/oauth/clients.repo.ts';
import { deleteEndedOAuthState } from '../../features/oauth/grants.repo.ts';

export function cleanupTask(deps: { pool: Pool; logger: Logger }) {
  return async function cleanup(): Promise<void> {
    const removed = await deleteExpiredIdempotencyKeys(deps.pool);
    if (removed > 0) deps.logger.info({ removed }, 'expired idempotency keys removed');
    const signIn = await deleteExpiredSignInState(deps.pool, SIGN_IN_THROTTLE.address.forgetSeconds);
    const oauth = (await deleteEndedOAuthState(deps.pool, 30)) + (await deleteUnusedClients(deps.pool, 30));
    if (signIn + oauth > 0) deps.logger.info({ sign_in: signIn, oauth }, 'ended sign-in and OAuth records removed');
  };
}
