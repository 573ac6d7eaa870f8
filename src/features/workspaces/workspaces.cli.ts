// `herald workspaces …` and `herald brands …`: workspaces and their brands, from the server's shell.
import {
  json,
  ownerOf,
  print,
  required,
  UsageError,
  withDatabase,
  workspaceArg,
  type Command,
} from '../../cli/command.ts';
import { brandJson, createBrand, createWorkspace, workspaceJson } from './workspaces.service.ts';
import { findWorkspace, listAllWorkspaces, listBrands } from './workspaces.repo.ts';

export function workspaceCommands(): Record<string, Command> {
  return {
    'workspaces create': {
      usage: 'herald workspaces create --name <name> [--mode live|test] [--json]',
      summary: 'Create a workspace (live by default) with its default brand, owned by the owner account.',
      options: { name: { type: 'string' }, mode: { type: 'string' }, ...json },
      async run(values, _p, io) {
        const name = required(values, 'name');
        const mode = (values.mode ?? 'live') as 'live' | 'test';
        if (mode !== 'live' && mode !== 'test') throw new UsageError('--mode must be live or test');
        await withDatabase(io, async (pool) => {
          const made = await createWorkspace(pool, { name, mode, ownerUserId: await ownerOf(pool) });
          print(
            io,
            values,
            { workspace_id: made.workspace.id, brand_id: made.brand.id, mode },
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
    'brands create': {
      usage: 'herald brands create --workspace <uuid> --name <name> [--json]',
      summary: 'Create a brand in a workspace.',
      options: { workspace: { type: 'string' }, name: { type: 'string' }, ...json },
      async run(values, _p, io) {
        const workspaceId = workspaceArg(values);
        const name = required(values, 'name');
        await withDatabase(io, async (pool) => {
          if (!(await findWorkspace(pool, workspaceId))) throw new UsageError(`no workspace ${workspaceId}`);
          const brand = await createBrand(pool, workspaceId, name);
          print(io, values, brandJson(brand), `Brand ${brand.id} in workspace ${workspaceId}`);
        });
      },
    },
    'brands list': {
      usage: 'herald brands list --workspace <uuid> [--json]',
      summary: 'List the brands of a workspace.',
      options: { workspace: { type: 'string' }, ...json },
      async run(values, _p, io) {
        const workspaceId = workspaceArg(values);
        await withDatabase(io, async (pool) => {
          if (!(await findWorkspace(pool, workspaceId))) throw new UsageError(`no workspace ${workspaceId}`);
          const rows = await listBrands(pool, workspaceId);
          print(
            io,
            values,
            rows.map(brandJson),
            rows.map((b) => `${b.id}  ${b.is_default ? 'default' : '       '}  ${b.name}`).join('\n'),
          );
        });
      },
    },
  };
}
