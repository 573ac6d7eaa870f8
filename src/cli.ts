// The `herald` command: parses argv and runs one command. Admin commands work whether or not a server runs on
// the same data dir (with the embedded database they attach to the running cluster, or start it for the
// duration of the command). Bad arguments: one line, a usage hint, exit code 2.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, loadConfig, type Config, type Role } from './config.ts';
import { openDatabase } from './db/connect.ts';
import { migrate, pendingMigrations } from './db/migrate.ts';
import { createPool, type Pool } from './db/pool.ts';
import { connectionCommands } from './features/connections/connections.cli.ts';
import { createKey, keyJson, KeyInputError, listKeys, revokeKey } from './features/keys/keys.service.ts';
import { parseScopes, SCOPES } from './features/keys/scopes.ts';
import { listAllWorkspaces, listBrands, findWorkspace } from './features/workspaces/workspaces.repo.ts';
import {
  brandJson,
  createBrand,
  createWorkspace,
  ensureOwnerAndSandbox,
  ownerUserId,
  workspaceJson,
} from './features/workspaces/workspaces.service.ts';
import { generatePassword } from './features/users/passwords.ts';
import { createUser, ensurePassword, setPassword, UserInputError } from './features/users/users.service.ts';
import type { MemberRole } from './features/workspaces/workspaces.repo.ts';
import { isUuid } from './lib/ids.ts';
import { serveUntilSignalled } from './serve.ts';

export class UsageError extends Error {}

export type Options = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | undefined>;

export interface Command {
  usage: string;
  summary: string;
  options: Options;
  /** Positional arguments it takes (names, for the usage line). */
  positionals?: string[];
  run(values: Values, positionals: string[], io: Io): Promise<void>;
}

export interface Io {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
  /** Reads a secret: typed without echo at a terminal (asked twice), else the first line of stdin. */
  readSecret?(prompt: string): Promise<string>;
}

export const json = { json: { type: 'boolean' } } as const satisfies Options;

export function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value.trim();
}

export function workspaceArg(values: Values, name = 'workspace'): string {
  const id = required(values, name).toLowerCase();
  if (!isUuid(id)) throw new UsageError(`--${name} must be a workspace UUID (got "${values[name]}")`);
  return id;
}

export function print(io: Io, values: Values, data: unknown, human: string): void {
  io.out(values.json ? JSON.stringify(data, null, 2) : human);
}

/** Opens the database for an admin command; refuses to work on an unmigrated database unless `migrating`. */
export async function withDatabase<T>(
  io: Io,
  fn: (pool: Pool, config: Config) => Promise<T>,
  migrating = false,
): Promise<T> {
  const config = loadConfig(io.env);
  const quiet = { info: () => {}, warn: (m: string) => io.err(m), error: (m: string) => io.err(m) };
  const database = await openDatabase(config, quiet);
  const pool = createPool(database.connectionString, 2, 'herald-cli');
  try {
    if (migrating) {
      await migrate(pool);
    } else {
      const pending = await pendingMigrations(pool);
      if (pending.length > 0)
        throw new UsageError(
          `the database is not migrated (${pending.length} pending); run \`herald migrate\` or \`herald init\` first`,
        );
    }
    return await fn(pool, config);
  } finally {
    await pool.end();
    await database.close();
  }
}

async function owner(pool: Pool): Promise<string> {
  const id = await ownerUserId(pool);
  if (!id) throw new UsageError('no owner account yet; run `herald init` (or start the server once) first');
  return id;
}

const COMMANDS: Record<string, Command> = {
  serve: {
    usage: 'herald serve [--role all|api|worker]',
    summary: 'Run the API and the worker (default), or one of them.',
    options: { role: { type: 'string' } },
    async run(values, _p, io) {
      const role = (values.role ?? 'all') as Role;
      if (!['all', 'api', 'worker'].includes(role)) throw new UsageError('--role must be all, api or worker');
      await serveUntilSignalled(loadConfig(io.env), role);
    },
  },
  migrate: {
    usage: 'herald migrate',
    summary: 'Apply pending database migrations.',
    options: {},
    async run(_v, _p, io) {
      await withDatabase(io, async () => io.out('Database migrated.'), true);
    },
  },
  init: {
    usage: 'herald init [--email <email>] [--json]',
    summary: 'Ensure the owner account and the Sandbox workspace with its default brand exist (idempotent).',
    options: { email: { type: 'string' }, ...json },
    async run(values, _p, io) {
      await withDatabase(
        io,
        async (pool, config) => {
          const email = typeof values.email === 'string' ? values.email.trim() : config.ownerEmail;
          if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new UsageError('--email must be an email address');
          const boot = await ensureOwnerAndSandbox(pool, email);
          print(
            io,
            values,
            { user_id: boot.userId, workspace_id: boot.workspaceId, brand_id: boot.brandId },
            `Owner ${boot.email} (${boot.userId})\nSandbox workspace ${boot.workspaceId}\nDefault brand ${boot.brandId}`,
          );
        },
        true,
      );
    },
  },
  'workspaces create': {
    usage: 'herald workspaces create --name <name> [--mode live|test] [--json]',
    summary: 'Create a workspace (live by default) with its default brand, owned by the owner account.',
    options: { name: { type: 'string' }, mode: { type: 'string' }, ...json },
    async run(values, _p, io) {
      const name = required(values, 'name');
      const mode = (values.mode ?? 'live') as 'live' | 'test';
      if (mode !== 'live' && mode !== 'test') throw new UsageError('--mode must be live or test');
      await withDatabase(io, async (pool) => {
        const made = await createWorkspace(pool, { name, mode, ownerUserId: await owner(pool) });
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
  'keys create': {
    usage:
      'herald keys create --workspace <uuid>[,<uuid>…] --name <name> --scopes <csv|all> [--expires-at <iso>] [--json]',
    summary: `Create an API key for the owner account, limited to the given workspaces. Scopes: ${SCOPES.join(', ')}.`,
    options: {
      workspace: { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      'expires-at': { type: 'string' },
      ...json,
    },
    async run(values, _p, io) {
      const ids = required(values, 'workspace')
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean);
      const bad = ids.filter((id) => !isUuid(id));
      if (ids.length === 0 || bad.length > 0)
        throw new UsageError(
          `--workspace must be workspace UUIDs separated by commas (bad: ${bad.join(', ') || 'none given'})`,
        );
      const name = required(values, 'name');
      const parsed = parseScopes(required(values, 'scopes'));
      if ('unknown' in parsed)
        throw new UsageError(
          `unknown scope ${parsed.unknown.join(', ')}; use "all" or a comma list of: ${SCOPES.join(', ')}`,
        );
      let expiresAt: Date | null = null;
      if (typeof values['expires-at'] === 'string') {
        const raw = values['expires-at'];
        expiresAt = new Date(raw);
        if (!/(Z|[+-]\d\d:?\d\d)$/i.test(raw) || Number.isNaN(expiresAt.getTime()))
          throw new UsageError('--expires-at must be an ISO 8601 time with a zone, e.g. 2027-01-01T00:00:00Z');
      }
      await withDatabase(io, async (pool) => {
        try {
          const { row, key } = await createKey(pool, {
            userId: await owner(pool),
            name,
            scopes: parsed.scopes,
            workspaceIds: [...new Set(ids)],
            expiresAt,
          });
          print(
            io,
            values,
            {
              id: row.id,
              key,
              scopes: row.scopes,
              expires_at: row.expires_at?.toISOString() ?? null,
              workspace_ids: row.workspace_ids,
            },
            `Key ${row.id} (shown once, store it now):\n${key}`,
          );
        } catch (error) {
          if (error instanceof KeyInputError) throw new UsageError(error.message);
          throw error;
        }
      });
    },
  },
  'keys list': {
    usage: 'herald keys list [--json]',
    summary: 'List API keys (never the keys themselves).',
    options: { ...json },
    async run(values, _p, io) {
      await withDatabase(io, async (pool) => {
        const rows = await listKeys(pool);
        const state = (k: (typeof rows)[number]) =>
          k.revoked_at ? 'revoked' : k.expires_at && k.expires_at < new Date() ? 'expired' : 'active';
        // An OAuth grant shows its newest key; revoking that key revokes the grant.
        const label = (k: (typeof rows)[number]) =>
          k.grant_id ? `OAuth: ${k.client_name ?? 'unknown client'} (grant ${k.grant_id}, renewed hourly)` : k.name;
        print(
          io,
          values,
          rows.map(keyJson),
          rows.map((k) => `${k.id}  ${k.prefix}…${k.last4}  ${state(k).padEnd(7)}  ${label(k)}`).join('\n') ||
            '(no keys)',
        );
      });
    },
  },
  'users create': {
    usage: 'herald users create --email <email> --workspace <uuid> --role owner|admin|member [--json]',
    summary:
      'Add a person to a workspace (creating the account if needed); a new account gets a generated password, shown once.',
    options: { email: { type: 'string' }, workspace: { type: 'string' }, role: { type: 'string' }, ...json },
    async run(values, _p, io) {
      const email = required(values, 'email');
      const workspaceId = workspaceArg(values);
      const role = required(values, 'role') as MemberRole;
      if (!['owner', 'admin', 'member'].includes(role)) throw new UsageError('--role must be owner, admin or member');
      await withDatabase(io, async (pool) => {
        try {
          const made = await createUser(pool, { email, workspaceId, role });
          const password = made.created ? await ensurePassword(pool, made.userId) : undefined;
          print(
            io,
            values,
            {
              user_id: made.userId,
              email: made.email,
              workspace_id: workspaceId,
              role,
              created: made.created,
              password: password ?? null,
            },
            `${made.created ? 'Created' : 'Updated'} ${made.email} (${made.userId}): ${role} of workspace ${workspaceId}.` +
              (password ? `\nPassword (shown once, share it safely): ${password}` : ''),
          );
        } catch (error) {
          if (error instanceof UserInputError) throw new UsageError(error.message);
          throw error;
        }
      });
    },
  },
  'users set-password': {
    usage: 'herald users set-password <email> [--generate] [--json]',
    summary:
      "Set a person's password (typed without echo, or the first line of stdin; --generate makes one and shows it once). Signs them out everywhere.",
    options: { generate: { type: 'boolean' }, ...json },
    positionals: ['email'],
    async run(values, positionals, io) {
      const email = positionals[0];
      if (!email) throw new UsageError('the email is required');
      let password: string;
      if (values.generate) {
        password = generatePassword();
      } else {
        if (!io.readSecret) throw new UsageError('no way to read a password here; use --generate');
        password = await io.readSecret(`New password for ${email}: `);
      }
      await withDatabase(io, async (pool) => {
        try {
          const result = await setPassword(pool, email, password);
          print(
            io,
            values,
            { user_id: result.userId, sessions_ended: result.sessionsEnded, ...(values.generate ? { password } : {}) },
            `Password of ${email} set${result.sessionsEnded > 0 ? `; ${result.sessionsEnded} session(s) signed out` : ''}.` +
              (values.generate ? `\nPassword (shown once): ${password}` : ''),
          );
        } catch (error) {
          if (error instanceof UserInputError) throw new UsageError(error.message);
          throw error;
        }
      });
    },
  },
  'keys revoke': {
    usage: 'herald keys revoke <key-id>',
    summary: 'Revoke a key; every server stops accepting it within a second. Revoking an OAuth key revokes its grant.',
    options: { ...json },
    positionals: ['key-id'],
    async run(values, positionals, io) {
      const id = positionals[0];
      if (!id) throw new UsageError('the key id is required');
      await withDatabase(io, async (pool) => {
        const row = await revokeKey(pool, id);
        if (!row) throw new UsageError(`no key ${id}`);
        print(io, values, keyJson(row), `Key ${id} revoked.`);
      });
    },
  },
  ...connectionCommands(),
};

function helpText(): string {
  const lines = Object.values(COMMANDS).map((c) => `  ${c.usage}\n      ${c.summary}`);
  return `Usage: herald <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nEvery command takes --help. Configuration comes from environment variables (see README.md).`;
}

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  const [first, second] = argv;
  if (!first || first === '--help' || first === '-h' || first === 'help') {
    io.out(helpText());
    return first ? 0 : 2;
  }
  const name = [3, 2].map((n) => argv.slice(0, n).join(' ')).find((k) => COMMANDS[k]) ?? first;
  const command = COMMANDS[name];
  if (!command) {
    const group = Object.keys(COMMANDS).filter((k) => k.startsWith(`${first} `));
    if (group.length > 0) {
      const wanted =
        second && !second.startsWith('-') ? `unknown command "${first} ${second}"` : `"${first}" needs a subcommand`;
      io.err(`herald: ${wanted}\nUsage:\n${group.map((k) => `  ${COMMANDS[k]!.usage}`).join('\n')}`);
      return second === '--help' || second === '-h' ? 0 : 2;
    }
    io.err(`herald: unknown command "${first}"\nRun \`herald --help\` for the list of commands.`);
    return 2;
  }
  const rest = argv.slice(name.split(' ').length);
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(`Usage: ${command.usage}\n\n${command.summary}`);
    return 0;
  }
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: command.options,
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length > (command.positionals?.length ?? 0))
      throw new UsageError(`unexpected argument "${positionals.at(-1)}"`);
    await command.run(values as Values, positionals, io);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`herald ${name}: ${(error as Error).message}\nUsage: ${command.usage}`);
      return 2;
    }
    if (error instanceof ConfigError) {
      io.err(`herald: ${error.message}`);
      return 2;
    }
    io.err(`herald ${name}: ${(error as Error).message}`);
    return 1;
  }
}
