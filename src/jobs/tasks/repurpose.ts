// Runs one repurpose job (src/features/repurpose/repurpose.run.ts), queued with job key `repurpose:<id>` in the
// transaction that created it. Retried after a crash; the last attempt fails the job rather than leaving it running.
import { runRepurposeJob, type RunDeps } from '../../features/repurpose/repurpose.run.ts';

export function repurposeJobTask(deps: RunDeps) {
  return async function repurpose(
    payload: unknown,
    helpers: { job: { attempts: number; max_attempts: number } },
  ): Promise<void> {
    await runRepurposeJob(
      deps,
      payload as { workspace_id: string; job_id: string },
      helpers.job.attempts >= helpers.job.max_attempts,
    );
  };
}
