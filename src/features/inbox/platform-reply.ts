// Sending an answer to an ingested item through its connection's adapter (docs/inbox.md "Ingestion"): a reply to
// a comment or review, an answer to a DM, or a reply as a post (X, Bluesky, Mastodon, Threads). Platform faults
// come back as data: a rule the platform enforces (closed reply window, deleted item, private replies it does not
// offer) is `retryable: false` with its `rule`; rate limits and outages are `retryable: true`; an answer whose
// outcome is unknown is never retryable (the platform may have posted it). The caller (replies.ts) records it.
import type { Pool } from '../../db/pool.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import { PLATFORM_ERRORS } from '../../platforms/errors.ts';
import { isPlatformError, type PlatformSession } from '../../platforms/types.ts';
import { findConnection } from '../connections/connections.repo.ts';
import { refreshConnection } from '../connections/lifecycle.ts';
import { sessionFor, type PlatformAccess } from '../connections/platform-access.ts';
import type { InboxItemRow } from './inbox.types.ts';

export interface PlatformReplyDeps {
  pool: Pool;
  access: PlatformAccess;
  logger: Logger;
  clock: Clock;
}

export type PlatformReplyResult =
  | { ok: true; platformReplyId: string; permalink?: string }
  | { ok: false; code: string; rule?: string; message: string; retryable: boolean };

/** The rule a refusal stands for (the 422 of `POST /v1/inbox/{id}/respond` names it). */
const RULES: Record<string, string> = {
  PLATFORM_REPLY_WINDOW_CLOSED: 'reply_window_closed',
  PLATFORM_ITEM_DELETED: 'item_deleted',
};

function refused(code: string, rule: string, message: string): PlatformReplyResult {
  return { ok: false, code, rule, message, retryable: false };
}

/** What the adapter recorded of the item for answering it (Bluesky: uri and cid of it and its root), if anything. */
async function platformRefOf(pool: Pool, itemId: string): Promise<Record<string, string> | null> {
  const { rows } = await pool.query<{ ref: Record<string, string> | null }>(
    `SELECT platform_ref AS ref FROM inbox_items WHERE id = $1`,
    [itemId],
  );
  return rows[0]?.ref ?? null;
}

export async function sendPlatformReply(
  deps: PlatformReplyDeps,
  item: InboxItemRow,
  text: string,
  opts: { private?: boolean } = {},
): Promise<PlatformReplyResult> {
  const connection = await findConnection(deps.pool, item.workspaceId, item.connectionId);
  if (!connection || connection.status !== 'active')
    return {
      ok: false,
      code: 'PLATFORM_CONNECTION_UNAVAILABLE',
      message: 'The connection this item came from is not active; reconnect it to answer.',
      retryable: false,
    };
  const inbox = deps.access.registry.get(connection.platform)?.inbox;
  if (!inbox)
    return refused('PLATFORM_REJECTED', 'answer_unsupported', `Herald cannot answer on ${connection.platform}.`);
  if (opts.private && !inbox.privateReplies)
    return refused(
      'PLATFORM_REJECTED',
      'private_reply_unsupported',
      `${connection.platform} gives Herald no private reply to this item.`,
    );
  const now = deps.clock.now();
  if (item.replyWindowEndsAt && item.replyWindowEndsAt.getTime() <= now.getTime())
    return refused(
      'PLATFORM_REPLY_WINDOW_CLOSED',
      'reply_window_closed',
      `The platform accepted answers to this item until ${item.replyWindowEndsAt.toISOString()}.`,
    );
  const ref = await platformRefOf(deps.pool, item.id);
  const target = {
    kind: item.kind,
    id: item.platformItemId,
    postId: item.platformPostId,
    threadId: item.threadId,
    author: { id: item.author.platform_user_id, username: item.author.username },
    ...(ref ? { ref } : {}),
  };
  let session: PlatformSession = sessionFor(deps.access, connection);
  for (let refreshed = false; ; refreshed = true) {
    try {
      const sent = await inbox.answer(session, target, text, { private: opts.private ?? false });
      return { ok: true, platformReplyId: sent.id, ...(sent.url ? { permalink: sent.url } : {}) };
    } catch (error) {
      if (!isPlatformError(error)) throw error;
      if (error.kind === 'auth_expired' && !refreshed) {
        try {
          session = await refreshConnection(deps, connection);
          continue;
        } catch (refreshError) {
          if (!isPlatformError(refreshError)) throw refreshError;
          return { ok: false, code: refreshError.code, message: refreshError.message, retryable: false };
        }
      }
      const rule = RULES[error.code];
      if (rule) return refused(error.code, rule, error.message);
      if (error.kind === 'unknown_outcome')
        return { ok: false, code: 'PLATFORM_UNKNOWN_OUTCOME', message: error.message, retryable: false };
      const retryable = error.kind === 'rate_limited' || error.kind === 'transient';
      deps.logger.warn({ item_id: item.id, code: error.code }, 'inbox answer refused');
      return {
        ok: false,
        code: error.code,
        message: error.message,
        retryable: retryable || (PLATFORM_ERRORS[error.code]?.retryable ?? false),
      };
    }
  }
}
