// `herald brands …`: the brands of a workspace from the server's shell, through the same service, checks and events
// as the API (the operator is not limited to brands). `--json` prints what the API's `data` holds.
import { readFileSync } from 'node:fs';
import { json, print, required, UsageError, withDatabase, workspaceArg, type Command } from '../../cli/command.ts';
import { AppError } from '../../app/errors.ts';
import { bodyValidator } from '../../app/validation.ts';
import { withTransaction, type Queryable } from '../../db/pool.ts';
import { findWorkspace } from '../workspaces/workspaces.repo.ts';
import { findBrandRow } from './brands.repo.ts';
import { CreateBrandBody, UpdateBrandBody } from './brands.schemas.ts';
import {
  brandContext,
  brandContextJson,
  createBrand,
  deleteBrand,
  getBrand,
  listBrands,
  updateBrand,
  type BrandsContext,
} from './brands.service.ts';

const workspace = {
  workspace: {
    type: 'string',
    value: 'uuid',
    description: 'The workspace (its UUID, as `herald workspaces list` shows).',
  },
} as const;
const brand = { brand: { type: 'string', value: 'id', description: 'The brand (its id).' } } as const;
const data = {
  data: {
    type: 'string',
    value: 'json|@file',
    description: 'Brand fields as JSON (as the API body takes them), or @path to read them from a file.',
  },
} as const;

function operatorContext(db: Queryable, workspaceId: string): BrandsContext {
  return { db, workspaceId, allowedBrandIds: null, brandId: null, brandFromHeader: false };
}

/** `--data '{…}'` or `--data @file.json`: the fields of the brand, as the API's body takes them. */
function dataArg(value: string | boolean | undefined): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== 'string') throw new UsageError('--data takes JSON or @file');
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = readFileSync(value.slice(1), 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read ${value.slice(1)}: ${(error as Error).message}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError('--data is not valid JSON');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError('--data must be an object');
  return parsed as Record<string, unknown>;
}

/** Checks the body with the API's own schema; each problem on a line, as the API's `details` say it. */
function checked<T>(schema: object, body: Record<string, unknown>): T {
  const validate = bodyValidator(schema);
  if (!validate(body)) {
    const lines = (validate.errors ?? []).map((e) => `  ${e.instancePath || '/'}: ${e.message ?? 'invalid'}`);
    throw new UsageError(`the brand is invalid:\n${lines.join('\n')}`);
  }
  return body as T;
}

/** An API error as the CLI prints it: the message, then each detail. */
function explained(error: unknown): never {
  if (error instanceof AppError) {
    const details = (error.details ?? []).map((d) => `\n  ${d.path ?? ''}: ${d.message}`).join('');
    throw new Error(`${error.message}${details}`, { cause: error });
  }
  throw error;
}

async function inWorkspace(pool: Queryable, workspaceId: string): Promise<void> {
  if (!(await findWorkspace(pool, workspaceId))) throw new UsageError(`no workspace ${workspaceId}`);
}

function line(b: Record<string, unknown>): string {
  return `${String(b.id)}  ${b.is_default ? 'default' : '       '}  v${String(b.version)}  ${String(b.slug)}  ${String(b.name)}`;
}

export function brandCommands(): Record<string, Command> {
  return {
    'brands list': {
      usage: 'herald brands list --workspace <uuid> [--limit <n>] [--cursor <c>] [--json]',
      summary: 'List the brands of a workspace (a page, as GET /v1/brands: 100 by default).',
      options: {
        ...workspace,
        limit: { type: 'string', value: 'n', description: 'At most this many brands per page.' },
        cursor: { type: 'string', value: 'c', description: 'The next_cursor of the previous page.' },
        ...json,
      },
      async run(values, _p, io) {
        const workspaceId = workspaceArg(values);
        const limit = values.limit === undefined ? 100 : Number(values.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new UsageError('--limit must be 1 to 100');
        await withDatabase(io, async (pool) => {
          await inWorkspace(pool, workspaceId);
          const page = await listBrands(operatorContext(pool, workspaceId), {
            limit,
            cursor: typeof values.cursor === 'string' ? values.cursor : undefined,
          }).catch(explained);
          const more = page.has_more ? `\n(more: --cursor ${page.next_cursor})` : '';
          print(io, values, page, page.items.map(line).join('\n') + more);
        });
      },
    },
    'brands show': {
      usage: 'herald brands show --workspace <uuid> --brand <id> [--context] [--json]',
      summary: 'Show a brand, or with --context its compiled brand context (GET /v1/brands/{id}/context).',
      options: {
        ...workspace,
        ...brand,
        context: { type: 'boolean', description: "Show the brand's full context document too." },
        ...json,
      },
      async run(values, _p, io) {
        const workspaceId = workspaceArg(values);
        const id = required(values, 'brand');
        await withDatabase(io, async (pool) => {
          await inWorkspace(pool, workspaceId);
          const ctx = operatorContext(pool, workspaceId);
          if (values.context) {
            const context = brandContextJson(await brandContext(ctx, id).catch(explained));
            const cut = context.truncated.length > 0 ? `\n\n(cut to fit: ${context.truncated.join(', ')})` : '';
            print(io, values, context, context.text + cut);
            return;
          }
          const b = await getBrand(ctx, id).catch(explained);
          print(io, values, b, JSON.stringify(b, null, 2));
        });
      },
    },
    'brands create': {
      usage: 'herald brands create --workspace <uuid> --name <name> [--slug <slug>] [--data <json>|@<file>] [--json]',
      summary: 'Create a brand; --data takes any other field of POST /v1/brands (voice, rules, banned_terms …).',
      options: {
        ...workspace,
        name: { type: 'string', value: 'name', description: 'The brand name.' },
        slug: {
          type: 'string',
          value: 'slug',
          description: 'A short unique name (derived from the name when omitted).',
        },
        ...data,
        ...json,
      },
      async run(values, _p, io) {
        const workspaceId = workspaceArg(values);
        const body = { ...dataArg(values.data), name: required(values, 'name') } as Record<string, unknown>;
        if (typeof values.slug === 'string') body.slug = values.slug;
        const input = checked<CreateBrandBody>(CreateBrandBody, body);
        await withDatabase(io, async (pool) => {
          await inWorkspace(pool, workspaceId);
          const b = await withTransaction(pool, (tx) => createBrand(operatorContext(tx, workspaceId), input)).catch(
            explained,
          );
          print(io, values, b, `Brand ${String(b.id)} (${String(b.slug)}) in workspace ${workspaceId}`);
        });
      },
    },
    'brands update': {
      usage: 'herald brands update --workspace <uuid> --brand <id> --data <json>|@<file> [--version <n>] [--json]',
      summary:
        'Change a brand (a merge patch, as PATCH /v1/brands/{id}); without --version, the version current now is used.',
      options: {
        ...workspace,
        ...brand,
        ...data,
        version: {
          type: 'string',
          value: 'n',
          description: 'Update only if the brand is still at this version (optimistic locking).',
        },
        ...json,
      },
      async run(values, _p, io) {
        const workspaceId = workspaceArg(values);
        const id = required(values, 'brand');
        if (values.data === undefined) throw new UsageError('--data is required');
        const patch = dataArg(values.data);
        await withDatabase(io, async (pool) => {
          await inWorkspace(pool, workspaceId);
          const b = await withTransaction(pool, async (tx) => {
            const ctx = operatorContext(tx, workspaceId);
            let version = values.version === undefined ? undefined : Number(values.version);
            if (version === undefined) version = (await findBrandRow(tx, workspaceId, id, true))?.version ?? 1;
            const input = checked<UpdateBrandBody>(UpdateBrandBody, { ...patch, version });
            return updateBrand(ctx, id, input);
          }).catch(explained);
          print(io, values, b, `Brand ${String(b.id)} is at version ${String(b.version)}`);
        });
      },
    },
    'brands delete': {
      usage: 'herald brands delete --workspace <uuid> --brand <id> [--json]',
      summary: 'Delete a brand (never the default one; refused while it has posts to publish or connected accounts).',
      options: { ...workspace, ...brand, ...json },
      async run(values, _p, io) {
        const workspaceId = workspaceArg(values);
        const id = required(values, 'brand');
        await withDatabase(io, async (pool) => {
          await inWorkspace(pool, workspaceId);
          const done = await withTransaction(pool, (tx) => deleteBrand(operatorContext(tx, workspaceId), id)).catch(
            explained,
          );
          print(io, values, done, `Brand ${id} deleted`);
        });
      },
    },
  };
}
