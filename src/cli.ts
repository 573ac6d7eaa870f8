// The `herald` command: parses argv and runs one command. Admin commands work whether or not a server runs on
// the same data dir (with the embedded database they attach to the running cluster, or start it for the
// duration of the command). Bad arguments: one line, a usage hint, exit code 2.
import { parseArgs } from 'node:util';
import { json, print, UsageError, withDatabase, type Command, type Io, type Values } from './cli/command.ts';
import { ConfigError, loadConfig, type Role } from './config.ts';
import { connectionCommands } from './features/connections/connections.cli.ts';
import { keyCommands } from './features/keys/keys.cli.ts';
import { userCommands } from './features/users/users.cli.ts';
import { ensureOwnerAndSandbox } from './features/workspaces/workspaces.service.ts';
import { workspaceCommands } from './features/workspaces/workspaces.cli.ts';
import { serveUntilSignalled } from './serve.ts';

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
  ...workspaceCommands(),
  ...keyCommands(),
  ...userCommands(),
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
