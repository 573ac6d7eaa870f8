// The owner's password at first start: printed once with the key, it signs in; a second start prints nothing.
// An owner left without a password (an install older than sign-in) gets one at the next start, printed once.
// The banner's Try command, pasted into a shell as printed, publishes on every platform it names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/lib/logger.ts';
import { startHerald } from '../src/serve.ts';
import { TEST_SECRET } from './helpers/app.ts';
import { createTestDatabase } from './helpers/db.ts';
import { Browser, signIn } from './helpers/oauth.ts';
import { pollFor } from './helpers/poll.ts';
import { freePort } from './helpers/ports.ts';

/**
 * Runs the banner's command verbatim with a shell. The status code comes from a `.curlrc` (`write-out`) that curl
 * reads from CURL_HOME, so that the command itself is not altered to show it.
 */
async function runPasted(command: string): Promise<{ status: number; body: string }> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'herald-try-'));
  try {
    await writeFile(path.join(home, '.curlrc'), 'silent\nwrite-out = "\\n%{http_code}"\n');
    const { stdout } = await promisify(execFile)('sh', ['-c', command], { env: { ...process.env, CURL_HOME: home } });
    const cut = stdout.lastIndexOf('\n');
    return { status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) };
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** The Try command as printed: from after `Try: ` to the end of its continuation line. */
function tryCommand(printed: string): string {
  const command = /^Try: (curl [^\n]*\\\n[^\n]*)$/m.exec(printed)?.[1];
  assert.ok(command, `a Try command is printed:\n${printed}`);
  return command;
}

test('first start prints the owner password once (it signs in) and a Try command that publishes when pasted; later starts print none unless the owner has none', async () => {
  const db = await createTestDatabase();
  const config = loadConfig({
    DATABASE_URL: db.connectionString,
    HERALD_SECRET_KEY: TEST_SECRET,
    // A real port: the banner prints the public URL, and the pasted command must reach this server through it.
    PORT: String(await freePort()),
    HERALD_OWNER_EMAIL: 'boss@example.com',
  });
  const logger = createLogger('silent');
  const start = async () => {
    let printed = '';
    const running = await startHerald(config, 'all', { logger, print: (text) => (printed += text) });
    return { running, printed: () => printed };
  };
  try {
    const first = await start();
    const password = /Password\s+(\S+)/.exec(first.printed())?.[1];
    assert.ok(password, `a password is printed:\n${first.printed()}`);
    assert.match(first.printed(), /API key\s+hk_test_/);
    const browser = new Browser(first.running.url!);
    assert.equal((await signIn(browser, 'boss@example.com', password)).status, 303);

    // The Try command works when pasted: every platform it names publishes; the ones it leaves out are named.
    const command = tryCommand(first.printed());
    const named = (JSON.parse(/-d '([^']*)'/.exec(command)![1]!) as { platforms: string[] }).platforms;
    const connected = /Connections\s+(.*)\(simulated\)/.exec(first.printed())![1]!.match(/[a-z]+(?= @)/g)!;
    const leftOut = /\(Not ([a-z, ]+(?: or [a-z]+)?):/.exec(first.printed())?.[1]?.split(/, | or /) ?? [];
    assert.deepEqual([...named, ...leftOut].sort(), [...connected].sort(), 'every connection is named or left out');
    assert.ok(named.length >= 6, `the command names the text platforms: ${named.join(', ')}`);
    const pasted = await runPasted(command);
    assert.ok([201, 202].includes(pasted.status), `the pasted command answers ${pasted.status}: ${pasted.body}`);
    const postId = (JSON.parse(pasted.body) as { data: { post_id: string } }).data.post_id;
    const key = /API key\s+(hk_test_\w+)/.exec(first.printed())![1]!;
    type Post = { status: string; targets: Array<{ platform: string; status: string; error: unknown }> };
    const post = await pollFor(
      'the pasted post settles',
      async () => {
        const res = await fetch(`${first.running.url}/v1/posts/${postId}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        const p = ((await res.json()) as { data: Post }).data;
        return ['published', 'partially_published', 'failed'].includes(p.status) ? p : undefined;
      },
      60_000,
      100,
    );
    assert.equal(post.status, 'published', JSON.stringify(post.targets));
    assert.deepEqual(post.targets.map((target) => target.platform).sort(), [...named].sort());
    for (const target of post.targets) assert.equal(target.status, 'published', target.platform);
    await first.running.stop();

    const second = await start();
    assert.doesNotMatch(second.printed(), /Password/);
    await second.running.container.pool.query(`UPDATE users SET password_hash = NULL WHERE email = 'boss@example.com'`);
    await second.running.stop();

    const third = await start();
    assert.match(third.printed(), /had no password\. This is shown once:\n\s+Password\s+\S+/);
    assert.doesNotMatch(third.printed(), /API key/);
    await third.running.stop();
  } finally {
    await db.drop();
  }
});
