// The automation and its runs as the API answers them (automations.view.schemas.ts), from their stored rows.
import type { AutomationRow, RunRow } from './automations.repo.ts';

export function renderAutomation(row: AutomationRow) {
  return {
    id: row.id,
    object: 'automation' as const,
    brand_id: row.brand_id,
    name: row.name,
    status: row.status,
    source: row.source,
    generator: row.generator,
    destinations: row.destinations,
    output: row.output,
    options: row.options,
    next_run_at: row.next_run_at ? row.next_run_at.toISOString() : null,
    last_run_at: row.last_run_at ? row.last_run_at.toISOString() : null,
    last_error: row.last_error,
    consecutive_failures: row.consecutive_failures,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function renderRun(row: RunRow) {
  return {
    id: row.id,
    object: 'automation_run' as const,
    automation_id: row.automation_id,
    trigger: row.trigger,
    slot: row.slot,
    status: row.status,
    started_at: row.started_at ? row.started_at.toISOString() : null,
    finished_at: row.finished_at ? row.finished_at.toISOString() : null,
    items_seen: row.items_seen,
    items_new: row.items_new,
    posts_created: row.posts_created,
    approval_batch_id: row.approval_batch_id,
    error: row.error,
    created_at: row.created_at.toISOString(),
  };
}

export type AutomationView = ReturnType<typeof renderAutomation>;
export type RunView = ReturnType<typeof renderRun>;
