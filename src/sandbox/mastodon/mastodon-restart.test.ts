// The Mastodon simulator keeps its state in the sandbox store: apps, statuses, media and Idempotency-Keys survive a
// restart on the same database, ids are never handed out twice, and two sandboxes on one database (two API nodes)
// serve the same statuses and honour each other's keys. Also: a status's page shows it as Mastodon would, and each
// request reads about a page of the store however much an account holds.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { png } from '../../../test/helpers/media-sources.ts';
import { sandboxNodes, type SandboxNodes } from '../../../test/helpers/sandbox-nodes.ts';
import { spyStore } from '../../../test/helpers/store-spy.ts';
import { startSandbox, type RunningSandbox } from '../server.ts';

const FIXED = 'mastodon-restart-test-secret';
const REDIRECT = 'http://127.0.0.1/callback';

interface Status {
  id: string;
  url: string;
  content: string;
  in_reply_to_id: string | null;
  in_reply_to_account_id: string | null;
  media_attachments: Array<{ id: string; url: string; description: string | null }>;
  account: { id: string };
}

/** Registers an app and signs in as `username` (a standalone rig may name the account); returns the app and token. */
async function signIn(base: string, username: string) {
  const app = (await (
    await fetch(`${base}/api/v1/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'restart test', redirect_uris: REDIRECT, scopes: 'read write' }),
    })
  ).json()) as { client_id: string; client_secret: string };
  const authorize = await fetch(
    `${base}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: REDIRECT,
      scope: 'read write',
      sandbox_username: username,
    })}`,
    { redirect: 'manual' },
  );
  const code = new URL(authorize.headers.get('location')!).searchParams.get('code')!;
  return { app, code, token: await exchange(base, app, code) };
}

async function exchange(base: string, app: { client_id: string; client_secret: string }, code: string) {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      client_id: app.client_id,
      client_secret: app.client_secret,
      redirect_uri: REDIRECT,
    }),
  });
  return res.status === 200 ? ((await res.json()) as { access_token: string }).access_token : undefined;
}

function api(base: string, token: string) {
  const auth = { authorization: `Bearer ${token}` };
  return {
    async status(body: Record<string, unknown>, key?: string): Promise<Status> {
      const res = await fetch(`${base}/api/v1/statuses`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 200, await res.clone().text());
      return (await res.json()) as Status;
    },
    async read(id: string): Promise<{ status: number; body: Status }> {
      const res = await fetch(`${base}/api/v1/statuses/${id}`, { headers: auth });
      return { status: res.status, body: (await res.json()) as Status };
    },
    async media(bytes: Buffer, description?: string): Promise<string> {
      const form = new FormData();
      form.set('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'image.png');
      if (description) form.set('description', description);
      const res = await fetch(`${base}/api/v2/media`, { method: 'POST', headers: auth, body: form });
      assert.equal(res.status, 200);
      return ((await res.json()) as { id: string }).id;
    },
    async statuses(accountId: string): Promise<Status[]> {
      return (await (
        await fetch(`${base}/api/v1/accounts/${accountId}/statuses`, { headers: auth })
      ).json()) as Status[];
    },
  };
}

describe('the Mastodon simulator on PostgreSQL', () => {
  let nodes: SandboxNodes;
  const start = () => nodes.start();
  const close = (sandbox: RunningSandbox) => nodes.stop(sandbox);

  before(async () => {
    nodes = await sandboxNodes(['mastodon'], FIXED);
  });
  after(() => nodes.close());

  test('a restart keeps the app, token, statuses, thread, media, keys and pages; ids are never reused', async () => {
    const first = await start();
    const base = first.baseUrl('mastodon');
    const { app, code, token } = await signIn(base, 'restart_user');
    assert.ok(token);
    const m = api(base, token);
    const image = png(40, 30, 300);
    const mediaId = await m.media(image, 'a small square');
    const root = await m.status(
      { status: 'Before the restart, see https://example.com/herald', media_ids: [mediaId] },
      'key-root',
    );
    const second = await m.status({ status: 'second part', in_reply_to_id: root.id }, 'key-2');
    const third = await m.status({ status: 'third part', in_reply_to_id: second.id }, 'key-3');
    const earlier = new Set([mediaId, root.id, second.id, third.id]);
    await close(first);

    const restartedSandbox = await start();
    const restarted = restartedSandbox.baseUrl('mastodon');
    const again = api(restarted, token);
    const read = await again.read(root.id);
    assert.equal(read.status, 200, 'the token issued before the restart still works');
    assert.ok(read.body.content.includes('Before the restart'));
    assert.deepEqual(
      read.body.media_attachments.map((a) => [a.id, a.url, a.description]),
      [[mediaId, `${restarted}/media/${mediaId}`, 'a small square']],
    );
    const replied = await again.read(third.id);
    assert.equal(replied.body.in_reply_to_id, second.id);
    assert.equal(replied.body.in_reply_to_account_id, root.account.id);
    // The spent code stays spent; the app is still registered.
    assert.equal(await exchange(restarted, app, code), undefined, 'a code is spent once, restarts included');
    // The Idempotency-Key answers the status it made before the restart instead of posting again.
    const replay = await again.status({ status: 'second part', in_reply_to_id: root.id }, 'key-2');
    assert.equal(replay.id, second.id);

    const page = await fetch(`${restarted}/@restart_user/${root.id}`);
    assert.equal(page.status, 200);
    const html = await page.text();
    for (const text of ['Before the restart', 'second part', 'third part', '@restart_user'])
      assert.ok(html.includes(text), `the page shows ${text}`);
    assert.ok(html.includes('href="https://example.com/herald"'), 'the link is live');
    assert.ok(html.includes(`<img src="${restarted}/media/${mediaId}" alt="a small square"`), 'the image is shown');
    const served = await fetch(`${restarted}/media/${mediaId}`);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), image);

    const next = await again.status({ status: 'after the restart' }, 'key-next');
    assert.ok(!earlier.has(next.id), `${next.id} is new`);
    assert.equal((await again.statuses(root.account.id)).length, 4);

    // Deleted statuses answer 404 on their page, and so does one that never was.
    const deleted = await fetch(`${restarted}/api/v1/statuses/${next.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(deleted.status, 200);
    assert.equal((await fetch(`${restarted}/@restart_user/${next.id}`)).status, 404);
    assert.equal((await fetch(`${restarted}/@restart_user/1`)).status, 404);
    assert.equal((await restartedSandbox.simulator('mastodon').posts()).filter((p) => !p.deleted).length, 3);
    await close(restartedSandbox);
  });

  test('two sandboxes on one database (two API nodes) serve the same statuses and share Idempotency-Keys', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const { token } = await signIn(a.baseUrl('mastodon'), 'two_nodes');
    assert.ok(token);
    const onA = api(a.baseUrl('mastodon'), token);
    const onB = api(b.baseUrl('mastodon'), token);
    const mediaId = await onA.media(png(3, 3));
    const viaB = await onB.status({ status: 'posted through node B', media_ids: [mediaId] });
    const viaA = await onA.status({ status: 'posted through node A' }, 'shared-key');
    assert.equal((await onA.read(viaB.id)).status, 200);
    assert.equal((await onB.read(viaA.id)).status, 200);
    assert.equal(
      (await onB.status({ status: 'posted through node A' }, 'shared-key')).id,
      viaA.id,
      'one key, one status',
    );
    // Two requests with one new key at once, one per node: one status, both answers name it.
    const [x, y] = await Promise.all([
      onA.status({ status: 'raced' }, 'race-key'),
      onB.status({ status: 'raced' }, 'race-key'),
    ]);
    assert.equal(x.id, y.id);
    const held = await onB.statuses(viaA.account.id);
    assert.deepEqual(held.map((s) => s.id).sort(), [viaA.id, viaB.id, x.id].sort());
    assert.ok((await (await fetch(`${b.baseUrl('mastodon')}/@two_nodes/${viaA.id}`)).text()).includes('node A'));
    await Promise.all([close(a), close(b)]);
  });
});

describe('the page of a Mastodon status', () => {
  let sandbox: RunningSandbox;
  before(async () => {
    sandbox = await startSandbox({ platforms: ['mastodon'] });
  });
  after(() => sandbox.close());

  test('shows the text with its link, the image and every thread part, from any part', async () => {
    const base = sandbox.baseUrl('mastodon');
    const { token } = await signIn(base, 'page_user');
    assert.ok(token);
    const m = api(base, token);
    const mediaId = await m.media(png(10, 10), 'alt words');
    const root = await m.status({ status: 'Read https://example.org/a?b=1 & <more>', media_ids: [mediaId] });
    const reply = await m.status({ status: 'and the second part', in_reply_to_id: root.id });
    assert.equal(reply.url, `${base}/@page_user/${reply.id}`);
    for (const id of [root.id, reply.id]) {
      const html = await (await fetch(`${base}/@page_user/${id}`)).text();
      assert.ok(html.includes('<a style="color:#6364FF" href="https://example.org/a?b=1"'), 'the link');
      assert.ok(html.includes('&amp; &lt;more&gt;'), 'the text escaped');
      assert.ok(html.includes(`<img src="${base}/media/${mediaId}" alt="alt words"`), 'the image');
      assert.ok(html.indexOf('Read ') < html.indexOf('and the second part'), 'the parts in order');
      assert.ok(html.includes('@page_user@'), 'the account');
    }
  });
});

describe('what a Mastodon request reads of the store', () => {
  const spy = spyStore();
  let sandbox: RunningSandbox;
  let base: string;
  let masto: ReturnType<typeof api>;
  let accountId: string;
  before(async () => {
    sandbox = await startSandbox({ platforms: ['mastodon'], store: () => spy.store });
    base = sandbox.baseUrl('mastodon');
    masto = api(base, (await signIn(base, 'busy_ann')).token!);
    for (let i = 0; i < 30; i++) accountId = (await masto.status({ status: `history ${i}` })).account.id;
  });
  after(() => sandbox.close());

  test("each page of an account's statuses reads one page, and max_id / since_id page through every status", async () => {
    const seen: string[] = [];
    const auth = { authorization: `Bearer ${(await signIn(base, 'busy_ann')).token}` };
    let maxId: string | undefined;
    for (let page = 0; page < 20; page++) {
      spy.takeScanned();
      const query = new URLSearchParams({ limit: '5', ...(maxId ? { max_id: maxId } : {}) });
      const list = (await (
        await fetch(`${base}/api/v1/accounts/${accountId}/statuses?${query}`, { headers: auth })
      ).json()) as Status[];
      assert.ok(spy.takeScanned() <= 5, `page ${page} reads one page`);
      seen.push(...list.map((s) => s.content));
      if (list.length < 5) break;
      maxId = list.at(-1)!.id;
    }
    assert.equal(seen.length, 30);
    assert.equal(new Set(seen).size, 30, 'no status twice');
    assert.equal(seen[0], '<p>history 29</p>', 'newest first');
    const newest = await masto.statuses(accountId);
    const since = (await (
      await fetch(`${base}/api/v1/accounts/${accountId}/statuses?since_id=${newest[2]!.id}`, { headers: auth })
    ).json()) as Status[];
    assert.deepEqual(
      since.map((s) => s.id),
      newest.slice(0, 2).map((s) => s.id),
    );
  });

  test("a status's page reads its thread's parts, not the account's history", async () => {
    const root = await masto.status({ status: 'thread root' });
    const second = await masto.status({ status: 'thread second', in_reply_to_id: root.id });
    await masto.status({ status: 'thread third', in_reply_to_id: second.id });
    spy.takeScanned();
    const html = await (await fetch(`${base}/@busy_ann/${second.id}`)).text();
    assert.ok(
      ['thread root', 'thread second', 'thread third'].every((t) => html.includes(t)),
      'every part shown',
    );
    assert.ok(spy.takeScanned() <= 3, 'only the three parts are read');
  });

  test('served attachments are not sniffed by browsers and run in a sandbox', async () => {
    const id = await masto.media(png(4, 4));
    const served = await fetch(`${base}/media/${id}`);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    assert.match(served.headers.get('content-security-policy') ?? '', /\bsandbox\b/);
  });
});
