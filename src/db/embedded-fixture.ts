// Test fixture for embedded.test.ts: a separate process that opens the embedded cluster of a data dir, prints
// one JSON line describing it, then stops it and exits when told "stop" on stdin (or when stdin closes).
// Usage: node src/db/embedded-fixture.ts <dataDir> [--exit-without-stop]

import { createInterface } from 'node:readline';
import pg from 'pg';
import { openEmbeddedCluster } from './embedded.ts';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: embedded-fixture.ts <dataDir>');
const log = {
  info: (msg: string) => process.stderr.write(`info: ${msg}\n`),
  warn: (msg: string) => process.stderr.write(`warn: ${msg}\n`),
  error: (msg: string) => process.stderr.write(`error: ${msg}\n`),
};

const cluster = await openEmbeddedCluster({ dataDir, log });
const client = new pg.Client(cluster.connectionString);
await client.connect();
const { rows } = await client.query<{ one: number }>('select 1 as one');
await client.end();
process.stdout.write(
  `${JSON.stringify({ pid: process.pid, owned: cluster.owned, connectionString: cluster.connectionString, one: rows[0]?.one })}\n`,
);
// Models an owning command that forgets stop(): only the module's exit hook runs.
if (process.argv.includes('--exit-without-stop')) process.exit(0);

let stopping = false;
const finish = async () => {
  if (stopping) return;
  stopping = true;
  await cluster.stop();
  process.stdout.write('stopped\n');
  process.exit(0);
};
const input = createInterface({ input: process.stdin });
input.on('line', (line) => void (line.trim() === 'stop' && finish()));
input.on('close', () => void finish());
