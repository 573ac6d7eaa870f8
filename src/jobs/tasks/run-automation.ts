// Runs one slot of a content automation (src/features/automations/automations.run.ts), queued with job key
// `automation:<id>:<slot>` by the scheduler or a trigger. Retried after a crash; the last attempt fails the run.
// Jobs running at the same moment share their database work (one runner per task list).
import { automationRunner, type RunDeps, type RunPayload } from '../../features/automations/automations.run.ts';

export function runAutomationTask(deps: RunDeps) {
  const run = automationRunner(deps);
  return async function runAutomationJob(
    payload: unknown,
    helpers: { job: { attempts: number; max_attempts: number } },
  ): Promise<void> {
    await run(payload as RunPayload, helpers.job.attempts >= helpers.job.max_attempts);
  };
}
