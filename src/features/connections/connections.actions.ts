// What a client may do to a connection besides reading it: refresh it now (`POST /v1/connections/{id}/refresh`)
// and disconnect it (`DELETE /v1/connections/{id}`): refused while scheduled posts depend on it unless forced,
// which fails those targets; revoked at the platform where the platform can revoke; `connection.disconnected`.
import type { ServiceContext } from '../../app/context.ts';
import { AppError } from '../../app/errors.ts';
import { isPlatformError } from '../../platforms/types.ts';
import { appendEvent } from '../events/outbox.ts';
import type { MediaLists } from '../posts/posts.view.ts';
import { refreshPostStatus } from '../publishing/post-status.ts';
import { scheduledTargetsOfConnection } from '../publishing/targets.repo.ts';
import { oauthContextFor } from './connect.platform.ts';
import { findConnection, markDisconnected, promoteDefault } from './connections.repo.ts';
import { connectionJson, getConnection } from './connections.service.ts';
import { failDependentTargets, renewConnection, type LifecycleDeps } from './lifecycle.ts';
import { openCredentials } from './platform-access.ts';

export interface ConnectionActionDeps extends LifecycleDeps {
  postMedia: MediaLists;
}

export async function refreshNow(
  ctx: ServiceContext,
  deps: ConnectionActionDeps,
  id: string,
): Promise<Record<string, unknown>> {
  const row = await getConnection(ctx.db, ctx.workspaceId, id, ctx.allowedBrandIds);
  if (row.status === 'disconnected')
    throw new AppError(
      'PUBLIC_API_STATE_CONFLICT',
      'This connection is disconnected; connect the account again with a connect link.',
    );
  try {
    return connectionJson(await renewConnection(deps, row));
  } catch (error) {
    if (!isPlatformError(error)) throw error;
    if (error.kind === 'auth_expired') {
      throw new AppError(
        'PUBLIC_API_STATE_CONFLICT',
        `The platform refused to renew the authorisation (${error.message}); the connection is now expired: connect the account again with a connect link.`,
        { details: [{ rule: 'PLATFORM_RECONNECT_REQUIRED', platform: row.platform, message: error.message }] },
      );
    }
    const retryAfter = Math.max(1, Math.ceil((error.retryAfterMs ?? 5000) / 1000));
    throw new AppError(
      'PUBLIC_API_UNAVAILABLE',
      `The platform could not be reached to renew the authorisation (${error.code}); nothing changed. Try again later.`,
      { headers: { 'retry-after': String(retryAfter) } },
    );
  }
}

export async function disconnect(
  ctx: ServiceContext,
  deps: ConnectionActionDeps,
  id: string,
  force: boolean,
): Promise<Record<string, unknown>> {
  const found = await getConnection(ctx.db, ctx.workspaceId, id, ctx.allowedBrandIds);
  const row = (await findConnection(ctx.db, ctx.workspaceId, found.id, true))!;
  if (row.status === 'disconnected')
    throw new AppError('PUBLIC_API_STATE_CONFLICT', 'This connection is already disconnected.');
  const waiting = await scheduledTargetsOfConnection(ctx.db, ctx.workspaceId, row.id);
  if (waiting.length > 0 && !force) {
    const posts = [...new Set(waiting.map((t) => t.post_id))];
    throw new AppError(
      'PUBLIC_API_STATE_CONFLICT',
      `${posts.length} scheduled post(s) will publish through this connection; reschedule them onto another connection, cancel them, or send ?force=true to fail them.`,
      {
        details: posts.slice(0, 20).map((p) => ({
          path: '/connection_id',
          rule: 'scheduled_posts_depend',
          message: `post ${p} is scheduled on this connection`,
        })),
      },
    );
  }
  if (waiting.length > 0) {
    for (const postId of await failDependentTargets(ctx.db, ctx.workspaceId, row.id))
      await refreshPostStatus(ctx.db, ctx.workspaceId, postId, deps.postMedia);
  }
  const revoked = await revokeAtPlatform(deps, row);
  if (!(await markDisconnected(ctx.db, ctx.workspaceId, row.id)))
    throw new AppError('PUBLIC_API_NOT_FOUND', 'No connection with that id in this workspace.');
  // The brand keeps a default for the platform when it has another usable account.
  if (row.is_default) await promoteDefault(ctx.db, ctx.workspaceId, row.brand_id, row.platform);
  const after = (await findConnection(ctx.db, ctx.workspaceId, row.id))!;
  await appendEvent(ctx.db, ctx.workspaceId, 'connection.disconnected', connectionJson(after));
  return { connection: connectionJson(after), revoked, failed_targets: waiting.length };
}

/** Best effort: a platform that cannot revoke, or fails to, leaves the token to lapse; the user is told which. */
async function revokeAtPlatform(
  deps: ConnectionActionDeps,
  row: Parameters<typeof connectionJson>[0],
): Promise<boolean> {
  const adapter = deps.access.registry.get(row.platform);
  if (!adapter?.oauth?.revoke) return false;
  try {
    const ctx = await oauthContextFor(deps, row);
    if (!ctx) return false;
    await adapter.oauth.revoke(ctx, openCredentials(deps.access.keyring, row.credentials));
    return true;
  } catch (error) {
    deps.logger.warn(
      {
        connection_id: row.id,
        platform: row.platform,
        err: isPlatformError(error) ? { code: error.code, message: error.message } : String(error),
      },
      'revoking the token at the platform failed; it is dropped here',
    );
    return false;
  }
}
