// MCP tools over the automations service: the same calls, scopes and schemas as /v1/automations. An assistant
// lists and reads automations with `automations:read`; creates, triggers, previews and pauses with
// `automations:write`. Runs happen in the worker, as for REST.
import type { ServiceContext } from '../../app/context.ts';
import { CreateAutomationBody, ListAutomationsQuery } from '../../features/automations/automations.schemas.ts';
import type { AutomationsService } from '../../features/automations/automations.service.ts';
import type { AutomationView, RunView } from '../../features/automations/automations.view.ts';
import { tool, type ToolDefinition } from './tool.ts';

function ctxOf(service: ServiceContext | null): ServiceContext {
  if (!service) throw new Error('workspace tool without a workspace context');
  return service;
}

function automationText(a: AutomationView): string {
  const source =
    a.source.type === 'schedule' ? a.source.rrule : a.source.type === 'rss' ? a.source.feed_url : a.source.event;
  return `${a.id} · ${a.name} · ${a.status} · ${a.source.type} ${source ?? ''} → ${a.generator.type}, ${a.output.mode}; next ${a.next_run_at ?? 'none'}${a.last_error ? `; last error ${a.last_error.code}: ${a.last_error.message}` : ''}`;
}

const AUTOMATION_ID = { argument: 'automation_id' as const, description: 'The automation id (`auto_…`).' };

export function automationsTools(automations: AutomationsService): ToolDefinition[] {
  return [
    tool({
      name: 'list_automations',
      title: 'List content automations',
      scope: 'automations:read',
      workspace: true,
      mutates: false,
      description: 'Lists content automations (newest first) with their status, source, generator and next run.',
      input: { schema: ListAutomationsQuery, part: 'querystring' },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ service }, input) => automations.list(ctxOf(service), input.body),
      summarize: (r) => (r as { items: AutomationView[] }).items.map(automationText).join('\n') || 'No automations.',
    }),
    tool({
      name: 'create_automation',
      title: 'Create a content automation',
      scope: 'automations:write',
      workspace: true,
      mutates: true,
      description:
        'Creates a rule that makes posts: `source` {type: "schedule", rrule, timezone} | {type: "rss", feed_url} | {type: "event", event}; `generator` {type: template (template) | library (items) | llm_topic (topic; offline needs items) | repurpose}; `destinations` [{platform} or {connection_id}]; `output.mode` draft | approval | schedule | publish_now. Use preview_automation to see what the next run would post.',
      input: { schema: CreateAutomationBody, part: 'body' },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: async ({ service }, input) => automations.create(ctxOf(service), input.body),
      summarize: (r) => `Created ${automationText(r as AutomationView)}`,
    }),
    tool({
      name: 'get_automation',
      title: 'Get a content automation',
      scope: 'automations:read',
      workspace: true,
      mutates: false,
      id: AUTOMATION_ID,
      description: 'Returns one content automation with its next run, last run and last error.',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ service }, input) => automations.get(ctxOf(service), input.id!),
      summarize: (r) => automationText(r as AutomationView),
    }),
    tool({
      name: 'trigger_automation',
      title: 'Run a content automation now',
      scope: 'automations:write',
      workspace: true,
      mutates: true,
      id: AUTOMATION_ID,
      description:
        'Queues a run now (idempotent within the minute: a repeat answers the same run). Returns the run; its posts appear once the worker has run it.',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      run: async ({ service }, input) => automations.trigger(ctxOf(service), input.id!),
      summarize: (r) => `Run ${(r as RunView).id} ${(r as RunView).status} (slot ${(r as RunView).slot}).`,
    }),
    tool({
      name: 'preview_automation',
      title: 'Preview the next run of a content automation',
      scope: 'automations:write',
      workspace: true,
      mutates: false,
      id: AUTOMATION_ID,
      description:
        'A dry run: the posts the next run would create, each with `valid` and the rules it breaks. Saves nothing.',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      run: async ({ service }, input) => automations.preview(ctxOf(service), input.id!),
      summarize: (r) => {
        const p = r as { posts: { content: string; valid: boolean }[]; error: { message: string } | null };
        if (p.error) return `Preview failed: ${p.error.message}`;
        return p.posts.map((x) => `- ${x.valid ? 'valid' : 'INVALID'}: ${x.content}`).join('\n') || 'Nothing to post.';
      },
    }),
    tool({
      name: 'pause_automation',
      title: 'Pause a content automation',
      scope: 'automations:write',
      workspace: true,
      mutates: true,
      id: AUTOMATION_ID,
      description: 'Stops the automation until resumed.',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ service }, input) => automations.pause(ctxOf(service), input.id!),
      summarize: (r) => automationText(r as AutomationView),
    }),
    tool({
      name: 'resume_automation',
      title: 'Resume a content automation',
      scope: 'automations:write',
      workspace: true,
      mutates: true,
      id: AUTOMATION_ID,
      description: 'Makes a paused automation active again from now (missed slots are not run).',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ service }, input) => automations.resume(ctxOf(service), input.id!),
      summarize: (r) => automationText(r as AutomationView),
    }),
  ];
}
