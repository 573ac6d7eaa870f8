// Sends one reply an inbox automation queued (or a reviewer approved): src/features/inbox/replies.ts, queued with
// job key `inbox-reply:<response id>`. A retryable platform fault throws so graphile-worker tries again later;
// the reply is posted at most once whatever happens (see replies.ts).
import { sendQueuedResponse, type SendDeps } from '../../features/inbox/replies.ts';

export function sendInboxReplyTask(deps: SendDeps) {
  return async function sendInboxReply(
    payload: unknown,
    helpers: { job: { attempts: number; max_attempts: number } },
  ): Promise<void> {
    const result = await sendQueuedResponse(
      deps,
      payload as { workspace_id: string; response_id: string },
      helpers.job.attempts >= helpers.job.max_attempts,
    );
    if (result === 'retry') throw new Error('The platform refused the reply for now; it is tried again later.');
  };
}
