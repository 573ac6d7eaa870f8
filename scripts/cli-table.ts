// Prints the README's table of `herald` commands from the commands' own declarations (usage and summary); the
// README test keeps the two equal. Each command's flags, with a sentence each, are in `herald <command> --help`.
import { commands } from '../src/cli.ts';

export function cliTable(): string {
  const escape = (text: string) => text.replace(/\|/g, '\\|');
  const rows = Object.values(commands()).map((c) => `| \`${escape(c.usage)}\` | ${escape(c.summary)} |`);
  return ['| Command | What it does |', '|---|---|', ...rows].join('\n');
}

if (import.meta.main) console.log(cliTable());
