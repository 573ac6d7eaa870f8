// The `herald` command: parses argv and runs one command. Admin commands work whether or not a server runs on
// the same data dir (with the embedded database they attach to the running cluster, or start it for the
// duration of the command). Bad arguments: one line, a usage hint, exit code 2.
import { parseArgs } from 'node:util';
import {
  commandHelp,
  json,
  print,
  UsageError,
  withDatabase,
  type Command,
  type Io,
  type Values,
} from './cli/command.ts';
import { heraldVersion } from './lib/version.ts';
import { backupCommands } from './cli/backup.ts';
import { ConfigError, loadConfig, type Role } from './config.ts';
import { aiCommands } from './features/ai/ai.cli.ts';
import { brandCommands } from './features/brands/brands.cli.ts';
import { connectionCommands } from './features/connections/connections.cli.ts';
import { keyCommands } from './features/keys/keys.cli.ts';
import { userCommands } from './features/users/users.cli.ts';
import { workspaceCommands } from './features/workspaces/workspaces.cli.ts';
import { serveUntilSignalled } from './serve.ts';
import { createConfiguredSimulators, createPlatformAccess } from './container.ts';
import { firstStart } from './first-start.ts';
import { createLogger } from './lib/logger.ts';
import { resolveKeyring } from './lib/secrets.ts';
import { createOutboundGuard } from './lib/ssrf.ts';

const COMMANDS: Record<string, Command> = {
  serve: {
    usage: 'herald serve [--role all|api|worker]',
    summary: 'Run the API and the worker (default), or one of them.',
    options: {
      role: {
        type: 'string',
        value: 'all|api|worker',
        description: 'api: only the HTTP API; worker: only publishing and webhooks; all (default): both.',
      },
    },
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
    summary:
      'Set up a new installation as the first `herald serve` does (idempotent): the owner account, the Sandbox workspace with its default brand and a sandbox connection per platform, the owner password and a first API key, shown once. Applies pending migrations first.',
    options: {
      email: { type: 'string', value: 'email', description: "The owner account's email (default HERALD_OWNER_EMAIL)." },
      ...json,
    },
    async run(values, _p, io) {
      await withDatabase(
        io,
        async (pool, config) => {
          const email = typeof values.email === 'string' ? values.email.trim() : config.ownerEmail;
          if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new UsageError('--email must be an email address');
          const logger = createLogger('silent');
          const keyring = await resolveKeyring(config, logger);
          const platformAccess = createPlatformAccess(
            config,
            keyring,
            createOutboundGuard({ allowlist: config.outboundAllowlist }),
          );
          const simulators = createConfiguredSimulators(config, keyring, pool);
          const done = await firstStart({ pool, config, logger, platformAccess, simulators }, email);
          print(
            io,
            values,
            {
              user_id: done.userId,
              email: done.email,
              workspace_id: done.workspaceId,
              brand_id: done.brandId,
              created: done.created,
              connections: done.connections,
              password: done.password,
              api_key: done.apiKey,
            },
            done.text ||
              `Already set up.\nOwner ${done.email} (${done.userId})\nSandbox workspace ${done.workspaceId}\nDefault brand ${done.brandId}`,
          );
        },
        true,
      );
    },
  },
  ...workspaceCommands(),
  ...brandCommands(),
  ...keyCommands(),
  ...userCommands(),
  ...connectionCommands(),
  ...aiCommands(),
  ...backupCommands(),
};

function helpText(): string {
  const lines = Object.values(COMMANDS).map((c) => `  ${c.usage}\n      ${c.summary}`);
  return `Usage: herald <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nherald --version prints the version. \`herald <command> --help\` (or \`herald help <command>\`) lists a command's flags. Configuration comes from environment variables (see README.md).`;
}

/** Every command, for tests and the generated CLI reference. */
export function commands(): Readonly<Record<string, Command>> {
  return COMMANDS;
}

/** The help of a command, or of every command in a group (`herald keys --help`); undefined if there is none. */
export function helpFor(words: string[]): string | undefined {
  const name = words.join(' ');
  const command = COMMANDS[name];
  if (command) return commandHelp(command);
  const group = Object.keys(COMMANDS).filter((k) => k.startsWith(`${name} `));
  if (name === '' || group.length === 0) return undefined;
  return group.map((k) => commandHelp(COMMANDS[k]!)).join('\n\n');
}

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  const [first, second] = argv;
  if (first === '--version' || first === '-v' || first === 'version') {
    io.out(`herald ${heraldVersion()}`);
    return 0;
  }
  if (first === 'help' && argv.length > 1) {
    const help = helpFor(argv.slice(1));
    if (help === undefined) {
      io.err(`herald: no command "${argv.slice(1).join(' ')}"\nRun \`herald --help\` for the list of commands.`);
      return 2;
    }
    io.out(help);
    return 0;
  }
  if (!first || first === '--help' || first === '-h' || first === 'help') {
    io.out(helpText());
    return first ? 0 : 2;
  }
  const name = [3, 2].map((n) => argv.slice(0, n).join(' ')).find((k) => COMMANDS[k]) ?? first;
  const command = COMMANDS[name];
  if (!command) {
    const group = Object.keys(COMMANDS).filter((k) => k.startsWith(`${first} `));
    if (group.length > 0 && (second === '--help' || second === '-h')) {
      io.out(helpFor([first])!);
      return 0;
    }
    if (group.length > 0) {
      const wanted =
        second && !second.startsWith('-') ? `unknown command "${first} ${second}"` : `"${first}" needs a subcommand`;
      io.err(
        `herald: ${wanted}\nUsage:\n${group.map((k) => `  ${COMMANDS[k]!.usage}`).join('\n')}\nRun \`herald ${first} --help\` for their flags.`,
      );
      return 2;
    }
    io.err(`herald: unknown command "${first}"\nRun \`herald --help\` for the list of commands.`);
    return 2;
  }
  const rest = argv.slice(name.split(' ').length);
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(commandHelp(command));
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
