// `herald workspaces …`: workspaces, from the server's shell (their brands: brands/brands.cli.ts).
import { json, ownerOf, print, required, UsageError, withDatabase, type Command } from '../../cli/command.ts';
import { createWorkspace, workspaceJson } from './workspaces.service.ts';
import { listAllWorkspaces } from './workspaces.repo.ts';

export function workspaceCommands(): Record<string, Command> {
  return {
    'workspaces create': {
      usage: 'herald workspaces create --name <name> [--mode live|test] [--json]',
      summary: 'Create a workspace (live by default) with its default brand, owned by the owner account.',
      options: {
        name: { type: 'string', value: 'name', description: 'The workspace name.' },
        mode: {
          type: 'string',
          value: 'live|test',
          description: 'live publishes to the real platforms; test only to the simulators (default live).',
        },
        ...json,
      },
      async run(values, _p, io) {
        const name = required(values, 'name');
        const mode = (values.mode ?? 'live') as 'live' | 'test';
        if (mode !== 'live' && mode !== 'test') throw new UsageError('--mode must be live or test');
        await withDatabase(io, async (pool) => {
          const made = await createWorkspace(pool, { name, mode, ownerUserId: await ownerOf(pool) });
          print(
            io,
            values,
            // The workspace shape of `workspaces list` (and GET /v1/workspaces).
            workspaceJson({ ...made.workspace, default_brand_id: made.brand.id }),
            `Workspace ${made.workspace.id} (${mode})\nDefault brand ${made.brand.id}`,
          );
        });
      },
    },
    'workspaces list': {
      usage: 'herald workspaces list [--json]',
      summary: 'List every workspace.',
      options: { ...json },
      async run(values, _p, io) {
        await withDatabase(io, async (pool) => {
          const rows = await listAllWorkspaces(pool);
          print(
            io,
            values,
            rows.map(workspaceJson),
            rows.map((w) => `${w.id}  ${w.mode.padEnd(4)}  ${w.name}`).join('\n') || '(no workspaces)',
          );
        });
      },
    },
  };
}
