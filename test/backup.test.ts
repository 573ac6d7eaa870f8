// `herald backup` and `herald restore` on the embedded default, against real clusters: a backup is refused while
// Herald runs on the data dir, taken offline with a progress line, restored into a fresh data dir (never over a
// non-empty one without --force), and the restored cluster starts and holds the same posts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { main } from '../src/cli.ts';
import { openEmbeddedCluster } from '../src/db/embedded.ts';

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

async function cli(env: Record<string, string>, ...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (s) => (out += `${s}\n`), err: (s) => (err += `${s}\n`), env });
  return { code, out, err };
}

async function withCluster<T>(dataDir: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const cluster = await openEmbeddedCluster({ dataDir, log: quiet, postgresFlags: ['-c', 'fsync=off'] });
  try {
    const client = new pg.Client(cluster.connectionString);
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  } finally {
    await cluster.stop();
  }
}

test('backup → restore into a fresh data dir → the posts read back', { timeout: 300_000 }, async (t) => {
  const base = path.join(os.tmpdir(), `herald-backup-test-${randomBytes(4).toString('hex')}`);
  const source = `${base}-source`;
  const target = `${base}-restored`;
  const file = `${base}.tar.gz`;
  // Searchable by the postgres OS user when the tests run as root, so the cluster lives in <dataDir>/pg.
  await fs.mkdir(source, { mode: 0o711 });
  t.after(async () => {
    for (const p of [source, target, file]) await fs.rm(p, { recursive: true, force: true });
    for (const p of await fs.readdir(os.tmpdir()))
      if (p.startsWith(path.basename(base))) await fs.rm(path.join(os.tmpdir(), p), { recursive: true, force: true });
  });
  const env = (dataDir: string) => ({ HERALD_DATA_DIR: dataDir, DATABASE_URL: '', HERALD_SECRET_KEY: '', PORT: '0' });

  const init = await cli(env(source), 'init', '--json');
  assert.equal(init.code, 0, init.err);
  const { workspace_id: workspaceId, brand_id: brandId } = JSON.parse(init.out) as Record<string, string>;
  const contents = ['first post', 'second post with ünïcode', 'third'];

  // While a process owns the cluster, the backup is refused (it is an offline copy).
  await withCluster(source, async (client) => {
    for (const [i, content] of contents.entries())
      await client.query(
        `INSERT INTO posts (id, workspace_id, brand_id, content, platforms, status, created_via)
         VALUES ($1, $2, $3, $4, '{x}', 'draft', 'api')`,
        [`post_backup${i}`, workspaceId, brandId, content],
      );
    const refused = await cli(env(source), 'backup', file);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /is running on .*stop it first/);
    await assert.rejects(fs.access(file));
  });

  // An unwritable destination is one clear line, and it releases the data dir's lock (the backup below needs it).
  const nowhere = await cli(env(source), 'backup', path.join(`${base}-missing`, 'x.tar.gz'));
  assert.equal(nowhere.code, 1);
  assert.match(nowhere.err, /cannot write beside .*x\.tar\.gz/);
  await assert.rejects(fs.access(path.join(source, 'postgres.lock')), 'the lock is released');

  const backup = await cli(env(source), 'backup', file);
  assert.equal(backup.code, 0, backup.err);
  assert.match(backup.err, /^backup: 0% \(/m);
  assert.match(backup.err, /^backup: 100% \([\d.]+ MiB of [\d.]+ MiB\)$/m);
  assert.match(backup.out, /Backed up .* \([\d.]+ MiB, PostgreSQL \d+\)/);
  assert.deepEqual(
    (await fs.readdir(path.dirname(file))).filter(
      (n) => n.startsWith(path.basename(file)) && n !== path.basename(file),
    ),
    [],
    'no partial file is left behind',
  );

  // Never over a non-empty data dir without --force; a file that is no backup is refused.
  const occupied = await cli(env(source), 'restore', file);
  assert.equal(occupied.code, 1);
  assert.match(occupied.err, /is not empty.*--force/);
  const junk = `${base}-junk.tar.gz`;
  await fs.writeFile(junk, 'not a backup');
  const refusedJunk = await cli(env(target), 'restore', junk);
  assert.equal(refusedJunk.code, 1);
  assert.match(refusedJunk.err, /is not a Herald backup/);
  await assert.rejects(fs.access(target), 'a refused restore leaves no data dir');
  const truncated = `${base}-truncated.tar.gz`;
  const whole = await fs.readFile(file);
  await fs.writeFile(truncated, whole.subarray(0, Math.floor(whole.length / 2)));
  const refusedTruncated = await cli(env(target), 'restore', truncated);
  assert.equal(refusedTruncated.code, 1);
  assert.match(refusedTruncated.err, /is not a Herald backup/);
  await assert.rejects(fs.access(target), 'a truncated archive leaves no data dir');

  const restored = await cli(env(target), 'restore', file);
  assert.equal(restored.code, 0, restored.err);
  assert.match(restored.err, /^restore: 100% /m);
  for (const name of ['secret.key', 'postgres-credentials.json'])
    assert.deepEqual(await fs.readFile(path.join(target, name)), await fs.readFile(path.join(source, name)), name);
  // PostgreSQL refuses to start on a data directory others can read.
  assert.equal((await fs.stat(path.join(target, 'pg'))).mode & 0o777, 0o700);

  const rows = await withCluster(target, async (client) => {
    const res = await client.query<{ content: string }>(
      "SELECT content FROM posts WHERE id LIKE 'post_backup%' ORDER BY id",
    );
    return res.rows.map((r) => r.content);
  });
  assert.deepEqual(rows, contents);

  // Not while a Herald is starting on it (it holds the data dir's lock, before its runtime file exists); a lock
  // left by a process that died does not block.
  const lockFile = path.join(target, 'postgres.lock');
  await fs.writeFile(lockFile, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }));
  const starting = await cli(env(target), 'restore', file, '--force');
  assert.equal(starting.code, 1);
  assert.match(starting.err, new RegExp(`pid ${process.pid}\\) is starting on`));
  await fs.writeFile(lockFile, JSON.stringify({ pid: 2 ** 22 + 1, startedAt: '2026-01-01T00:00:00Z' }));

  // --force moves the present data dir aside instead of deleting it.
  const forced = await cli(env(target), 'restore', file, '--force');
  assert.equal(forced.code, 0, forced.err);
  const aside = /previous data dir is now (\S+)\./.exec(forced.out)?.[1];
  assert.ok(aside, forced.out);
  await fs.access(path.join(aside, 'pg', 'PG_VERSION'));
  await assert.rejects(fs.access(path.join(aside, 'postgres.lock')), 'no lock is left in the moved-aside dir');
  await assert.rejects(fs.access(lockFile), 'nor in the restored one');
  await fs.rm(aside, { recursive: true, force: true });
});

test('with DATABASE_URL, backup and restore point at pg_dump instead', async () => {
  const env = { DATABASE_URL: 'postgres://u@127.0.0.1:1/x', HERALD_SECRET_KEY: 'k'.repeat(40) };
  for (const command of ['backup', 'restore']) {
    const res = await cli(env, command, '/tmp/x.tar.gz');
    assert.equal(res.code, 2);
    assert.match(res.err, /pg_dump/);
  }
});
