// MCP tools over the events service: the same call, scope and schema as GET /v1/events.
import type { EventsService } from '../../features/events/events.service.ts';
import { ListEventsQuery } from '../../features/events/events.schemas.ts';
import type { ServiceContext } from '../../app/context.ts';
import { tool, type ToolDefinition } from './tool.ts';

function ctxOf(service: ServiceContext | null): ServiceContext {
  if (!service) throw new Error('workspace tool without a workspace context');
  return service;
}

export function eventsTools(events: EventsService): ToolDefinition[] {
  return [
    tool({
      name: 'list_events',
      title: 'List events',
      scope: 'events:read',
      workspace: true,
      mutates: false,
      description:
        'Lists what happened in the workspace, newest first: the events webhooks deliver (post.published, post.failed, media.ready, connection.expired, …), each with the resource as it was then in `data`. Filter by `type` (an array of event types) and by `created_from` / `created_to`; page with `cursor`. Events are kept at least 30 days.',
      input: { schema: ListEventsQuery, part: 'querystring' },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ service }, input) => events.list(ctxOf(service), input.body),
      summarize: (r) => {
        const items = r.items as Array<{ id: string; type: string; created_at: string; data: { id?: string } }>;
        if (items.length === 0) return 'No events match.';
        const more = r.has_more
          ? `\nMore events exist: call list_events again with cursor "${String(r.next_cursor)}".`
          : '';
        const lines = items.map((e) => `- ${e.created_at} · ${e.type}${e.data?.id ? ` · ${e.data.id}` : ''} (${e.id})`);
        return `${items.length} event${items.length === 1 ? '' : 's'}:\n${lines.join('\n')}${more}`;
      },
    }),
  ];
}
