// The Pinterest simulator over HTTP: the consent page and the sign-in (HTTP Basic, single-use codes, continuous
// refresh), the refusals of `POST /v5/pins` in Pinterest's `{code, message}` bodies (never a 500), the video upload
// protocol (register, S3 form, status), a board's Pins newest first, analytics parameters, trial-access visibility
// on the Pin's page; and its state in the store: a restart on the same store keeps tokens and Pins.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { jpeg, mediaFetchSettings, mp4, servedUrl } from '../../../test/helpers/media-sources.ts';
import { memoryStore } from '../framework/store.ts';
import { startSandbox, type RunningSandbox } from '../server.ts';

const redirect = 'http://127.0.0.1/callback';
const basic = `Basic ${Buffer.from('test-app:test-secret').toString('base64')}`;

interface Tokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  refresh_token_expires_in: number;
}

async function code(at: string, username: string): Promise<string> {
  const query = new URLSearchParams({
    client_id: 'test-app',
    redirect_uri: redirect,
    response_type: 'code',
    scope: 'boards:read,pins:read,pins:write,user_accounts:read',
    state: 's1',
    sandbox_username: username,
  });
  const authorize = await fetch(`${at}/oauth/?${query}`, { redirect: 'manual' });
  assert.equal(authorize.status, 302);
  return new URL(authorize.headers.get('location')!).searchParams.get('code')!;
}

const exchange = (at: string, form: Record<string, string>, auth: string | null = basic) =>
  fetch(`${at}/v5/oauth/token`, {
    method: 'POST',
    headers: auth ? { authorization: auth } : {},
    body: new URLSearchParams(form),
  });

async function signIn(at: string, username: string): Promise<Tokens> {
  const res = await exchange(at, {
    grant_type: 'authorization_code',
    code: await code(at, username),
    redirect_uri: redirect,
  });
  assert.equal(res.status, 200);
  return (await res.json()) as Tokens;
}

const api = (at: string, token: string, method: string, path: string, body?: unknown) =>
  fetch(`${at}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('Pinterest simulator', () => {
  let sandbox: RunningSandbox;
  let base: string;
  let token: string;
  let board: string;
  let imageUrl: string;

  before(async () => {
    sandbox = await startSandbox({ platforms: ['pinterest'], settings: await mediaFetchSettings() });
    base = sandbox.baseUrl('pinterest');
    token = (await signIn(base, 'sim_pinner')).access_token;
    const boards = (await (await api(base, token, 'GET', '/v5/boards')).json()) as { items: Array<{ id: string }> };
    board = boards.items[0]!.id;
    imageUrl = await servedUrl(`sim-image-${Date.now()}`, jpeg(20, 30), 'image/jpeg');
  });
  after(() => sandbox.close());

  test('authorize without a sandbox username shows the consent page', async () => {
    const query = new URLSearchParams({
      client_id: 'c',
      redirect_uri: redirect,
      response_type: 'code',
      scope: 'pins:read',
    });
    const res = await fetch(`${base}/oauth/?${query}`);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /Pinterest sandbox: authorize this app\?/);
  });

  test('the token endpoint wants HTTP Basic, spends a code once, and refresh answers a new refresh token', async () => {
    const once = await code(base, 'sim_tokens');
    const form = { grant_type: 'authorization_code', code: once, redirect_uri: redirect };
    const anonymous = await exchange(base, form, null);
    assert.equal(anonymous.status, 401);
    assert.deepEqual(await anonymous.json(), { code: 2, message: 'Authentication failed.' });
    const first = (await (await exchange(base, form)).json()) as Tokens;
    assert.equal(first.refresh_token_expires_in, 60 * 86_400);
    assert.equal((await exchange(base, form)).status, 400);
    const refreshed = await exchange(base, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
    const next = (await refreshed.json()) as Tokens & { response_type: string };
    assert.equal(next.response_type, 'refresh_token');
    assert.notEqual(next.refresh_token, first.refresh_token);
    assert.equal(
      (await exchange(base, { grant_type: 'refresh_token', refresh_token: first.refresh_token })).status,
      400,
    );
  });

  test('POST /v5/pins refuses what Pinterest refuses with {code, message}, never a 500', async () => {
    const image = { source_type: 'image_url', url: imageUrl };
    const cases: Array<[unknown, number, RegExp]> = [
      [{ media_source: image }, 400, /board_id/],
      [{ board_id: '1234', media_source: image }, 404, /Board not found/],
      [{ board_id: board, media_source: image, description: 'é'.repeat(801) }, 400, /description/],
      [{ board_id: board, media_source: image, title: 'x'.repeat(101) }, 400, /title/],
      [{ board_id: board, media_source: image, link: 'javascript:alert(1)' }, 400, /link/],
      [{ board_id: board }, 400, /source_type/],
      [
        { board_id: board, media_source: { source_type: 'image_url', url: 'http://10.0.0.1/x.jpg' } },
        400,
        /fetch the image/,
      ],
      [
        { board_id: board, media_source: { source_type: 'multiple_image_urls', items: [{ url: imageUrl }] } },
        400,
        /2 to 5/,
      ],
      [{ board_id: board, media_source: { source_type: 'video_id', media_id: '1' } }, 400, /cover/],
    ];
    for (const [body, status, message] of cases) {
      const res = await api(base, token, 'POST', '/v5/pins', body);
      const answer = (await res.json()) as { code: number; message: string };
      assert.equal(res.status, status, JSON.stringify(body).slice(0, 120));
      assert.equal(typeof answer.code, 'number');
      assert.match(answer.message, message);
    }
    const garbage = await fetch(`${base}/v5/pins`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{not json',
    });
    assert.equal(garbage.status, 400);
  });

  test('a video is registered, posted as an S3 form, processed, and only then makes a Pin', async () => {
    const registered = await api(base, token, 'POST', '/v5/media', { media_type: 'video' });
    assert.equal(registered.status, 201);
    const upload = (await registered.json()) as {
      media_id: string;
      upload_url: string;
      upload_parameters: Record<string, string>;
    };
    const status = async () =>
      ((await (await api(base, token, 'GET', `/v5/media/${upload.media_id}`)).json()) as { status: string }).status;
    assert.equal(await status(), 'registered');
    const cover = { cover_image_key_frame_time: 0 };
    const early = await api(base, token, 'POST', '/v5/pins', {
      board_id: board,
      media_source: { source_type: 'video_id', media_id: upload.media_id, ...cover },
    });
    assert.equal(early.status, 400);
    const form = (policy: string) => {
      const f = new FormData();
      for (const [k, v] of Object.entries({ ...upload.upload_parameters, policy })) f.append(k, v);
      f.append('file', new Blob([new Uint8Array(mp4(4096))], { type: 'video/mp4' }), 'video.mp4');
      return f;
    };
    const forged = await fetch(upload.upload_url, { method: 'POST', body: form('forged') });
    assert.equal(forged.status, 403);
    assert.match(await forged.text(), /<Code>AccessDenied<\/Code>/);
    const posted = await fetch(upload.upload_url, { method: 'POST', body: form(upload.upload_parameters.policy!) });
    assert.equal(posted.status, 204);
    assert.equal(await status(), 'processing');
    for (let i = 0; i < 50 && (await status()) !== 'succeeded'; i++) await new Promise((r) => setTimeout(r, 100));
    const made = await api(base, token, 'POST', '/v5/pins', {
      board_id: board,
      description: 'a video pin',
      media_source: { source_type: 'video_id', media_id: upload.media_id, ...cover },
    });
    assert.equal(made.status, 201);
    const pin = (await made.json()) as { media: { media_type: string }; creative_type: string };
    assert.deepEqual([pin.media.media_type, pin.creative_type], ['video', 'VIDEO']);
  });

  test("a board's Pins are listed newest first, a page at a time with a bookmark", async () => {
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const res = await api(base, token, 'POST', '/v5/pins', {
        board_id: board,
        description: `listed ${n}`,
        media_source: { source_type: 'image_url', url: imageUrl },
      });
      ids.push(((await res.json()) as { id: string }).id);
    }
    const first = (await (await api(base, token, 'GET', `/v5/boards/${board}/pins?page_size=2`)).json()) as {
      items: Array<{ id: string }>;
      bookmark: string;
    };
    assert.deepEqual(
      first.items.map((p) => p.id),
      [ids[2], ids[1]],
    );
    const second = (await (
      await api(base, token, 'GET', `/v5/boards/${board}/pins?page_size=2&bookmark=${first.bookmark}`)
    ).json()) as { items: Array<{ id: string }> };
    assert.equal(second.items[0]!.id, ids[0]);
    assert.equal((await api(base, token, 'GET', `/v5/boards/${board}/pins?page_size=500`)).status, 400);
  });

  test('analytics refuse bad parameters and video metrics of an image Pin', async () => {
    const res = await api(base, token, 'POST', '/v5/pins', {
      board_id: board,
      media_source: { source_type: 'image_url', url: imageUrl },
    });
    const { id } = (await res.json()) as { id: string };
    const today = new Date().toISOString().slice(0, 10);
    const read = (q: string) => api(base, token, 'GET', `/v5/pins/${id}/analytics?${q}`);
    assert.equal((await read(`start_date=${today}&end_date=${today}&metric_types=IMPRESSION,SAVE`)).status, 200);
    for (const q of [
      `start_date=${today}&metric_types=IMPRESSION`,
      `start_date=${today}&end_date=${today}&metric_types=VIDEO_MRC_VIEW`,
      `start_date=2001-01-01&end_date=${today}&metric_types=IMPRESSION`,
    ]) {
      const bad = await read(q);
      assert.equal(bad.status, 400, q);
      assert.deepEqual(await bad.json(), { code: 400, message: 'Invalid pins analytics parameters.' });
    }
  });
});

test('with trial access, production refuses Pins (code 29); the API Sandbox makes them, visible only to the pinner', async () => {
  const sandbox = await startSandbox({
    platforms: ['pinterest'],
    settings: { ...(await mediaFetchSettings()), pinterestTrialAccess: true },
  });
  try {
    const base = sandbox.baseUrl('pinterest');
    const token = (await signIn(base, 'sim_trial')).access_token;
    const boards = (await (await api(base, token, 'GET', '/v5/boards')).json()) as { items: Array<{ id: string }> };
    const body = {
      board_id: boards.items[0]!.id,
      title: 'Trial',
      media_source: { source_type: 'image_url', url: await servedUrl(`trial-${Date.now()}`, jpeg(8, 8), 'image/jpeg') },
    };
    const production = await api(base, token, 'POST', '/v5/pins', body);
    assert.equal(production.status, 403);
    assert.equal(((await production.json()) as { code: number }).code, 29);
    const res = await api(`${base}/api-sandbox`, token, 'POST', '/v5/pins', body);
    assert.equal(res.status, 201);
    const { id } = (await res.json()) as { id: string };
    const page = await (await fetch(`${base}/pin/${id}/`)).text();
    assert.match(page, /visible only to the pinner/);
  } finally {
    await sandbox.close();
  }
});

test('a restart on the same store keeps tokens and Pins; two simulators on one store serve the same Pins', async () => {
  const store = memoryStore();
  const settings = await mediaFetchSettings();
  const start = () =>
    startSandbox({ platforms: ['pinterest'], secret: 'restart-secret', store: () => store, settings });
  const one = await start();
  const two = await start();
  try {
    const token = (await signIn(one.baseUrl('pinterest'), 'sim_restart')).access_token;
    const boards = (await (await api(one.baseUrl('pinterest'), token, 'GET', '/v5/boards')).json()) as {
      items: Array<{ id: string }>;
    };
    const made = await api(one.baseUrl('pinterest'), token, 'POST', '/v5/pins', {
      board_id: boards.items[0]!.id,
      description: 'before the restart',
      media_source: {
        source_type: 'image_url',
        url: await servedUrl(`restart-${Date.now()}`, jpeg(4, 4), 'image/jpeg'),
      },
    });
    const { id } = (await made.json()) as { id: string };
    await one.close();
    const again = await api(two.baseUrl('pinterest'), token, 'GET', `/v5/pins/${id}`);
    assert.equal(again.status, 200);
    assert.equal(((await again.json()) as { description: string }).description, 'before the restart');
    assert.equal((await fetch(`${two.baseUrl('pinterest')}/pin/${id}/`)).status, 200);
  } finally {
    await two.close();
  }
});
