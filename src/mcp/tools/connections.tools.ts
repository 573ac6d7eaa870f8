// MCP tools over the connections service (GET /v1/connections): which platform accounts a post can go to.
import { listConnectionsFor } from '../../features/connections/connections.service.ts';
import { ListQuery } from '../../features/connections/connections.routes.ts';
import type { ServiceContext } from '../../app/context.ts';
import { tool, type ToolDefinition } from './tool.ts';

function ctxOf(service: ServiceContext | null): ServiceContext {
  if (!service) throw new Error('workspace tool without a workspace context');
  return service;
}

export function connectionsTools(): ToolDefinition[] {
  return [
    tool({
      name: 'list_connections',
      title: 'List connected accounts',
      scope: 'connections:read',
      workspace: true,
      mutates: false,
      description:
        "Lists the social accounts the workspace can publish to: platform, handle, whether it is the brand's default for that platform, and `status` (`expired` means the user must reconnect it before posts there can publish). A post goes to the default connection of each of its platforms unless create_post names `connection_ids`.",
      input: { schema: ListQuery, part: 'querystring' },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ service }, input) => listConnectionsFor(ctxOf(service), input.body),
      summarize: (r) => {
        const items = r.items as Array<{
          id: string;
          platform: string;
          handle: string;
          is_default: boolean;
          status: string;
          sandbox: boolean;
        }>;
        if (items.length === 0) return 'No connected accounts: posts cannot be published until one is connected.';
        return items
          .map(
            (c) =>
              `- ${c.id} · ${c.platform} @${c.handle}${c.is_default ? ' (default)' : ''} · ${c.status}${c.sandbox ? ' · sandbox' : ''}`,
          )
          .join('\n');
      },
    }),
  ];
}
