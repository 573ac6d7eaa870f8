// The `publish_target` task: the graphile-worker face of features/publishing/publish-target.ts. Platform
// failures never fail the job (the engine schedules its own retries); only unexpected errors do, and the
// queue's retry of the job then reclaims the target.
import type { Task } from 'graphile-worker';
import { createPublisher, type PublishDeps } from '../../features/publishing/publish-target.ts';
import type { PublishTargetPayload } from '../../app/publish-queue.ts';

function isPayload(value: unknown): value is PublishTargetPayload {
  const p = value as Partial<PublishTargetPayload> | null;
  return typeof p?.target_id === 'string' && (p.schedule_at === null || typeof p.schedule_at === 'string');
}

export function publishTargetTask(deps: PublishDeps): Task {
  const publisher = createPublisher(deps);
  return async (payload, helpers) => {
    if (!isPayload(payload)) {
      helpers.logger.error(`publish_target: malformed payload ${JSON.stringify(payload)}; dropped`);
      return;
    }
    await publisher.publish({
      targetId: payload.target_id,
      scheduleAt: payload.schedule_at,
      jobId: String(helpers.job.id),
      workerId: helpers.job.locked_by ?? 'unknown',
    });
  };
}
