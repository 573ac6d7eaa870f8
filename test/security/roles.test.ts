// Attack class: a member acting beyond their role. Memberships carry owner | admin | member, and every surface
// must read a credential through its owner's CURRENT role in the workspace: a member's key (however it was made)
// cannot manage webhooks or connect accounts, a member cannot consent an assistant to more than their role, a
// demoted admin loses the admin-only scopes within a second, and the CLI never mints a key beyond a role.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../src/cli.ts';
import { insertKey } from '../../src/features/keys/keys.repo.ts';
import { createKey } from '../../src/features/keys/keys.service.ts';
import { SCOPES } from '../../src/features/keys/scopes.ts';
import { addMembership } from '../../src/features/workspaces/workspaces.repo.ts';
import { describeApiKey, generateApiKey, sha256 } from '../../src/lib/crypto.ts';
import { newId } from '../../src/lib/ids.ts';
import { TEST_SECRET } from '../helpers/app.ts';
import { Browser, createPerson, hiddenField, listenTestApp, signIn, type ListeningApp } from '../helpers/oauth.ts';
import { oauthRequests, pkce, REDIRECT } from '../helpers/oauth-requests.ts';

let t: ListeningApp;
const mia = { email: 'mia.member@example.com', password: 'a long enough password' };
const adam = { email: 'adam.admin@example.com', password: 'a long enough password' };
let miaId: string;
let adamId: string;

before(async () => {
  t = await listenTestApp();
  miaId = await createPerson(t, mia.email, mia.password, [{ workspaceId: t.owner.workspaceId, role: 'member' }]);
  adamId = await createPerson(t, adam.email, adam.password, [{ workspaceId: t.owner.workspaceId, role: 'admin' }]);
});
after(() => t.close());

const { register, authorizeUrl } = oauthRequests(() => t);

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const env = { DATABASE_URL: t.db.connectionString, HERALD_SECRET_KEY: TEST_SECRET };
  const code = await main(argv, { out: (s) => (out += `${s}\n`), err: (s) => (err += `${s}\n`), env });
  return { code, out, err };
}

/** A key holding every scope for `userId`, written straight to the table: what a database from before roles holds. */
async function legacyKey(userId: string): Promise<string> {
  const key = generateApiKey('test');
  await insertKey(t.container.pool, {
    id: newId('key'),
    userId,
    name: 'minted before roles',
    tokenHash: sha256(key),
    ...describeApiKey(key),
    scopes: [...SCOPES],
    workspaceIds: [t.owner.workspaceId],
    brandIds: null,
    expiresAt: null,
  });
  return key;
}

const count = async (table: string) =>
  (await t.container.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;

/** Polls `probe` until it returns `want`, with a generous ceiling; logs how long it took. */
async function until(what: string, probe: () => Promise<number>, want: number): Promise<void> {
  const started = Date.now();
  let last = 0;
  while (Date.now() - started < 15_000) {
    last = await probe();
    if (last === want) {
      console.log(`${what}: ${Date.now() - started} ms`);
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`${what}: still ${last} after 15 s`);
}

describe('REST: the key counts only as far as the role allows', () => {
  test("a member's key carrying webhooks:manage and connections:write gets 403 PUBLIC_API_SCOPE_FORBIDDEN naming the role", async () => {
    const key = await legacyKey(miaId);
    const endpoints = await count('webhook_endpoints');
    const links = await count('connect_links');
    const connectionId = Object.values(t.connections)[0]!;
    const attacks: Array<{ method: string; url: string; payload?: unknown }> = [
      { method: 'POST', url: '/v1/webhooks', payload: { url: 'https://93.184.216.34/steal', events: ['*'] } },
      { method: 'GET', url: '/v1/webhooks' },
      { method: 'POST', url: '/v1/connections/connect-links', payload: { platform: 'x' } },
      { method: 'POST', url: `/v1/connections/${connectionId}/refresh`, payload: {} },
      { method: 'DELETE', url: `/v1/connections/${connectionId}` },
    ];
    for (const attack of attacks) {
      const res = await t.inject({ ...attack, key } as Parameters<ListeningApp['inject']>[0]);
      assert.equal(res.statusCode, 403, `${attack.method} ${attack.url}: ${res.body}`);
      assert.equal(res.json().error.code, 'PUBLIC_API_SCOPE_FORBIDDEN');
      assert.match(res.json().error.message, /member role/);
    }
    assert.equal(await count('webhook_endpoints'), endpoints, 'no webhook endpoint was made');
    assert.equal(await count('connect_links'), links, 'no connect link was made');
    const still = await t.inject({ url: `/v1/connections/${connectionId}`, key });
    assert.equal(still.statusCode, 200, 'the connection was not disconnected');
    // What the role allows still works with the same key.
    assert.equal((await t.inject({ url: '/v1/posts', key })).statusCode, 200);
    assert.equal((await t.inject({ url: '/v1/connections', key })).statusCode, 200);
  });

  test('demoting an admin to member takes their webhook rights away within a second; promoting gives them back', async () => {
    const { key } = await createKey(t.container.pool, {
      userId: adamId,
      name: 'admin key',
      scopes: ['webhooks:manage', 'posts:read'],
      workspaceIds: [t.owner.workspaceId],
      expiresAt: null,
    });
    const webhooks = async () => (await t.inject({ url: '/v1/webhooks', key })).statusCode;
    assert.equal(await webhooks(), 200);
    await addMembership(t.container.pool, t.owner.workspaceId, adamId, 'member');
    await until('demotion took effect', webhooks, 403);
    assert.equal((await t.inject({ url: '/v1/posts', key })).statusCode, 200, 'member scopes still work');
    await addMembership(t.container.pool, t.owner.workspaceId, adamId, 'admin');
    await until('promotion took effect', webhooks, 200);
  });
});

describe('MCP consent: only what the role allows', () => {
  async function consentPage(scope: string) {
    const client = (await register()).body.client_id as string;
    const browser = new Browser(t.baseUrl);
    const url = authorizeUrl(client, pkce().challenge, { scope });
    const login = await browser.request('GET', url);
    const returnTo = new URL(login.location!, t.baseUrl).searchParams.get('return_to')!;
    assert.equal((await signIn(browser, mia.email, mia.password, returnTo)).status, 303);
    const page = await browser.request('GET', url);
    assert.equal(page.status, 200);
    return { browser, page: page.text };
  }

  test('a member is not offered webhooks:manage or connections:write on the consent page', async () => {
    const { page } = await consentPage('posts:read webhooks:manage connections:write');
    for (const scope of ['webhooks:manage', 'connections:write'])
      assert.match(page, new RegExp(`name="scope" value="${scope}"\\s+disabled`), `${scope} is not offered`);
    assert.match(page, /name="scope" value="posts:read" checked/);
  });

  test('a member posting webhooks:manage or connections:write to the consent form is refused server-side; no code', async () => {
    const attacks = [['webhooks:manage'], ['connections:write'], ['posts:read', 'webhooks:manage'], [...SCOPES]];
    for (const scopes of attacks) {
      const { browser, page } = await consentPage(
        'posts:read posts:write webhooks:manage connections:write approvals:write',
      );
      const codes = await count('oauth_codes');
      const answer = await browser.request('POST', '/oauth/authorize', {
        form: {
          csrf: hiddenField(page, 'csrf'),
          request: hiddenField(page, 'request'),
          target: t.owner.workspaceId,
          scope: scopes,
          decision: 'allow',
        },
        headers: { origin: t.baseUrl },
      });
      assert.equal(answer.status, 403, `${scopes.join(' ')}: ${answer.status} ${answer.location ?? ''}`);
      assert.ok(!answer.location?.startsWith(REDIRECT), 'not sent back to the client');
      assert.match(answer.text, /As a member of/);
      assert.equal(await count('oauth_codes'), codes, `${scopes.join(' ')}: no code was issued`);
    }
  });

  test('what the role allows is still granted', async () => {
    const { browser, page } = await consentPage('posts:read webhooks:manage');
    const answer = await browser.request('POST', '/oauth/authorize', {
      form: {
        csrf: hiddenField(page, 'csrf'),
        request: hiddenField(page, 'request'),
        target: t.owner.workspaceId,
        scope: ['posts:read'],
        decision: 'allow',
      },
      headers: { origin: t.baseUrl },
    });
    assert.equal(answer.status, 303);
    assert.ok(new URL(answer.location!).searchParams.get('code'));
  });
});

describe('CLI: keys are never minted beyond a role', () => {
  test('herald keys create refuses a member key with connections:write, webhooks:manage or all scopes', async () => {
    const before = await count('api_keys');
    for (const scopes of ['connections:write', 'webhooks:manage', 'posts:read,connections:write', 'all']) {
      const res = await cli(
        'keys',
        'create',
        '--user',
        mia.email,
        '--workspace',
        t.owner.workspaceId,
        '--name',
        'sneaky',
        '--scopes',
        scopes,
      );
      assert.equal(res.code, 2, `${scopes}: ${res.out}`);
      assert.match(res.err, /member/, scopes);
    }
    assert.equal(await count('api_keys'), before, 'no key was minted');
    const fine = await cli(
      'keys',
      'create',
      '--user',
      mia.email,
      '--workspace',
      t.owner.workspaceId,
      '--name',
      'ok',
      '--scopes',
      'posts:read,posts:write',
      '--json',
    );
    assert.equal(fine.code, 0, fine.err);
  });

  test('the owner account demoted to member in a workspace gets no admin-only key there from the CLI', async () => {
    const other = await t.workspace('test');
    await addMembership(t.container.pool, other.workspaceId, t.owner.userId, 'member');
    const before = await count('api_keys');
    const res = await cli(
      'keys',
      'create',
      '--workspace',
      other.workspaceId,
      '--name',
      'operator',
      '--scopes',
      'webhooks:manage',
    );
    assert.equal(res.code, 2, res.out);
    assert.match(res.err, /member/);
    assert.equal(await count('api_keys'), before);
  });
});
