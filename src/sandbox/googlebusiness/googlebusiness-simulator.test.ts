// The Google Business Profile simulator over HTTP: Google's OAuth (consent page, offline access, PKCE, refresh without
// rotation), the accounts and locations, local posts with Google's refusals (its error body, never a 500), review
// from PROCESSING to LIVE or REJECTED, paging, and its state in the store: a restart keeps tokens and posts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mediaFetchSettings, png, servedUrl } from '../../../test/helpers/media-sources.ts';
import { memoryStore } from '../framework/store.ts';
import { startSandbox, type RunningSandbox } from '../server.ts';

let sandbox: RunningSandbox;
let base: string;
const redirect = 'http://127.0.0.1/callback';
const SCOPE = 'https://www.googleapis.com/auth/business.manage';

before(async () => {
  sandbox = await startSandbox({ platforms: ['googlebusiness'], settings: await mediaFetchSettings() });
  base = sandbox.baseUrl('googlebusiness');
});
after(() => sandbox.close());

interface Tokens {
  access_token: string;
  refresh_token?: string;
  expires_in: number;
}

async function signIn(username: string, at = base, offline = true): Promise<Tokens> {
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'test-client',
    redirect_uri: redirect,
    scope: SCOPE,
    state: 's1',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    sandbox_username: username,
    ...(offline ? { access_type: 'offline' } : {}),
  });
  const authorize = await fetch(`${at}/o/oauth2/v2/auth?${query}`, { redirect: 'manual' });
  assert.equal(authorize.status, 302);
  const code = new URL(authorize.headers.get('location')!).searchParams.get('code')!;
  const token = await fetch(`${at}/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirect,
      client_id: 'test-client',
      code_verifier: verifier,
    }),
  });
  assert.equal(token.status, 200);
  return (await token.json()) as Tokens;
}

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

async function firstLocation(token: string, at = base): Promise<string> {
  const { accounts } = (await (await fetch(`${at}/v1/accounts`, { headers: auth(token) })).json()) as {
    accounts: Array<{ name: string }>;
  };
  const { locations } = (await (
    await fetch(`${at}/v1/${accounts[0]!.name}/locations?readMask=name,title`, { headers: auth(token) })
  ).json()) as { locations: Array<{ name: string; title: string }> };
  assert.equal(locations.length, 2);
  return `${accounts[0]!.name}/${locations[0]!.name}`;
}

const create = (token: string, parent: string, body: unknown, at = base) =>
  fetch(`${at}/v4/${parent}/localPosts`, {
    method: 'POST',
    headers: { ...auth(token), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const until = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 100 && !(await check()); i++) await new Promise((r) => setTimeout(r, 50));
};

test('authorize without a sandbox username shows the consent page; a missing scope is refused', async () => {
  const q = `response_type=code&client_id=c&redirect_uri=${encodeURIComponent(redirect)}`;
  const res = await fetch(`${base}/o/oauth2/v2/auth?${q}&scope=${encodeURIComponent(SCOPE)}`);
  assert.equal(res.status, 200);
  assert.ok((await res.text()).includes('Google Business Profile sandbox: authorize this app?'));
  const noScope = await fetch(`${base}/o/oauth2/v2/auth?${q}`);
  assert.equal(noScope.status, 400);
  assert.equal(((await noScope.json()) as { error: string }).error, 'invalid_request');
});

test('only an offline authorization gets a refresh token, and a refresh does not rotate it', async () => {
  assert.equal((await signIn('sim_online', base, false)).refresh_token, undefined);
  const tokens = await signIn('sim_offline');
  assert.ok(tokens.refresh_token);
  assert.ok(tokens.expires_in <= 3600);
  const refresh = async () =>
    fetch(`${base}/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token!,
        client_id: 'test-client',
      }),
    });
  const first = (await (await refresh()).json()) as Tokens;
  assert.ok(first.access_token);
  assert.equal(first.refresh_token, undefined);
  assert.equal((await refresh()).status, 200, 'the same refresh token works again');
  await fetch(`${base}/revoke`, { method: 'POST', body: new URLSearchParams({ token: tokens.refresh_token! }) });
  const revoked = await refresh();
  assert.equal(revoked.status, 400);
  assert.equal(((await revoked.json()) as { error: string }).error, 'invalid_grant');
});

test("refusals carry Google's error body and status, never a 500", async () => {
  const { access_token: token } = await signIn('sim_refused');
  const parent = await firstLocation(token);
  const refused = async (body: unknown, pattern: RegExp) => {
    const res = await create(token, parent, body);
    assert.equal(res.status, 400, JSON.stringify(body));
    const { error } = (await res.json()) as { error: { code: number; status: string; message: string } };
    assert.equal(error.status, 'INVALID_ARGUMENT');
    assert.match(error.message, pattern);
  };
  await refused({ summary: 'no topic' }, /topic_type/);
  await refused({ topicType: 'STANDARD', summary: 'x'.repeat(1501) }, /longer than 1500/);
  await refused({ topicType: 'EVENT', summary: 'an event' }, /event.title/);
  await refused({ topicType: 'OFFER', summary: 'o', event: { title: 'Sale' } }, /schedule/);
  await refused({ topicType: 'STANDARD', summary: 's', offer: { couponCode: 'A' } }, /only OFFER/);
  await refused(
    { topicType: 'STANDARD', summary: 's', callToAction: { actionType: 'CALL', url: 'https://a.b' } },
    /CALL takes no URL/,
  );
  await refused({ topicType: 'STANDARD', summary: 's', callToAction: { actionType: 'BOOK' } }, /url is required/);
  await refused(
    { topicType: 'STANDARD', summary: 's', media: [{ mediaFormat: 'PHOTO', sourceUrl: 'http://10.0.0.1/x' }] },
    /could not be fetched/,
  );
  const other = await create(token, 'accounts/1/locations/2', { topicType: 'STANDARD', summary: 'x' });
  assert.equal(other.status, 403);
  assert.equal((await create('not-a-token', parent, { topicType: 'STANDARD', summary: 'x' })).status, 401);
});

test('a post is PROCESSING, then LIVE with its photo and search URL; one with a phone number is REJECTED', async () => {
  const { access_token: token } = await signIn('sim_review');
  const parent = await firstLocation(token);
  const photo = await servedUrl(`gbp-photo-${Date.now()}`, png(40, 30), 'image/png');
  const made = (await (
    await create(token, parent, {
      topicType: 'STANDARD',
      summary: 'Fresh bread',
      media: [{ mediaFormat: 'PHOTO', sourceUrl: photo }],
    })
  ).json()) as { name: string; state: string; searchUrl?: string };
  assert.equal(made.state, 'PROCESSING');
  assert.equal(made.searchUrl, undefined);
  let read: { state: string; searchUrl?: string; media: Array<{ googleUrl: string }> } | undefined;
  await until(async () => {
    read = (await (await fetch(`${base}/v4/${made.name}`, { headers: auth(token) })).json()) as typeof read;
    return read!.state !== 'PROCESSING';
  });
  assert.equal(read!.state, 'LIVE');
  assert.equal((await fetch(read!.searchUrl!)).status, 200);
  const bytes = Buffer.from(await (await fetch(read!.media[0]!.googleUrl)).arrayBuffer());
  assert.deepEqual(bytes, png(40, 30));
  const bad = (await (
    await create(token, parent, { topicType: 'STANDARD', summary: 'Call (555) 123-4567' })
  ).json()) as {
    name: string;
  };
  await until(
    async () =>
      ((await (await fetch(`${base}/v4/${bad.name}`, { headers: auth(token) })).json()) as { state: string }).state !==
      'PROCESSING',
  );
  const rejected = (await (await fetch(`${base}/v4/${bad.name}`, { headers: auth(token) })).json()) as {
    state: string;
  };
  assert.equal(rejected.state, 'REJECTED');
});

test('the list is newest first and paged', async () => {
  const { access_token: token } = await signIn('sim_pages');
  const parent = await firstLocation(token);
  for (const n of [1, 2, 3]) await create(token, parent, { topicType: 'STANDARD', summary: `post ${n}` });
  const page = async (pageToken?: string) =>
    (await (
      await fetch(`${base}/v4/${parent}/localPosts?pageSize=2${pageToken ? `&pageToken=${pageToken}` : ''}`, {
        headers: auth(token),
      })
    ).json()) as { localPosts: Array<{ summary: string }>; nextPageToken?: string };
  const first = await page();
  assert.deepEqual(
    first.localPosts.map((p) => p.summary),
    ['post 3', 'post 2'],
  );
  const second = await page(first.nextPageToken);
  assert.deepEqual(
    second.localPosts.map((p) => p.summary),
    ['post 1'],
  );
  assert.equal(second.nextPageToken, undefined);
});

test('a restart on the same store keeps tokens and posts', async () => {
  const store = memoryStore();
  const start = () => startSandbox({ platforms: ['googlebusiness'], secret: 'restart-secret', store: () => store });
  let first: RunningSandbox | undefined = await start();
  let second: RunningSandbox | undefined;
  try {
    const at = first.baseUrl('googlebusiness');
    const { access_token: token } = await signIn('sim_restart', at);
    const parent = await firstLocation(token, at);
    const made = (await (
      await create(token, parent, { topicType: 'STANDARD', summary: 'before the restart' }, at)
    ).json()) as {
      name: string;
    };
    await first.close();
    first = undefined;
    second = await start();
    const again = second.baseUrl('googlebusiness');
    const read = await fetch(`${again}/v4/${made.name}`, { headers: auth(token) });
    assert.equal(read.status, 200);
    assert.equal(((await read.json()) as { summary: string }).summary, 'before the restart');
  } finally {
    await first?.close();
    await second?.close();
  }
});
