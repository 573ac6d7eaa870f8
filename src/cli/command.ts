// What every `herald` command is made of: its declaration, the input and output it gets, argument checks and
// the database an admin command opens (migrated, or refused). Feature folders declare their commands with it.
import type { ParseArgsOptionDescriptor } from 'node:util';
import { loadConfig, type Config } from '../config.ts';
import { openDatabase } from '../db/connect.ts';
import { migrate, pendingMigrations } from '../db/migrate.ts';
import { createPool, type Pool } from '../db/pool.ts';
import { ownerUserId } from '../features/workspaces/workspaces.service.ts';
import { getSetting, PUBLIC_URL_SETTING } from '../features/workspaces/workspaces.repo.ts';
import { isUuid } from '../lib/ids.ts';

export class UsageError extends Error {}

/** A flag as declared: what parseArgs needs, and the sentence `--help` shows for it (help is built from these). */
export type Option = ParseArgsOptionDescriptor & {
  description: string;
  /** The value's name in help (`--workspace <id>`); string flags only. */
  value?: string;
};
export type Options = Record<string, Option>;
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

export const json = {
  json: { type: 'boolean', description: 'Print JSON (the same shape as the API) instead of text.' },
} as const satisfies Options;

/** `--help` for one command: usage, summary, and every flag it declares with its sentence. */
export function commandHelp(command: Command): string {
  const flags = Object.entries(command.options).map(([name, option]) => {
    const short = option.short ? `-${option.short}, ` : '';
    const value = option.type === 'string' ? ` <${option.value ?? 'value'}>` : '';
    return [`${short}--${name}${value}`, option.description] as const;
  });
  flags.push(['-h, --help', 'Show this help.']);
  const width = Math.max(...flags.map(([f]) => f.length));
  const lines = flags.map(([f, d]) => `  ${f.padEnd(width)}  ${d}`);
  return `Usage: ${command.usage}\n\n${command.summary}\n\nOptions:\n${lines.join('\n')}`;
}

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
    return await fn(pool, await withServerAddress(pool, config));
  } finally {
    await pool.end();
    await database.close();
  }
}

/**
 * The CLI builds links (connect links) from the public URL. Unless HERALD_PUBLIC_URL is set for the command
 * itself, that is the one the API server last started with (it records it), not this process's own default
 * HOST:PORT, which need not be where the server listens.
 */
async function withServerAddress(pool: Pool, config: Config): Promise<Config> {
  if (!config.publicUrlDefaulted) return config;
  const recorded = await getSetting(pool, PUBLIC_URL_SETTING).catch(() => undefined);
  if (!recorded) return config;
  const sandboxDefaulted = config.sandbox.url === `${config.publicUrl}/sandbox`;
  return {
    ...config,
    publicUrl: recorded,
    sandbox: sandboxDefaulted ? { ...config.sandbox, url: `${recorded}/sandbox` } : config.sandbox,
  };
}

/** The owner account's user id; a usage error before `herald init`. */
export async function ownerOf(pool: Pool): Promise<string> {
  const id = await ownerUserId(pool);
  if (!id) throw new UsageError('no owner account yet; run `herald init` (or start the server once) first');
  return id;
}
