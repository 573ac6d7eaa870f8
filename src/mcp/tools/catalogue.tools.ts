// MCP tools that need no workspace: the platforms and their limits (GET /v1/platforms) and the workspaces the
// key reaches (GET /v1/workspaces).
import type { Pool } from '../../db/pool.ts';
import { platformsDocument } from '../../features/platforms/platforms.routes.ts';
import { listWorkspacesByIds } from '../../features/workspaces/workspaces.repo.ts';
import { workspaceJson } from '../../features/workspaces/workspaces.service.ts';
import type { ToolDefinition } from './tool.ts';

export function catalogueTools(pool: Pool): ToolDefinition[] {
  const read = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  return [
    {
      name: 'list_platforms',
      title: 'List platforms and their limits',
      scope: null,
      workspace: false,
      mutates: false,
      description:
        "Lists the platforms Herald publishes to (x, linkedin, instagram, facebook, threads, bluesky, mastodon, tiktok, youtube, pinterest, googlebusiness) with each one's text limit (in its own counting unit), media rules and thread support. Use it to write a text that fits before create_post.",
      annotations: read,
      run: async () => platformsDocument(),
      summarize: (r) =>
        (r.items as Array<{ id: string; name: string; limits: Record<string, unknown> }>)
          .map((p) => `- ${p.id} (${p.name}): ${JSON.stringify(p.limits)}`)
          .join('\n'),
    },
    {
      name: 'list_workspaces',
      title: 'List workspaces',
      scope: null,
      workspace: false,
      mutates: false,
      description:
        'Lists the workspaces this connection may act in, with their mode (`test` workspaces publish only to simulated platforms) and default brand. Pass an `id` as `workspace_id` to other tools when there is more than one.',
      annotations: read,
      run: async ({ principal }) => {
        const ids = principal.reachable.map((w) => w.id);
        const rows = await listWorkspacesByIds(pool, ids, undefined, Math.max(1, ids.length));
        return { items: rows.map(workspaceJson), next_cursor: null, has_more: false };
      },
      summarize: (r) => {
        const items = r.items as Array<{ id: string; name: string; mode: string }>;
        if (items.length === 0) return 'This connection reaches no workspace.';
        return items.map((w) => `- ${w.id} · ${w.name} (${w.mode})`).join('\n');
      },
    },
  ];
}
