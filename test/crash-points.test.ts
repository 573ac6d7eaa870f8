// The crash test's deterministic cases: a worker process (the real `herald serve --role worker`) SIGKILLed at one
// named moment, then a new worker started, and what the restart finds checked. A Threads container made but not yet
// published (media_publish in flight): the restart publishes that same container, exactly once. A token refresh
// cut at each moment around the store of its answer (a proxy between the worker and the simulators decides when
// the worker dies; the simulators' refresh tokens work once): before the platform saw it, after Herald stored the
// new pair but before it used it, and after the platform rotated the token but before Herald got the answer.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { findConnection, updateCredentials } from '../src/features/connections/connections.repo.ts';
import { addSandboxConnections } from '../src/features/connections/connections.service.ts';
import { refreshConnection } from '../src/features/connections/lifecycle.ts';
import { openCredentials, sealCredentials } from '../src/features/connections/platform-access.ts';
import { createGraphClient } from '../src/platforms/meta/graph.ts';
import { createPlatformHttp } from '../src/platforms/http.ts';
import { outboundRequest, type OutboundRequest } from '../src/lib/outbound.ts';
import type { PlatformName } from '../src/platforms/limits.ts';
import { containerState } from '../src/platforms/threads/client.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, TEST_SECRET, type TestApp } from './helpers/app.ts';
import { pollFor } from './helpers/poll.ts';
import { spawnHerald, type HeraldProcess } from './helpers/processes.ts';

let sandbox: RunningSandbox;
let t: TestApp;
let proxy: RefreshProxy;
const workers = new Set<HeraldProcess>();

/** Where a refresh passing through the proxy kills the worker: not at all, before the platform, after it. */
type Cut = 'none' | 'before_platform' | 'after_platform';

interface RefreshProxy {
  url: string;
  /** The cut the next refresh meets; back to `none` once it has killed. */
  cut: Cut;
  /** Called to kill the worker at the cut. */
  kill: () => Promise<void>;
  close(): Promise<void>;
}

/** A refresh grant (X, form body) or session refresh (Bluesky). */
function isRefresh(path: string, body: string): boolean {
  if (path.endsWith('/xrpc/com.atproto.server.refreshSession')) return true;
  return path.endsWith('/2/oauth2/token') && new URLSearchParams(body).get('grant_type') === 'refresh_token';
}

async function bodyOf(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Forwards every request to the sandbox; a refresh meets the current cut. */
async function startRefreshProxy(target: string): Promise<RefreshProxy> {
  const upstream = new URL(target);
  const state: RefreshProxy = { url: '', cut: 'none', kill: async () => {}, close: async () => {} };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      const path = req.url ?? '/';
      const cut = isRefresh(path, body.toString('utf8')) ? state.cut : 'none';
      if (cut === 'before_platform') {
        state.cut = 'none';
        await state.kill();
        res.destroy();
        return;
      }
      const forwarded = httpRequest({
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path,
        headers: { ...req.headers, host: upstream.host },
      });
      forwarded.on('error', () => res.destroy());
      forwarded.end(body);
      const answer = await new Promise<IncomingMessage>((resolve) => forwarded.once('response', resolve));
      const answerBody = await bodyOf(answer);
      if (cut === 'after_platform') {
        // The platform has rotated the token and answered; the worker dies before the answer reaches it.
        state.cut = 'none';
        await state.kill();
        res.destroy();
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      res.end(answerBody);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  state.url = `http://127.0.0.1:${address.port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

function startWorkerProcess(): HeraldProcess {
  const worker = spawnHerald(['serve', '--role', 'worker'], {
    DATABASE_URL: t.db.connectionString,
    HERALD_SECRET_KEY: TEST_SECRET,
    HERALD_PUBLIC_URL: 'http://herald.test',
    HERALD_SANDBOX_URL: proxy.url,
    HERALD_LOG_LEVEL: 'warn',
    HERALD_WORKER_POLL_INTERVAL_MS: '200',
    HERALD_HEARTBEAT_INTERVAL_MS: '250',
    HERALD_WORKER_DEAD_AFTER_MS: '1500',
    // Far longer than any wait here: a hanging call is still in flight when the test kills the worker.
    HERALD_PLATFORM_TIMEOUT_MS: '60000',
  });
  workers.add(worker);
  return worker;
}

async function kill(worker: HeraldProcess): Promise<void> {
  await worker.stop('SIGKILL');
  workers.delete(worker);
}

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret(), rateLimitFactor: 1000 });
  t = await buildTestApp({ sandboxUrl: sandbox.url });
  proxy = await startRefreshProxy(sandbox.url);
});
// Each case starts its own workers: none may take the next case's post.
afterEach(async () => {
  for (const worker of workers) await kill(worker);
  proxy.cut = 'none';
});
after(async () => {
  for (const worker of workers) await kill(worker);
  await proxy.close();
  await t.close();
  await sandbox.close();
});

interface Account {
  workspaceId: string;
  key: string;
  connectionId: string;
}

/**
 * A test workspace of its own, a key to it, and a sandbox connection on `platform` made over HTTP at this file's
 * simulators (so the account, and Bluesky's app password, live where the workers publish).
 */
async function accountOn(platform: PlatformName): Promise<Account> {
  const { workspaceId } = await t.workspace('test');
  const [connection] = await addSandboxConnections(
    { db: t.container.pool, access: t.container.platformAccess, sandboxTransport: outboundRequest },
    { workspaceId, platforms: [platform] },
  );
  return { workspaceId, key: await t.key({ workspaceIds: [workspaceId] }), connectionId: connection!.id };
}

async function publishNow(account: Account, platform: PlatformName, content: string, thread?: string[]) {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key: account.key,
    payload: {
      content,
      platforms: [platform],
      connection_ids: [account.connectionId],
      publish_now: true,
      ...(thread ? { platform_options: { [platform]: { thread } } } : {}),
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  const postId: string = res.json().data.post.id;
  return postId;
}

async function settledTarget(postId: string): Promise<{ id: string; status: string; error: { code: string } | null }> {
  return pollFor(
    `target of ${postId} settled after the restart`,
    async () => {
      const { rows } = await t.container.pool.query<{ id: string; status: string; error: { code: string } | null }>(
        "SELECT id, status, error FROM post_targets WHERE post_id = $1 AND status IN ('published', 'failed')",
        [postId],
      );
      return rows[0];
    },
    60_000,
    100,
  );
}

async function heldWith(platform: PlatformName, text: string) {
  return (await sandbox.simulator(platform).posts()).filter((p) => p.text === text && !p.deleted);
}

describe('a worker killed after a Meta container is made, before media_publish', () => {
  for (const position of [0, 1]) {
    test(
      `the restart publishes part ${position}'s recorded container, exactly once`,
      { timeout: 120_000 },
      async () => {
        const account = await accountOn('threads');
        const { workspaceId, connectionId } = account;
        const text = `container kill ${position} ${Date.now()}`;
        const texts = position === 0 ? [text] : [`${text} first`, text];
        const faults = sandbox.simulator('threads').faults;
        // media_publish (the simulator's create_post) hangs: the part's container exists and is FINISHED.
        const hangs = faults.fired().hang ?? 0;
        faults.add({ fault: 'hang', operation: 'create_post', skip: position, times: 1 });
        const worker = startWorkerProcess();
        const postId = await publishNow(account, 'threads', texts[0]!, texts.slice(1));

        await pollFor('the worker inside media_publish', async () => (faults.fired().hang ?? 0) > hangs, 60_000, 50);
        const { rows } = await t.container.pool.query<{ pending_refs: Record<string, string> }>(
          `SELECT p.pending_refs FROM target_parts p JOIN post_targets t ON t.id = p.target_id
          WHERE t.post_id = $1 AND p.position = $2`,
          [postId, position],
        );
        const container = rows[0]?.pending_refs.container;
        assert.ok(container, 'the container was recorded with the part before media_publish');
        await kill(worker);
        faults.clear();

        const connection = (await findConnection(t.container.pool, workspaceId, connectionId))!;
        const { accessToken } = openCredentials(t.container.keyring, connection.credentials);
        const graph = createGraphClient({
          http: createPlatformHttp({ baseUrl: sandbox.baseUrl('threads'), timeoutMs: 5000 }),
          version: 'v1.0',
          platform: 'Threads',
        });
        assert.equal((await containerState(graph, accessToken, container)).status, 'FINISHED');

        startWorkerProcess();
        const target = await settledTarget(postId);
        assert.equal(target.status, 'published', JSON.stringify(target.error));
        const held = await heldWith('threads', text);
        assert.equal(held.length, 1, 'published exactly once');
        assert.equal(
          (await containerState(graph, accessToken, container)).status,
          'PUBLISHED',
          'the post is the recorded container, not a second one',
        );
        const { rows: recorded } = await t.container.pool.query<{ platform_post_id: string }>(
          'SELECT platform_post_id FROM target_parts WHERE target_id = $1 AND position = $2',
          [target.id, position],
        );
        assert.equal(recorded[0]?.platform_post_id, held[0]!.id);
      },
    );
  }
});

/** Makes the connection's stored access token look expired, so the next publish refreshes it first. */
async function expireAccessToken(workspaceId: string, connectionId: string): Promise<string> {
  const row = (await findConnection(t.container.pool, workspaceId, connectionId))!;
  const credentials = openCredentials(t.container.keyring, row.credentials);
  const past = new Date(Date.now() - 60_000);
  await updateCredentials(
    t.container.pool,
    workspaceId,
    connectionId,
    sealCredentials(t.container.keyring, { ...credentials, expiresAt: past.toISOString() }),
    past,
  );
  return credentials.refreshToken!;
}

async function storedRefreshToken(workspaceId: string, connectionId: string): Promise<string | null | undefined> {
  const row = (await findConnection(t.container.pool, workspaceId, connectionId))!;
  return openCredentials(t.container.keyring, row.credentials).refreshToken;
}

/** The connection still works: POST /refresh spends its stored (single-use) refresh token and gets a new pair. */
async function assertRefreshes(key: string, workspaceId: string, connectionId: string): Promise<void> {
  const before = await storedRefreshToken(workspaceId, connectionId);
  const res = await t.inject({ method: 'POST', url: `/v1/connections/${connectionId}/refresh`, key });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().data.status, 'active');
  assert.notEqual(await storedRefreshToken(workspaceId, connectionId), before);
}

/** Starts a worker the proxy kills at `cut` on its next refresh; the function returned says whether it has died. */
function startWorkerKilledAt(cut: Exclude<Cut, 'none'>): () => boolean {
  const worker = startWorkerProcess();
  let killed = false;
  proxy.cut = cut;
  proxy.kill = async () => {
    await kill(worker);
    killed = true;
  };
  return () => killed;
}

/** Starts a new worker: it publishes `text` exactly once, and the connection still refreshes afterwards. */
async function restartPublishes(account: Account, platform: PlatformName, postId: string, text: string): Promise<void> {
  startWorkerProcess();
  const target = await settledTarget(postId);
  assert.equal(target.status, 'published', JSON.stringify(target.error));
  assert.equal((await heldWith(platform, text)).length, 1);
  await assertRefreshes(account.key, account.workspaceId, account.connectionId);
}

describe('a worker killed around a token refresh', () => {
  test('killed before the platform saw the refresh: the restart refreshes with the unspent token', async () => {
    const account = await accountOn('x');
    const { workspaceId, connectionId } = account;
    const original = await expireAccessToken(workspaceId, connectionId);
    const killed = startWorkerKilledAt('before_platform');
    const text = `refresh kill before ${Date.now()}`;
    const postId = await publishNow(account, 'x', text);
    await pollFor('the worker killed at its refresh', async () => killed(), 60_000, 50);
    assert.equal(await storedRefreshToken(workspaceId, connectionId), original, 'nothing was stored');

    await restartPublishes(account, 'x', postId, text);
  });

  test('killed after the new pair was stored, before it was used: the restart publishes with the stored pair', async () => {
    const account = await accountOn('x');
    const { workspaceId, connectionId } = account;
    const original = await expireAccessToken(workspaceId, connectionId);
    const faults = sandbox.simulator('x').faults;
    // The first call after the refresh hangs: the worker is killed while it uses the new token.
    const hangs = faults.fired().hang ?? 0;
    faults.add({ fault: 'hang', operation: 'create_post', times: 1 });
    const worker = startWorkerProcess();
    const text = `refresh kill stored ${Date.now()}`;
    const postId = await publishNow(account, 'x', text);
    await pollFor('the worker using its refreshed token', async () => (faults.fired().hang ?? 0) > hangs, 60_000, 50);
    const stored = await storedRefreshToken(workspaceId, connectionId);
    assert.ok(stored && stored !== original, 'the rotated pair was stored before anything used it');
    await kill(worker);
    faults.clear();

    await restartPublishes(account, 'x', postId, text);
  });

  test('killed after Bluesky rotated the refresh token, before Herald got it: the app password makes a new session', async () => {
    const account = await accountOn('bluesky');
    const { workspaceId, connectionId } = account;
    const original = await expireAccessToken(workspaceId, connectionId);
    const killed = startWorkerKilledAt('after_platform');
    const text = `refresh kill answered ${Date.now()}`;
    const postId = await publishNow(account, 'bluesky', text);
    await pollFor('the worker killed as the platform answered', async () => killed(), 60_000, 50);
    assert.equal(await storedRefreshToken(workspaceId, connectionId), original, 'the answer never reached Herald');

    await restartPublishes(account, 'bluesky', postId, text);
  });

  test('killed after X rotated the refresh token, before Herald got it: no client can keep it, so X asks for a reconnect and says so', async () => {
    const account = await accountOn('x');
    const { workspaceId, connectionId } = account;
    await expireAccessToken(workspaceId, connectionId);
    const killed = startWorkerKilledAt('after_platform');
    const postId = await publishNow(account, 'x', `refresh kill lost ${Date.now()}`);
    await pollFor('the worker killed as the platform answered', async () => killed(), 60_000, 50);

    startWorkerProcess();
    const target = await settledTarget(postId);
    assert.equal(target.status, 'failed');
    assert.equal(target.error?.code, 'PLATFORM_RECONNECT_REQUIRED');
    const connection = (await findConnection(t.container.pool, workspaceId, connectionId))!;
    assert.equal(connection.status, 'expired');
  });
});

describe('the database connection lost while the platform answers a refresh', () => {
  test('the rotated pair is stored on a fresh connection, not dropped with the old token spent', async () => {
    const { workspaceId, key, connectionId } = await accountOn('x');
    const original = await expireAccessToken(workspaceId, connectionId);
    const pool = t.container.pool;
    /** Ends the refresh's own transaction (its row lock) while X rotates the token. */
    const transport = async (request: OutboundRequest) => {
      if (String(request.url).endsWith('/2/oauth2/token'))
        await pool.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'idle in transaction'
              AND query LIKE '%FROM connections%FOR UPDATE%'`,
        );
      return outboundRequest(request);
    };
    const used = (await findConnection(pool, workspaceId, connectionId))!;
    const session = await refreshConnection({ pool, access: { ...t.container.platformAccess, transport } }, used);
    const stored = await storedRefreshToken(workspaceId, connectionId);
    assert.ok(stored && stored !== original, 'the new pair is stored');
    assert.equal(session.credentials.refreshToken, stored);
    await assertRefreshes(key, workspaceId, connectionId);
  });
});
