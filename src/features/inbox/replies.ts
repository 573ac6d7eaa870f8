// Sending a reply (docs/inbox.md "Replies"): the one path every reply takes to the platform, whoever asked for it
// (a person through `POST /inbox/{id}/respond`, an automation through the `send_inbox_reply` job, a reviewer
// approving an `inbox_reply` approval item). A reply is posted at most once: its row moves to `sending` and that
// commits before the platform is called; a retry that finds it `sending` (the worker died mid-call) does not call
// again but fails it as `outcome_unknown`, because the platform may have posted it.
import type { Queryable } from '../../db/pool.ts';
import { withTransaction, type Pool } from '../../db/pool.ts';
import { appendEvent } from '../events/outbox.ts';
import * as repo from './inbox.repo.ts';
import type { ResponseRow } from './inbox.repo.ts';
import type { InboxItemRow } from './inbox.types.ts';
import { renderItem, renderResponse } from './inbox.view.ts';

/** What sending one reply gave (the shape of `sendPlatformReply`, src/features/inbox/platform-reply.ts). */
export type ReplyOutcome =
  | { ok: true; platformReplyId: string; permalink?: string }
  | { ok: false; code: string; rule?: string; message: string; retryable: boolean };

export type ReplySender = (item: InboxItemRow, text: string, opts: { private?: boolean }) => Promise<ReplyOutcome>;

export const SEND_REPLY_TASK = 'send_inbox_reply';
/** Attempts of the job: a retryable platform fault (rate limit, outage) is tried again with graphile's backoff. */
export const SEND_REPLY_ATTEMPTS = 5;

/** Queues the job that sends a response, due at `runAt` (default now); one pending job per response. */
export async function queueSend(
  db: Queryable,
  workspaceId: string,
  responseId: string,
  runAt: Date | null,
): Promise<void> {
  await db.query(
    `SELECT graphile_worker.add_job($1, json_build_object('workspace_id', $2::text, 'response_id', $3::text),
              run_at => $4::timestamptz, job_key => 'inbox-reply:' || $3, max_attempts => $5)`,
    [SEND_REPLY_TASK, workspaceId, responseId, runAt, SEND_REPLY_ATTEMPTS],
  );
}

/** Records what the platform answered, with its event, in `db` (the caller's transaction). */
export async function recordOutcome(
  db: Queryable,
  item: InboxItemRow,
  response: ResponseRow,
  outcome: ReplyOutcome,
): Promise<ResponseRow> {
  if (outcome.ok) {
    const sent = await repo.moveResponse(db, item.workspaceId, response.id, ['sending'], 'sent', {
      platformReplyId: outcome.platformReplyId,
      permalink: outcome.permalink ?? null,
    });
    // Another request or job settled it first (it was no longer `sending`): its record stands, no second event.
    if (!sent) return (await repo.findResponse(db, item.workspaceId, response.id))!;
    if (item.status === 'open') await repo.updateItem(db, item.workspaceId, item.id, { status: 'replied' });
    await appendEvent(db, item.workspaceId, 'inbox.item.replied', {
      item: renderItem({ ...item, status: item.status === 'open' ? 'replied' : item.status }, { paused: false }),
      response: renderResponse(sent),
    });
    return sent;
  }
  const error = { code: outcome.code, ...(outcome.rule ? { rule: outcome.rule } : {}), message: outcome.message };
  const failed = await repo.moveResponse(db, item.workspaceId, response.id, ['sending'], 'failed', { error });
  if (!failed) return (await repo.findResponse(db, item.workspaceId, response.id))!;
  await appendEvent(db, item.workspaceId, 'inbox.reply.failed', {
    item_id: item.id,
    response: renderResponse(failed),
  });
  return failed;
}

export interface SendDeps {
  pool: Pool;
  sendReply: ReplySender;
}

/**
 * The job's work for one queued response. Returns `retry` when the platform's fault is retryable and attempts are
 * left (the response goes back to `queued` and the task throws so graphile-worker retries later).
 */
export async function sendQueuedResponse(
  deps: SendDeps,
  payload: { workspace_id: string; response_id: string },
  lastAttempt: boolean,
): Promise<'sent' | 'failed' | 'retry' | 'nothing'> {
  const claimed = await withTransaction(deps.pool, async (tx) => {
    const r = await repo.findResponse(tx, payload.workspace_id, payload.response_id, true);
    if (!r) return undefined;
    if (r.status === 'sending') {
      // A worker died between claiming and recording: the platform may have posted it, so it is never sent again.
      const item = await repo.findItem(tx, r.workspace_id, r.item_id);
      if (item)
        await recordOutcome(tx, item, r, {
          ok: false,
          code: 'outcome_unknown',
          message: 'The sender stopped while the platform was called; it is not sent again, to never post twice.',
          retryable: false,
        });
      return undefined;
    }
    if (r.status !== 'queued') return undefined;
    const item = await repo.findItem(tx, r.workspace_id, r.item_id);
    if (!item) return undefined;
    await repo.moveResponse(tx, r.workspace_id, r.id, ['queued'], 'sending');
    return { item, response: { ...r, status: 'sending' as const } };
  });
  if (!claimed) return 'nothing';
  const outcome = await deps.sendReply(claimed.item, claimed.response.text, { private: claimed.response.private });
  if (!outcome.ok && outcome.retryable && !lastAttempt) {
    await repo.moveResponse(deps.pool, payload.workspace_id, payload.response_id, ['sending'], 'queued');
    return 'retry';
  }
  await withTransaction(deps.pool, (tx) => recordOutcome(tx, claimed.item, claimed.response, outcome));
  return outcome.ok ? 'sent' : 'failed';
}

/** An approved `inbox_reply` item: its response is queued to be sent now (docs/approvals.md). */
export async function releaseApprovedReply(db: Queryable, workspaceId: string, responseId: string): Promise<void> {
  const moved = await repo.moveResponse(db, workspaceId, responseId, ['pending_approval'], 'queued');
  if (moved) await queueSend(db, workspaceId, responseId, moved.send_after);
}

/** A rejected or expired `inbox_reply` item: its response is discarded, never sent. */
export async function discardReply(db: Queryable, workspaceId: string, responseId: string): Promise<void> {
  await repo.moveResponse(db, workspaceId, responseId, ['pending_approval'], 'discarded');
}
