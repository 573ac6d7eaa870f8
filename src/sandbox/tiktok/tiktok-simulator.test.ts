// The TikTok simulator over HTTP, in TikTok's own shapes: the consent page and Login Kit sign-in with rotating
// refresh tokens, the `{ data, error }` envelope, creator info, the chunk rules of a FILE_UPLOAD and its in-order
// chunks, status polling with int64 post ids, the privacy-level check, URL ownership for pulls, the unaudited-client
// switch, and its state in the store across a restart.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mp4 } from '../../../test/helpers/media-sources.ts';
import { pollFor } from '../../../test/helpers/poll.ts';
import { memoryStore } from '../framework/store.ts';
import { startSandbox, type RunningSandbox } from '../server.ts';

let sandbox: RunningSandbox;
let base: string;
const redirect = 'http://127.0.0.1/callback';
const SCOPES = 'user.info.basic,user.info.profile,video.publish,video.list';

before(async () => {
  sandbox = await startSandbox({ platforms: ['tiktok'] });
  base = sandbox.baseUrl('tiktok');
});
after(() => sandbox.close());

async function signIn(username: string, at = base): Promise<{ access_token: string; refresh_token: string }> {
  const query = new URLSearchParams({
    client_key: 'test-client',
    scope: SCOPES,
    response_type: 'code',
    redirect_uri: redirect,
    state: 's1',
    sandbox_username: username,
  });
  const authorize = await fetch(`${at}/v2/auth/authorize/?${query}`, { redirect: 'manual' });
  assert.equal(authorize.status, 302);
  const code = new URL(authorize.headers.get('location')!).searchParams.get('code')!;
  const token = await fetch(`${at}/v2/oauth/token/`, {
    method: 'POST',
    body: new URLSearchParams({
      client_key: 'test-client',
      client_secret: 'secret',
      code,
      grant_type: 'authorization_code',
      redirect_uri: redirect,
    }),
  });
  assert.equal(token.status, 200);
  return (await token.json()) as { access_token: string; refresh_token: string };
}

const api = (token: string, path: string, body: unknown, at = base) =>
  fetch(`${at}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=UTF-8' },
    body: JSON.stringify(body),
  });

const videoInit = (token: string, source: Record<string, unknown>, privacy = 'SELF_ONLY', at = base) =>
  api(
    token,
    '/v2/post/publish/video/init/',
    { post_info: { title: 'a caption', privacy_level: privacy }, source_info: source },
    at,
  );

const errorCode = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;

test('authorize without a sandbox username shows the consent page', async () => {
  const res = await fetch(
    `${base}/v2/auth/authorize/?client_key=c&scope=video.publish&response_type=code&redirect_uri=${encodeURIComponent(redirect)}`,
  );
  assert.equal(res.status, 200);
  assert.ok((await res.text()).includes('TikTok sandbox: authorize this app?'));
});

test('tokens last 2 hours, and a refresh token works once: its answer carries the next one', async () => {
  const tokens = await signIn('sim_rotate');
  const refresh = (token: string) =>
    fetch(`${base}/v2/oauth/token/`, {
      method: 'POST',
      body: new URLSearchParams({
        client_key: 'k',
        client_secret: 's',
        grant_type: 'refresh_token',
        refresh_token: token,
      }),
    });
  const first = await refresh(tokens.refresh_token);
  assert.equal(first.status, 200);
  const answer = (await first.json()) as Record<string, unknown>;
  assert.equal(answer.expires_in, 7200);
  assert.equal(answer.refresh_expires_in, 180 * 86400);
  assert.notEqual(answer.refresh_token, tokens.refresh_token);
  const reused = await refresh(tokens.refresh_token);
  assert.equal(reused.status, 400);
  assert.equal(((await reused.json()) as { error: string }).error, 'invalid_grant');
  assert.equal((await refresh(String(answer.refresh_token))).status, 200, 'the new one works');
});

test('answers use the { data, error } envelope; creator info lists the privacy levels', async () => {
  const { access_token: token } = await signIn('sim_envelope');
  const info = (await (await api(token, '/v2/post/publish/creator_info/query/', {})).json()) as {
    data: { privacy_level_options: string[]; max_video_post_duration_sec: number };
    error: { code: string; log_id: string };
  };
  assert.equal(info.error.code, 'ok');
  assert.ok(info.data.privacy_level_options.includes('SELF_ONLY'));
  assert.equal(info.data.max_video_post_duration_sec, 600);
  const unauth = await api('not-a-token', '/v2/post/publish/creator_info/query/', {});
  assert.equal(unauth.status, 401);
  assert.equal(await errorCode(unauth), 'access_token_invalid');
});

test('a FILE_UPLOAD init is held to the chunk rules', async () => {
  const { access_token: token } = await signIn('sim_chunks');
  const MiB = 1024 * 1024;
  const bad = [
    { source: 'FILE_UPLOAD', video_size: 3 * MiB, chunk_size: MiB, total_chunk_count: 3 }, // under 5 MB: whole
    { source: 'FILE_UPLOAD', video_size: 200 * MiB, chunk_size: 100 * MiB, total_chunk_count: 2 }, // chunk over 64 MB
    { source: 'FILE_UPLOAD', video_size: 50 * MiB, chunk_size: 10 * MiB, total_chunk_count: 6 }, // count not floor
    { source: 'FILE_UPLOAD', video_size: 1000 },
  ];
  for (const source of bad) {
    const res = await videoInit(token, source);
    assert.equal(res.status, 400, JSON.stringify(source));
    assert.equal(await errorCode(res), 'invalid_params');
  }
  const good = await videoInit(token, {
    source: 'FILE_UPLOAD',
    video_size: 50_000_123,
    chunk_size: 10_000_000,
    total_chunk_count: 5,
  });
  assert.equal(good.status, 200);
});

test('chunks go in order (206, then 201), and the status runs to PUBLISH_COMPLETE with an exact int64 post id', async () => {
  const { access_token: token } = await signIn('sim_upload');
  const bytes = mp4(300 * 1024);
  const init = (await (
    await videoInit(token, {
      source: 'FILE_UPLOAD',
      video_size: bytes.length,
      chunk_size: bytes.length,
      total_chunk_count: 1,
    })
  ).json()) as { data: { publish_id: string; upload_url: string } };
  const { publish_id: publishId, upload_url: uploadUrl } = init.data;
  const status = async () => {
    const res = await api(token, '/v2/post/publish/status/fetch/', { publish_id: publishId });
    return res.text();
  };
  assert.match(await status(), /"status":"PROCESSING_UPLOAD".*"uploaded_bytes":0/);
  const put = (range: string, body: Buffer) =>
    fetch(uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'video/mp4', 'content-range': range },
      body: new Uint8Array(body),
    });
  assert.equal(
    (await put(`bytes 10-${bytes.length - 1}/${bytes.length}`, bytes.subarray(10))).status,
    416,
    'not in order',
  );
  assert.equal((await put(`bytes 0-${bytes.length - 1}/${bytes.length}`, bytes)).status, 201);
  const done = await pollFor('tiktok publish complete', async () => {
    const text = await status();
    return text.includes('PUBLISH_COMPLETE') ? text : undefined;
  });
  const id = /"publicaly_available_post_id":\[(\d+)\]/.exec(done)![1]!;
  assert.ok(BigInt(id) > 2n ** 53n, 'the id is beyond a double, sent as a number');
  const page = await fetch(`${base}/@sim_upload/video/${id}`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /a caption/);
});

test('a privacy level outside the creator options, and a pull from an unverified URL, are refused', async () => {
  const { access_token: token } = await signIn('sim_private_refusals');
  const res = await videoInit(
    token,
    { source: 'FILE_UPLOAD', video_size: 1000, chunk_size: 1000, total_chunk_count: 1 },
    'PUBLIC_TO_EVERYONE',
  );
  assert.equal(await errorCode(res), 'privacy_level_option_mismatch');
  const pull = await videoInit(token, { source: 'PULL_FROM_URL', video_url: 'https://example.com/v.mp4' });
  assert.equal(pull.status, 403);
  assert.equal(await errorCode(pull), 'url_ownership_unverified');
  const photo = await api(token, '/v2/post/publish/content/init/', {
    media_type: 'PHOTO',
    post_mode: 'DIRECT_POST',
    post_info: { privacy_level: 'SELF_ONLY' },
    source_info: { source: 'FILE_UPLOAD', photo_images: ['https://example.com/a.jpg'] },
  });
  assert.equal(await errorCode(photo), 'invalid_params', 'photos are pulled only');
});

test('the unaudited switch: SELF_ONLY only, and a cap on the users posting in a day', async () => {
  const rig = await startSandbox({
    platforms: ['tiktok'],
    settings: { tiktokUnaudited: true, tiktokActiveUserCap: 1 },
  });
  try {
    const at = rig.baseUrl('tiktok');
    const source = { source: 'FILE_UPLOAD', video_size: 1000, chunk_size: 1000, total_chunk_count: 1 };
    const first = (await signIn('sim_audit_one', at)).access_token;
    const publicPost = await videoInit(first, source, 'PUBLIC_TO_EVERYONE', at);
    assert.equal(publicPost.status, 403);
    assert.equal(await errorCode(publicPost), 'unaudited_client_can_only_post_to_private_accounts');
    assert.equal((await videoInit(first, source, 'SELF_ONLY', at)).status, 200);
    const second = (await signIn('sim_audit_two', at)).access_token;
    const capped = await videoInit(second, source, 'SELF_ONLY', at);
    assert.equal(capped.status, 403);
    assert.equal(await errorCode(capped), 'reached_active_user_cap');
  } finally {
    await rig.close();
  }
});

test('a restart on the same store keeps tokens and publishes; two simulators on one store share them', async () => {
  const store = memoryStore();
  const running = new Set<RunningSandbox>();
  const start = async () => {
    const started = await startSandbox({ platforms: ['tiktok'], secret: 'restart-secret', store: () => store });
    running.add(started);
    return started;
  };
  try {
    const first = await start();
    const { access_token: token } = await signIn('sim_restart', first.baseUrl('tiktok'));
    const init = (await (
      await videoInit(
        token,
        { source: 'FILE_UPLOAD', video_size: 1000, chunk_size: 1000, total_chunk_count: 1 },
        'SELF_ONLY',
        first.baseUrl('tiktok'),
      )
    ).json()) as { data: { publish_id: string } };
    running.delete(first);
    await first.close();
    const [second, third] = [await start(), await start()];
    const res = await api(
      token,
      '/v2/post/publish/status/fetch/',
      { publish_id: init.data.publish_id },
      second.baseUrl('tiktok'),
    );
    assert.equal(res.status, 200, 'the token and the publish survive');
    assert.match(await res.text(), /PROCESSING_UPLOAD/);
    const other = await api(
      token,
      '/v2/post/publish/status/fetch/',
      { publish_id: init.data.publish_id },
      third.baseUrl('tiktok'),
    );
    assert.equal(other.status, 200, 'another node serves it');
  } finally {
    for (const open of running) await open.close();
  }
});
