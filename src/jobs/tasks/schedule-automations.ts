// Every minute: the automations scheduler pass (src/features/automations/automations.scheduler.ts) — due slots
// claimed and their `run_automation` jobs queued, event sources read. Safe to run on every worker at once: the
// due rows are locked with SKIP LOCKED and a slot's run row is unique.
import { scheduleDueAutomations, type SchedulerDeps } from '../../features/automations/automations.scheduler.ts';
import type { Logger } from '../../lib/logger.ts';

export function scheduleAutomationsTask(deps: SchedulerDeps & { logger: Logger }) {
  return async function scheduleAutomations(): Promise<void> {
    const queued = await scheduleDueAutomations(deps);
    if (queued > 0) deps.logger.info({ queued }, 'automation runs queued');
  };
}
