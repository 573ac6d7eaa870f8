// The YouTube simulator over HTTP, as Google documents the calls: the consent page and the offline sign-in, refresh
// tokens that do not rotate, the resumable upload (session, 256 KiB chunks, status query, resume, the video at the
// last byte), the metadata refusals in Google's error body, the daily quota in units, the uploads playlist, the
// watch page; and its state in the store: a restart on the same store keeps sessions, videos and tokens.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mp4 } from '../../../test/helpers/media-sources.ts';
import { memoryStore } from '../framework/store.ts';
import { startSandbox, type RunningSandbox } from '../server.ts';

let sandbox: RunningSandbox;
let base: string;
const redirect = 'http://127.0.0.1/callback';
const KiB = 1024;

before(async () => {
  sandbox = await startSandbox({ platforms: ['youtube'], settings: { youtubeDailyQuota: 5000 } });
  base = sandbox.baseUrl('youtube');
});
after(() => sandbox.close());

interface Tokens {
  access_token: string;
  refresh_token?: string;
}

async function signIn(username: string, at = base, offline = true): Promise<Tokens> {
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'test-client',
    redirect_uri: redirect,
    scope: 'https://www.googleapis.com/auth/youtube.upload',
    state: 's1',
    ...(offline && { access_type: 'offline' }),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    sandbox_username: username,
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
      client_secret: 'secret',
      code_verifier: verifier,
    }),
  });
  assert.equal(token.status, 200);
  return (await token.json()) as Tokens;
}

const resource = (title: string, description = 'a description') => ({
  snippet: { title, description, tags: ['one', 'two words'], categoryId: '22' },
  status: { privacyStatus: 'unlisted', selfDeclaredMadeForKids: false },
});

function startSession(token: string, body: unknown, size: number, at = base) {
  return fetch(`${at}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json; charset=UTF-8',
      'x-upload-content-length': String(size),
      'x-upload-content-type': 'video/mp4',
    },
    body: JSON.stringify(body),
  });
}

const put = (token: string, session: string, range: string, data: Uint8Array = Buffer.alloc(0)) =>
  fetch(session, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-range': range, 'content-type': 'video/mp4' },
    body: new Uint8Array(data),
  });

test('authorize without a sandbox username shows the consent page', async () => {
  const res = await fetch(
    `${base}/o/oauth2/v2/auth?response_type=code&client_id=c&scope=s&redirect_uri=${encodeURIComponent(redirect)}`,
  );
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/html/);
  assert.ok((await res.text()).includes('YouTube sandbox: authorize this app?'));
});

test('only an offline sign-in gets a refresh token, and a refresh answers none: the one held keeps working', async () => {
  assert.equal((await signIn('sim_online', base, false)).refresh_token, undefined);
  const { refresh_token } = await signIn('sim_offline');
  assert.ok(refresh_token);
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${base}/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token,
        client_id: 'test-client',
        client_secret: 'secret',
      }),
    });
    assert.equal(res.status, 200);
    const answer = (await res.json()) as Tokens & { expires_in: number };
    assert.equal(answer.refresh_token, undefined);
    assert.equal(answer.expires_in, 3599);
  }
  const revoked = await fetch(`${base}/revoke`, {
    method: 'POST',
    body: new URLSearchParams({ token: refresh_token }),
  });
  assert.equal(revoked.status, 200);
  const after = await fetch(`${base}/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token,
      client_id: 'test-client',
      client_secret: 's',
    }),
  });
  assert.equal(after.status, 400);
  assert.equal(((await after.json()) as { error: string }).error, 'invalid_grant');
});

test('a chunked upload: 308 with Range per chunk, the status query, a resume, then 201 with the video', async () => {
  const { access_token: token } = await signIn('sim_chunks');
  const bytes = mp4(600 * KiB);
  const start = await startSession(token, resource('Chunks'), bytes.length);
  assert.equal(start.status, 200);
  const session = start.headers.get('location')!;
  assert.match(session, /upload_id=/);
  const total = bytes.length;
  // Nothing held yet: 308 without Range.
  const empty = await put(token, session, `bytes */${total}`);
  assert.equal(empty.status, 308);
  assert.equal(empty.headers.get('range'), null);
  // A first chunk that is not a multiple of 256 KiB is refused.
  const odd = await put(token, session, `bytes 0-99999/${total}`, bytes.subarray(0, 100_000));
  assert.equal(odd.status, 400);
  const first = await put(token, session, `bytes 0-${256 * KiB - 1}/${total}`, bytes.subarray(0, 256 * KiB));
  assert.equal(first.status, 308);
  assert.equal(first.headers.get('range'), `bytes=0-${256 * KiB - 1}`);
  // The status query after a lost answer says where to go on from.
  const query = await put(token, session, `bytes */${total}`);
  assert.equal(query.headers.get('range'), `bytes=0-${256 * KiB - 1}`);
  // A chunk that does not continue from the last byte held is not taken.
  const skipped = await put(token, session, `bytes ${512 * KiB}-${total - 1}/${total}`, bytes.subarray(512 * KiB));
  assert.equal(skipped.status, 308);
  assert.equal(skipped.headers.get('range'), `bytes=0-${256 * KiB - 1}`);
  const second = await put(
    token,
    session,
    `bytes ${256 * KiB}-${512 * KiB - 1}/${total}`,
    bytes.subarray(256 * KiB, 512 * KiB),
  );
  assert.equal(second.status, 308);
  const last = await put(token, session, `bytes ${512 * KiB}-${total - 1}/${total}`, bytes.subarray(512 * KiB));
  assert.equal(last.status, 201);
  const video = (await last.json()) as {
    id: string;
    snippet: { title: string; tags: string[] };
    status: Record<string, unknown>;
  };
  assert.match(video.id, /^[\w-]{11}$/);
  assert.equal(video.snippet.title, 'Chunks');
  assert.deepEqual(video.snippet.tags, ['one', 'two words']);
  assert.equal(video.status.privacyStatus, 'unlisted');
  assert.equal(video.status.uploadStatus, 'uploaded');
  // Complete: the status query now answers the video.
  const done = await put(token, session, `bytes */${total}`);
  assert.equal(done.status, 200);
  assert.equal(((await done.json()) as { id: string }).id, video.id);
  const watch = await fetch(`${base}/watch?v=${video.id}`);
  assert.equal(watch.status, 200);
  assert.match(await watch.text(), /Chunks/);
  const played = await fetch(`${base}/videoplayback/${video.id}`);
  assert.deepEqual(Buffer.from(await played.arrayBuffer()), bytes);
});

test("metadata YouTube refuses comes back 400 with the reason in Google's error body", async () => {
  const { access_token: token } = await signIn('sim_refused');
  const cases: Array<[unknown, string]> = [
    [resource(''), 'invalidTitle'],
    [resource('x'.repeat(101)), 'invalidTitle'],
    [resource('a <b> title'), 'invalidTitle'],
    [resource('ok', 'é'.repeat(2501)), 'invalidDescription'],
    [{ snippet: { title: 'ok', tags: ['a b'.repeat(200)] } }, 'invalidTags'],
    [{ snippet: { title: 'ok', categoryId: '999' } }, 'invalidCategoryId'],
  ];
  for (const [body, reason] of cases) {
    const res = await startSession(token, body, 1000);
    assert.equal(res.status, 400, reason);
    const error = ((await res.json()) as { error: { code: number; errors: Array<{ reason: string; domain: string }> } })
      .error;
    assert.equal(error.code, 400);
    assert.equal(error.errors[0]!.reason, reason);
  }
  const bad = await fetch(`${base}/youtube/v3/channels?part=snippet&mine=true`, {
    headers: { authorization: 'Bearer nope' },
  });
  assert.equal(bad.status, 401);
  assert.equal(
    ((await bad.json()) as { error: { errors: Array<{ reason: string }> } }).error.errors[0]!.reason,
    'authError',
  );
});

test('the daily quota: videos.insert costs 1,600 units; past the budget 403 quotaExceeded in youtube.quota', async () => {
  // This sandbox's budget is 5,000 units: three sessions fit, the fourth does not.
  const { access_token: token } = await signIn('sim_quota');
  for (let i = 0; i < 3; i++) assert.equal((await startSession(token, resource(`q${i}`), 1000)).status, 200);
  const refused = await startSession(token, resource('q3'), 1000);
  assert.equal(refused.status, 403);
  const error = (
    (await refused.json()) as { error: { errors: Array<{ message: string; reason: string; domain: string }> } }
  ).error;
  assert.deepEqual(error.errors[0], {
    message: error.errors[0]!.message,
    domain: 'youtube.quota',
    reason: 'quotaExceeded',
  });
  // Another channel has its own budget in the simulator.
  const other = await signIn('sim_quota_other');
  assert.equal((await startSession(other.access_token, resource('other'), 1000)).status, 200);
});

test("the uploads playlist lists the channel's videos newest first; a deleted one goes", async () => {
  const { access_token: token } = await signIn('sim_uploads');
  const auth = { authorization: `Bearer ${token}` };
  const channel = (await (
    await fetch(`${base}/youtube/v3/channels?part=contentDetails&mine=true`, { headers: auth })
  ).json()) as {
    items: Array<{ id: string; contentDetails: { relatedPlaylists: { uploads: string } } }>;
  };
  const uploads = channel.items[0]!.contentDetails.relatedPlaylists.uploads;
  assert.match(uploads, /^UU/);
  const ids: string[] = [];
  for (const title of ['older', 'newer']) {
    const bytes = mp4(1000);
    const session = (await startSession(token, resource(title), bytes.length)).headers.get('location')!;
    ids.push(((await (await put(token, session, `bytes 0-999/1000`, bytes)).json()) as { id: string }).id);
  }
  const list = async () =>
    (
      (await (
        await fetch(`${base}/youtube/v3/playlistItems?part=snippet&playlistId=${uploads}&maxResults=50`, {
          headers: auth,
        })
      ).json()) as {
        items: Array<{ snippet: { title: string; resourceId: { videoId: string } } }>;
      }
    ).items.map((i) => i.snippet.title);
  assert.deepEqual(await list(), ['newer', 'older']);
  assert.equal(
    (await fetch(`${base}/youtube/v3/videos?id=${ids[1]}`, { method: 'DELETE', headers: auth })).status,
    204,
  );
  assert.deepEqual(await list(), ['older']);
  const stats = (await (
    await fetch(`${base}/youtube/v3/videos?part=statistics&id=${ids[0]}`, { headers: auth })
  ).json()) as {
    items: Array<{ statistics: Record<string, string> }>;
  };
  assert.deepEqual(Object.keys(stats.items[0]!.statistics).sort(), [
    'commentCount',
    'favoriteCount',
    'likeCount',
    'viewCount',
  ]);
});

test('a restart on the same store keeps the session: the upload goes on where it stopped', async () => {
  const store = memoryStore();
  const running = new Set<RunningSandbox>();
  const start = async () => {
    const started = await startSandbox({ platforms: ['youtube'], secret: 'restart-secret', store: () => store });
    running.add(started);
    return started;
  };
  try {
    const first = await start();
    const at = first.baseUrl('youtube');
    const { access_token: token } = await signIn('sim_restart', at);
    const bytes = mp4(300 * KiB);
    const session = (await startSession(token, resource('restart'), bytes.length, at)).headers.get('location')!;
    assert.equal(
      (await put(token, session, `bytes 0-${256 * KiB - 1}/${bytes.length}`, bytes.subarray(0, 256 * KiB))).status,
      308,
    );
    running.delete(first);
    await first.close();
    const second = await start();
    const again = session.replace(at, second.baseUrl('youtube'));
    const state = await put(token, again, `bytes */${bytes.length}`);
    assert.equal(state.headers.get('range'), `bytes=0-${256 * KiB - 1}`);
    const done = await put(
      token,
      again,
      `bytes ${256 * KiB}-${bytes.length - 1}/${bytes.length}`,
      bytes.subarray(256 * KiB),
    );
    assert.equal(done.status, 201);
    const held = await second.simulator('youtube').posts();
    assert.equal(held.filter((p) => p.text === 'a description').length, 1);
  } finally {
    for (const open of running) await open.close();
  }
});
