#!/usr/bin/env node
// `herald-client`, the command (docs/ci-cd.md): runs the commands of commands.ts and exits with their code.
import { main } from './commands.js';
import type { Io } from './output.js';

const io: Io = { out: (line) => process.stdout.write(`${line}\n`), err: (line) => process.stderr.write(`${line}\n`) };
// The one place the command reads its environment (HERALD_URL, HERALD_API_KEY, HERALD_WORKSPACE, CI run ids).
process.exitCode = await main(process.argv.slice(2), io, process.env);
