// The LinkedIn adapter against its simulator over real HTTP: the shared contract, then LinkedIn's own behaviour —
// little-text escaping, the configured LinkedIn-Version (a retired one is PLATFORM_API_VERSION_RETIRED), the
// multi-part video protocol and the processing states, documents, multi-image posts, organization authors, the
// daily limit, duplicates, and the OAuth capability (consent, denial, replayed and expired codes, refresh, revoke).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { adapterContract, rejects } from '../../../test/helpers/adapter-contract.ts';
import { mediaSource, mp4, png } from '../../../test/helpers/media-sources.ts';
import { classify } from '../classify.ts';
import { createPlatformHttp } from '../http.ts';
import { type PlatformHttp, type PlatformResponse } from '../http-contract.ts';
import { LINKEDIN_ERRORS } from './errors.ts';
import { createPlatformRegistry } from '../registry.ts';
import type { Credentials, OAuthContext, OutgoingPart, PlatformAdapter, PlatformSession } from '../types.ts';
import { startSandbox, type RunningSandbox } from '../../sandbox/server.ts';
import { readLittleText } from '../../sandbox/linkedin/posts.ts';
import { escapeLittleText } from './map.ts';

adapterContract('linkedin');

describe("LinkedIn error table against LinkedIn's error bodies", () => {
  const answer = (status: number, body: unknown): PlatformResponse => {
    const text = JSON.stringify(body);
    return {
      status,
      headers: {},
      body: Buffer.from(text),
      text: () => text,
      json: () => JSON.parse(text),
      rateLimit: { limit: undefined, remaining: undefined, resetAt: undefined },
      retryAfterMs: undefined,
    };
  };
  const cases: Array<[string, number, unknown, string, string]> = [
    [
      'retired version',
      426,
      { status: 426, code: 'NONEXISTENT_VERSION', message: 'Requested version 20250401 is not active' },
      'permanent',
      'PLATFORM_API_VERSION_RETIRED',
    ],
    [
      'expired token',
      401,
      {
        status: 401,
        serviceErrorCode: 65601,
        code: 'EXPIRED_ACCESS_TOKEN',
        message: 'The token used in the request has expired',
      },
      'auth_expired',
      'PLATFORM_RECONNECT_REQUIRED',
    ],
    [
      'empty token',
      401,
      { message: 'Empty oauth2_access_token', serviceErrorCode: 401, status: 401 },
      'auth_expired',
      'PLATFORM_RECONNECT_REQUIRED',
    ],
    [
      'missing permission',
      403,
      { serviceErrorCode: 100, message: 'Not enough permissions to access: GET /me', status: 403 },
      'permanent',
      'PLATFORM_PERMISSION_DENIED',
    ],
    [
      'duplicate',
      422,
      {
        message: 'Content is a duplicate of urn:li:share:7123',
        status: 422,
        errorDetails: { inputErrors: [{ code: 'DUPLICATE_POST' }] },
      },
      'invalid_content',
      'PLATFORM_DUPLICATE',
    ],
    [
      'missing fields',
      422,
      { message: 'Missing required fields: visibility', status: 422 },
      'invalid_content',
      'PLATFORM_CONTENT_REJECTED',
    ],
    [
      'media not ready',
      422,
      {
        message: 'Media urn:li:video:D4D05AQx is PROCESSING, not AVAILABLE (/content/0/id)',
        status: 422,
        errorDetails: { inputErrors: [{ input: { inputPath: { fieldPath: '/content/0/id' } } }] },
      },
      'media_rejected',
      'PLATFORM_MEDIA_REJECTED',
    ],
    [
      'unconvertible body',
      400,
      { status: 400, code: 'ILLEGAL_ARGUMENT', message: 'Request body could not be converted to data map' },
      'invalid_content',
      'PLATFORM_CONTENT_REJECTED',
    ],
    [
      'daily limit',
      429,
      { status: 429, message: 'Resource level throttle MEMBER DAY limit for calls to this resource is reached.' },
      'rate_limited',
      'PLATFORM_RATE_LIMITED',
    ],
    ['server error', 504, { status: 504, message: 'Gateway timeout' }, 'transient', 'PLATFORM_UNAVAILABLE'],
  ];
  for (const [name, status, body, kind, code] of cases) {
    test(`${name}: ${status} → ${kind} ${code}`, () => {
      const error = classify(answer(status, body), LINKEDIN_ERRORS, 'LinkedIn');
      assert.equal(error.kind, kind);
      assert.equal(error.code, code);
      assert.ok(!error.message.includes('[object'), error.message);
    });
  }
});

const DAY = 24 * 3600_000;
const pdf = () => Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
const currentVersion = () => new Date().toISOString().slice(0, 7).replace('-', '');

interface Rig {
  sandbox: RunningSandbox;
  http: PlatformHttp;
  adapter: PlatformAdapter;
  session: PlatformSession;
  shift(ms: number): void;
  part(text: string, extra?: Partial<OutgoingPart>): OutgoingPart;
  /** A raw /rest call with the version headers and the session's token. */
  rest(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    extra?: { json?: unknown; query?: Record<string, string>; headers?: Record<string, string> },
  ): ReturnType<PlatformHttp['request']>;
}

async function rig(
  settings: Record<string, unknown> = {},
  options: { rateLimitFactor?: number; username?: string } = {},
): Promise<Rig> {
  let offset = 0;
  const sandbox = await startSandbox({
    platforms: ['linkedin'],
    settings,
    now: () => Date.now() + offset,
    rateLimitFactor: options.rateLimitFactor,
  });
  const http = createPlatformHttp({ baseUrl: sandbox.baseUrl('linkedin'), timeoutMs: 3000 });
  const adapter = createPlatformRegistry({ linkedin: { apiVersion: currentVersion() } }).get('linkedin')!;
  const { account, credentials } = await adapter.connectSandbox(http, { username: options.username ?? 'li_member' });
  const session: PlatformSession = {
    connection: {
      id: 'conn_li',
      accountId: account.accountId,
      handle: account.handle,
      baseUrl: http.baseUrl,
      settings: {},
      sandbox: true,
    },
    credentials,
    http,
    clock: { now: () => new Date(Date.now() + offset) },
  };
  return {
    sandbox,
    http,
    adapter,
    session,
    shift: (ms) => {
      offset += ms;
    },
    part: (text, extra = {}) => ({
      index: 0,
      text,
      media: [],
      parent: null,
      root: null,
      key: adapter.newPartKey(new Date()),
      firstSentAt: new Date(),
      options: {},
      ...extra,
    }),
    rest: (method, path, extra = {}) =>
      http.request({
        method,
        path,
        bearer: session.credentials.accessToken,
        json: extra.json,
        query: extra.query,
        headers: { 'linkedin-version': currentVersion(), 'x-restli-protocol-version': '2.0.0', ...extra.headers },
      }),
  };
}

describe('LinkedIn commentary is little text', () => {
  test('every reserved character is escaped, and the simulator reads the escaped text back as written', () => {
    const text = 'a\\b|c{d}e@f[g]h(i)j<k>l#m*n_o~p';
    assert.equal(escapeLittleText(text), 'a\\\\b\\|c\\{d\\}e\\@f\\[g\\]h\\(i\\)j\\<k\\>l\\#m\\*n\\_o\\~p');
    assert.deepEqual(readLittleText(escapeLittleText(text)), { plain: text, truncated: false });
  });

  test('unescaped reserved characters cut the post short, as LinkedIn silently does; hashtags and mentions survive', () => {
    assert.deepEqual(readLittleText('Launch (beta) today'), { plain: 'Launch ', truncated: true });
    assert.deepEqual(readLittleText('Hi @[Acme](urn:li:organization:123) #launch'), {
      plain: 'Hi Acme #launch',
      truncated: false,
    });
  });
});

describe('LinkedIn adapter specifics', () => {
  let r: Rig;
  before(async () => {
    r = await rig({ linkedinVideoPartBytes: 100_000, linkedinVideoProcessingMs: 1200, linkedinImageProcessingMs: 200 });
  });
  after(() => r.sandbox.close());
  const held = () => r.sandbox.simulator('linkedin').posts();

  test('text full of reserved characters is published whole: the id is the x-restli-id URN', async () => {
    const text = `Q&A (part 1) — see [docs] <here> #not_a_tag *bold* ~x~ a|b {c} \\ @someone ${Date.now()}`;
    const post = await r.adapter.publish(r.session, r.part(text));
    assert.match(post.id, /^urn:li:share:\d+$/);
    assert.equal(post.url, `${r.http.baseUrl}/web/feed/update/${post.id}`);
    const copy = held().find((p) => p.id === post.id)!;
    assert.equal(copy.text, text);
    assert.equal(copy.account, r.session.connection.accountId);
    // Every post gets its own 19-digit id, and the author finder lists them newest first.
    const next = await r.adapter.publish(r.session, r.part(`next ${Date.now()}`));
    assert.notEqual(next.id, post.id);
    const listed = (
      await r.rest('GET', '/rest/posts', { query: { q: 'author', author: r.session.connection.accountId, count: '2' } })
    ).json<{ elements: Array<{ id: string }> }>();
    assert.deepEqual(
      listed.elements.map((e) => e.id),
      [next.id, post.id],
    );
  });

  test('the raw API: missing version is 400 VERSION_MISSING, a retired one 426 NONEXISTENT_VERSION, Rest.li 2.0 is required', async () => {
    const missing = await r.http.request({
      method: 'GET',
      path: '/rest/posts',
      bearer: r.session.credentials.accessToken,
      query: { q: 'author', author: r.session.connection.accountId },
      headers: { 'x-restli-protocol-version': '2.0.0' },
    });
    assert.equal(missing.status, 400);
    assert.equal(missing.json().code, 'VERSION_MISSING');
    const retired = await r.rest('GET', '/rest/posts', {
      query: { q: 'author', author: r.session.connection.accountId },
      headers: { 'linkedin-version': '202301' },
    });
    assert.equal(retired.status, 426);
    assert.deepEqual(retired.json(), {
      status: 426,
      code: 'NONEXISTENT_VERSION',
      message: 'Requested version 202301 is not active',
    });
    const noRestli = await r.http.request({
      method: 'GET',
      path: '/rest/posts',
      bearer: r.session.credentials.accessToken,
      query: { q: 'author', author: r.session.connection.accountId },
      headers: { 'linkedin-version': currentVersion() },
    });
    assert.equal(noRestli.status, 400);
  });

  test('an adapter configured with a retired version fails with PLATFORM_API_VERSION_RETIRED, not a generic failure', async () => {
    const old = createPlatformRegistry({ linkedin: { apiVersion: '202301' } }).get('linkedin')!;
    const error = await rejects(
      old.publish(r.session, r.part(`old version ${Date.now()}`)),
      'permanent',
      'PLATFORM_API_VERSION_RETIRED',
    );
    assert.equal(error.platformStatus, 426);
    await rejects(
      old.prepareMedia(r.session, [mediaSource(png(), 'image/png')], {}),
      'permanent',
      'PLATFORM_API_VERSION_RETIRED',
    );
    // A version from the future does not exist yet either.
    const future = createPlatformRegistry({ linkedin: { apiVersion: `${new Date().getUTCFullYear() + 1}01` } }).get(
      'linkedin',
    )!;
    await rejects(
      future.publish(r.session, r.part(`future version ${Date.now()}`)),
      'permanent',
      'PLATFORM_API_VERSION_RETIRED',
    );
  });

  test('a video is sent in the byte ranges LinkedIn hands out and finalized with their ETags in order', async () => {
    const size = 350_000;
    const init = await r.rest('POST', '/rest/videos', {
      query: { action: 'initializeUpload' },
      json: {
        initializeUploadRequest: {
          owner: r.session.connection.accountId,
          fileSizeBytes: size,
          uploadCaptions: false,
          uploadThumbnail: false,
        },
      },
    });
    assert.equal(init.status, 200, init.text());
    const value = init.json<{
      value: {
        video: string;
        uploadToken: string;
        uploadInstructions: Array<{ uploadUrl: string; firstByte: number; lastByte: number }>;
      };
    }>().value;
    assert.deepEqual(
      value.uploadInstructions.map((i) => [i.firstByte, i.lastByte]),
      [
        [0, 99_999],
        [100_000, 199_999],
        [200_000, 299_999],
        [300_000, 349_999],
      ],
    );
    const bytes = mp4(size);
    const etags: string[] = [];
    for (const i of value.uploadInstructions) {
      const put = await r.http.request({
        method: 'PUT',
        path: i.uploadUrl,
        body: { data: bytes.subarray(i.firstByte, i.lastByte + 1), contentType: 'application/octet-stream' },
      });
      assert.equal(put.status, 200);
      etags.push(String(put.headers.etag));
    }
    const status = async () =>
      (await r.rest('GET', `/rest/videos/${encodeURIComponent(value.video)}`)).json<{ status: string }>().status;
    assert.equal(await status(), 'WAITING_UPLOAD');
    const finalize = (ids: string[]) =>
      r.rest('POST', '/rest/videos', {
        query: { action: 'finalizeUpload' },
        json: { finalizeUploadRequest: { video: value.video, uploadToken: value.uploadToken, uploadedPartIds: ids } },
      });
    assert.equal((await finalize([...etags].reverse())).status, 400, 'ETags out of order are refused');
    assert.equal((await finalize(etags.slice(1))).status, 400, 'a missing ETag is refused');
    assert.equal((await finalize(etags)).status, 200);
    assert.equal(await status(), 'PROCESSING');
    const post = await r.rest('POST', '/rest/posts', {
      json: {
        author: r.session.connection.accountId,
        commentary: 'too early',
        visibility: 'PUBLIC',
        distribution: { feedDistribution: 'MAIN_FEED' },
        lifecycleState: 'PUBLISHED',
        content: { media: { id: value.video } },
      },
    });
    assert.equal(post.status, 422, 'a video still processing cannot be posted');
    const deadline = Date.now() + 20_000;
    while ((await status()) !== 'AVAILABLE') {
      assert.ok(Date.now() < deadline, 'video processing ends');
      await new Promise((done) => setTimeout(done, 100));
    }
  });

  test('the adapter uploads a multi-part video, waits for processing and posts it', async () => {
    const media = await r.adapter.prepareMedia(r.session, [mediaSource(mp4(250_001), 'video/mp4')], {});
    assert.match(media[0]!.platformRef, /^urn:li:video:/);
    const post = await r.adapter.publish(r.session, r.part(`video ${Date.now()}`, { media }));
    assert.equal(held().find((p) => p.id === post.id)?.media, 1);
  });

  test("bytes that are not a video end in PROCESSING_FAILED: media_rejected with LinkedIn's reason", async () => {
    const error = await rejects(
      r.adapter.prepareMedia(r.session, [mediaSource(png(2, 2, 150_000), 'video/mp4', { kind: 'video' })], {}),
      'media_rejected',
      'PLATFORM_MEDIA_REJECTED',
    );
    assert.match(error.message, /not a supported video/);
  });

  test('a PDF is posted as a document with its title; other bytes are refused', async () => {
    const media = await r.adapter.prepareMedia(
      r.session,
      [mediaSource(pdf(), 'application/pdf', { kind: 'document' })],
      {},
    );
    assert.match(media[0]!.platformRef, /^urn:li:document:/);
    const post = await r.adapter.publish(
      r.session,
      r.part(`document ${Date.now()}`, { media, options: { document_title: 'Quarterly report' } }),
    );
    const stored = (await r.rest('GET', `/rest/posts/${encodeURIComponent(post.id)}`)).json<{
      content: { media: { id: string; title: string } };
    }>();
    assert.deepEqual(stored.content.media, { id: media[0]!.platformRef, title: 'Quarterly report' });
    await rejects(
      r.adapter.prepareMedia(r.session, [mediaSource(png(), 'application/pdf', { kind: 'document' })], {}),
      'media_rejected',
    );
  });

  test('several images make a multi-image post with their alt texts; more than 20 are refused', async () => {
    const media = await r.adapter.prepareMedia(
      r.session,
      [1, 2, 3].map((n) => mediaSource(png(n, n), 'image/png', { altText: `image ${n}` })),
      {},
    );
    const post = await r.adapter.publish(r.session, r.part(`three images ${Date.now()}`, { media }));
    const stored = (await r.rest('GET', `/rest/posts/${encodeURIComponent(post.id)}`)).json<{
      content: { multiImage: { images: Array<{ id: string; altText: string }> } };
    }>();
    assert.deepEqual(
      stored.content.multiImage.images.map((i) => i.altText),
      ['image 1', 'image 2', 'image 3'],
    );
    const many = Array.from({ length: 21 }, () => media[0]!);
    await rejects(r.adapter.publish(r.session, r.part(`too many ${Date.now()}`, { media: many })), 'media_rejected');
  });

  test('the same commentary twice is PLATFORM_DUPLICATE; a re-send after a lost answer takes the earlier post', async () => {
    const text = `duplicate ${Date.now()}`;
    await r.adapter.publish(r.session, r.part(text));
    await rejects(
      r.adapter.publish(r.session, r.part(text, { firstSentAt: new Date(Date.now() + 5 * 60_000) })),
      'invalid_content',
      'PLATFORM_DUPLICATE',
    );
    const part = r.part(`lost then resent ${Date.now()}`);
    r.sandbox.simulator('linkedin').faults.add({ fault: 'lost_response', operation: 'create_post' });
    await rejects(r.adapter.publish(r.session, part), 'unknown_outcome');
    const again = await r.adapter.publish(r.session, part);
    const copies = held().filter((p) => p.text === part.text);
    assert.equal(copies.length, 1);
    assert.equal(again.id, copies[0]!.id);
  });

  test("the duplicate fault is LinkedIn's 422 DUPLICATE_POST; a failed status read while processing is transient", async () => {
    const sim = r.sandbox.simulator('linkedin');
    sim.faults.add({ fault: 'duplicate', operation: 'create_post' });
    const error = await rejects(
      r.adapter.publish(r.session, r.part(`flagged as duplicate ${Date.now()}`)),
      'invalid_content',
      'PLATFORM_DUPLICATE',
    );
    assert.equal(error.platformStatus, 422);
    sim.faults.add({ fault: 'server_error', operation: 'media_status' });
    await rejects(
      r.adapter.prepareMedia(r.session, [mediaSource(png(), 'image/png')], {}),
      'transient',
      'PLATFORM_UNAVAILABLE',
    );
  });

  test('an organization the member administers can be the author; another one is PLATFORM_PERMISSION_DENIED', async () => {
    const accounts = await r.adapter.oauth!.accounts(
      {
        http: r.http,
        webUrl: r.http.baseUrl,
        sandbox: true,
        app: { clientId: 'herald-sandbox', clientSecret: 'herald-sandbox-secret' },
        redirectUri: 'http://127.0.0.1/cb',
      },
      r.session.credentials,
    );
    assert.equal(accounts.length, 2);
    assert.equal(accounts[0]!.account.accountId, r.session.connection.accountId);
    const org = accounts[1]!.account;
    assert.match(org.accountId, /^urn:li:organization:\d+$/);
    const options = { organization: org.accountId };
    const media = await r.adapter.prepareMedia(r.session, [mediaSource(png(4, 3), 'image/png')], options);
    const post = await r.adapter.publish(r.session, r.part(`from the page ${Date.now()}`, { media, options }));
    assert.equal(held().find((p) => p.id === post.id)?.account, org.accountId);
    // A connection of the page itself verifies as the page and publishes as it.
    const pageSession = {
      ...r.session,
      connection: { ...r.session.connection, accountId: org.accountId, handle: org.handle },
    };
    assert.deepEqual(await r.adapter.verifyAccount(pageSession), org);
    const pagePost = await r.adapter.publish(pageSession, r.part(`page connection ${Date.now()}`));
    assert.equal(held().find((p) => p.id === pagePost.id)?.account, org.accountId);
    await rejects(
      r.adapter.publish(
        r.session,
        r.part(`not mine ${Date.now()}`, { options: { organization: 'urn:li:organization:1' } }),
      ),
      'permanent',
      'PLATFORM_PERMISSION_DENIED',
    );
  });
});

describe('LinkedIn daily limit', () => {
  test('past the daily post limit the answer is 429 without headers: rate_limited until midnight UTC', async () => {
    const r = await rig({}, { rateLimitFactor: 0.001 });
    try {
      await r.adapter.publish(r.session, r.part(`first of the day ${Date.now()}`));
      const error = await rejects(
        r.adapter.publish(r.session, r.part(`second of the day ${Date.now()}`)),
        'rate_limited',
        'PLATFORM_RATE_LIMITED',
      );
      const midnight = new Date();
      midnight.setUTCHours(24, 0, 0, 0);
      assert.ok(
        Math.abs(Date.now() + error.retryAfterMs! - midnight.getTime()) < 5000,
        `retry at midnight UTC, got +${error.retryAfterMs} ms`,
      );
    } finally {
      await r.sandbox.close();
    }
  });
});

describe('LinkedIn OAuth against the simulator', () => {
  let r: Rig;
  let ctx: OAuthContext;
  before(async () => {
    r = await rig();
    ctx = {
      http: r.http,
      webUrl: r.http.baseUrl,
      sandbox: true,
      app: { clientId: 'app-123', clientSecret: 'secret-456' },
      redirectUri: 'https://herald.example/connect/callback',
    };
  });
  after(() => r.sandbox.close());

  /** Follows the consent URL as the browser would, approving (as `username`) or cancelling. */
  async function consent(decision: { username: string } | 'deny'): Promise<URL> {
    const url = new URL(r.adapter.oauth!.authorizeUrl(ctx, { state: 'st-1', codeChallenge: null }));
    // The consent page posts its form back to the authorize path: Cancel sends `decision=deny`.
    const res =
      decision === 'deny'
        ? await r.http.request({
            method: 'POST',
            path: url.toString(),
            form: { decision: 'deny', sandbox_username: 'someone' },
          })
        : await r.http.request({
            method: 'GET',
            path: (url.searchParams.set('sandbox_username', decision.username), url.toString()),
          });
    assert.equal(res.status, 302, res.text());
    return new URL(String(res.headers.location));
  }

  test("the consent URL is LinkedIn's authorization page, which shows an allow / cancel form", async () => {
    const url = new URL(r.adapter.oauth!.authorizeUrl(ctx, { state: 'st-1', codeChallenge: null }));
    assert.equal(url.pathname.endsWith('/oauth/v2/authorization'), true);
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      response_type: 'code',
      client_id: 'app-123',
      redirect_uri: ctx.redirectUri,
      state: 'st-1',
      scope: r.adapter.oauth!.scopes.join(' '),
    });
    assert.equal(r.adapter.oauth!.pkce, false);
    const page = await r.http.request({ method: 'GET', path: url.toString() });
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    assert.match(page.text(), /<form method="post"/);
    assert.match(page.text(), /name="decision" value="approve"/);
    assert.match(page.text(), /name="decision" value="deny"/);
  });

  test('approve → code → exchange → accounts: the member and their page, with 60-day credentials', async () => {
    const back = await consent({ username: 'oauth_member' });
    assert.equal(back.searchParams.get('state'), 'st-1');
    const credentials = await r.adapter.oauth!.exchangeCode(ctx, {
      code: back.searchParams.get('code')!,
      codeVerifier: null,
    });
    assert.ok(credentials.refreshToken);
    const days = (Date.parse(credentials.expiresAt!) - Date.now()) / DAY;
    assert.ok(days > 59 && days <= 60, `expires in ${days} days`);
    const accounts = await r.adapter.oauth!.accounts(ctx, credentials);
    assert.deepEqual(
      accounts.map((a) => a.account.accountId.replace(/:[^:]+$/, '')),
      ['urn:li:person', 'urn:li:organization'],
    );
    assert.equal(accounts[0]!.account.displayName, 'oauth member');
  });

  test("a cancelled consent comes back with LinkedIn's error and no code", async () => {
    const back = await consent('deny');
    assert.equal(back.searchParams.get('error'), 'user_cancelled_authorize');
    assert.equal(back.searchParams.get('state'), 'st-1');
    assert.equal(back.searchParams.get('code'), null);
  });

  test('a replayed code, a code for another redirect URI or client, and an expired code are refused (auth_expired)', async () => {
    const code = (await consent({ username: 'replayer' })).searchParams.get('code')!;
    await rejects(
      r.adapter.oauth!.exchangeCode(
        { ...ctx, redirectUri: 'https://elsewhere.example/cb' },
        { code, codeVerifier: null },
      ),
      'auth_expired',
    );
    await rejects(
      r.adapter.oauth!.exchangeCode(
        { ...ctx, app: { clientId: 'other-app', clientSecret: 'x' } },
        { code, codeVerifier: null },
      ),
      'auth_expired',
    );
    await r.adapter.oauth!.exchangeCode(ctx, { code, codeVerifier: null });
    const replay = await rejects(r.adapter.oauth!.exchangeCode(ctx, { code, codeVerifier: null }), 'auth_expired');
    assert.equal(replay.platformStatus, 400);
    const late = (await consent({ username: 'slowpoke' })).searchParams.get('code')!;
    r.shift(31 * 60_000);
    try {
      await rejects(r.adapter.oauth!.exchangeCode(ctx, { code: late, codeVerifier: null }), 'auth_expired');
    } finally {
      r.shift(-31 * 60_000);
    }
  });

  test('an expired access token is refreshed; LinkedIn keeps the same refresh token (no rotation); revoked tokens stop working', async () => {
    const code = (await consent({ username: 'refresher' })).searchParams.get('code')!;
    const credentials: Credentials = await r.adapter.oauth!.exchangeCode(ctx, { code, codeVerifier: null });
    const adapter = createPlatformRegistry({
      linkedin: { apiVersion: currentVersion(), clientId: 'app-123', clientSecret: 'secret-456' },
    }).get('linkedin')!;
    const account = (await r.adapter.oauth!.accounts(ctx, credentials))[0]!.account;
    const session: PlatformSession = {
      ...r.session,
      connection: { ...r.session.connection, accountId: account.accountId },
      credentials,
    };
    r.shift(61 * DAY);
    try {
      await rejects(adapter.verifyAccount(session), 'auth_expired');
      const renewed = await adapter.refreshCredentials(session);
      assert.notEqual(renewed.accessToken, credentials.accessToken);
      assert.equal(renewed.refreshToken, credentials.refreshToken, 'the refresh token is not rotated');
      assert.equal((await adapter.verifyAccount({ ...session, credentials: renewed })).accountId, account.accountId);
      // The same refresh token works again (it is not single-use) …
      const again = await adapter.refreshCredentials({ ...session, credentials: renewed });
      // … until a year after the first grant.
      r.shift(305 * DAY);
      await rejects(
        adapter.refreshCredentials({ ...session, credentials: again }),
        'auth_expired',
        'PLATFORM_RECONNECT_REQUIRED',
      );
      r.shift(-305 * DAY);
      await r.adapter.oauth!.revoke!(ctx, again);
      await rejects(adapter.verifyAccount({ ...session, credentials: again }), 'auth_expired');
    } finally {
      r.shift(-61 * DAY);
    }
  });

  test('a refresh with another client secret is refused', async () => {
    const code = (await consent({ username: 'wrong_secret' })).searchParams.get('code')!;
    const credentials = await r.adapter.oauth!.exchangeCode(ctx, { code, codeVerifier: null });
    const other = createPlatformRegistry({
      linkedin: { apiVersion: currentVersion(), clientId: 'app-123', clientSecret: 'not-the-secret' },
    }).get('linkedin')!;
    await rejects(other.refreshCredentials({ ...r.session, credentials }), 'auth_expired');
  });
});

describe('LinkedIn simulator refuses bad input with LinkedIn errors, never a 500', () => {
  let r: Rig;
  before(async () => {
    r = await rig();
  });
  after(() => r.sandbox.close());

  test('malformed bodies, fields of the wrong type, unknown URNs and forged upload URLs are 4xx with an error body', async () => {
    const author = r.session.connection.accountId;
    const post = (json: unknown) => r.rest('POST', '/rest/posts', { json });
    const valid = {
      author,
      commentary: 'x',
      visibility: 'PUBLIC',
      distribution: { feedDistribution: 'MAIN_FEED' },
      lifecycleState: 'PUBLISHED',
    };
    const cases: Array<[string, Promise<Awaited<ReturnType<Rig['rest']>>>]> = [
      ['array body', post([1, 2])],
      ['null body', post(null)],
      ['missing fields', post({ author })],
      ['author not a URN', post({ ...valid, author: 'me' })],
      ['commentary a number', post({ ...valid, commentary: 5 })],
      ['visibility unknown', post({ ...valid, visibility: 'EVERYONE' })],
      ['distribution null', post({ ...valid, distribution: null })],
      ['content null', post({ ...valid, content: null })],
      ['content two kinds', post({ ...valid, content: { media: { id: 'x' }, multiImage: { images: [] } } })],
      ['media unknown', post({ ...valid, content: { media: { id: 'urn:li:image:nope' } } })],
      ['multiImage items null', post({ ...valid, content: { multiImage: { images: [null, null] } } })],
      ['unknown field', post({ ...valid, bogus: true })],
      [
        'not JSON',
        r.http.request({
          method: 'POST',
          path: '/rest/posts',
          bearer: r.session.credentials.accessToken,
          headers: { 'linkedin-version': currentVersion(), 'x-restli-protocol-version': '2.0.0' },
          body: { data: Buffer.from('{oops'), contentType: 'application/json' },
        }),
      ],
      ['init without request', r.rest('POST', '/rest/images', { query: { action: 'initializeUpload' }, json: {} })],
      ['init unknown action', r.rest('POST', '/rest/images', { query: { action: 'explode' }, json: {} })],
      [
        'video size negative',
        r.rest('POST', '/rest/videos', {
          query: { action: 'initializeUpload' },
          json: { initializeUploadRequest: { owner: author, fileSizeBytes: -1 } },
        }),
      ],
      [
        'video size huge',
        r.rest('POST', '/rest/videos', {
          query: { action: 'initializeUpload' },
          json: { initializeUploadRequest: { owner: author, fileSizeBytes: 1e15 } },
        }),
      ],
      [
        'finalize unknown video',
        r.rest('POST', '/rest/videos', {
          query: { action: 'finalizeUpload' },
          json: { finalizeUploadRequest: { video: 'urn:li:video:nope', uploadedPartIds: 'x' } },
        }),
      ],
      [
        'someone else as owner',
        r.rest('POST', '/rest/documents', {
          query: { action: 'initializeUpload' },
          json: { initializeUploadRequest: { owner: 'urn:li:person:someoneelse' } },
        }),
      ],
      ['status of unknown image', r.rest('GET', `/rest/images/${encodeURIComponent('urn:li:image:nope')}`)],
      ['badly encoded URN', r.rest('GET', '/rest/posts/urn%ZZ')],
      ['finder without author', r.rest('GET', '/rest/posts', { query: { q: 'author' } })],
      ['finder count 0', r.rest('GET', '/rest/posts', { query: { q: 'author', author, count: '0' } })],
      [
        'forged upload URL',
        r.http.request({
          method: 'PUT',
          path: '/dms-uploads/urn%3Ali%3Aimage%3Ax/0?ut=forged',
          body: { data: png(), contentType: 'application/octet-stream' },
        }),
      ],
      ['token without fields', r.http.request({ method: 'POST', path: '/oauth/v2/accessToken', form: {} })],
      [
        'token unknown grant',
        r.http.request({
          method: 'POST',
          path: '/oauth/v2/accessToken',
          form: { grant_type: 'password', client_id: 'a', client_secret: 'b' },
        }),
      ],
      [
        'authorize without state',
        r.http.request({
          method: 'GET',
          path: '/oauth/v2/authorization',
          query: { response_type: 'code', client_id: 'a', redirect_uri: 'https://a.example/cb', scope: 'openid' },
        }),
      ],
      [
        'authorize unknown scope',
        r.http.request({
          method: 'GET',
          path: '/oauth/v2/authorization',
          query: {
            response_type: 'code',
            client_id: 'a',
            redirect_uri: 'https://a.example/cb',
            scope: 'r_everything',
            state: 's',
          },
        }),
      ],
      ['no token', r.http.request({ method: 'GET', path: '/v2/userinfo' })],
      ['forged token', r.http.request({ method: 'GET', path: '/v2/userinfo', bearer: 'a.b.c' })],
    ];
    for (const [label, pending] of cases) {
      const res = await pending;
      assert.ok(res.status >= 400 && res.status < 500, `${label}: ${res.status} ${res.text()}`);
      const body = res.json<Record<string, unknown>>();
      assert.ok(typeof body.message === 'string' || typeof body.error === 'string', `${label}: ${res.text()}`);
    }
  });
});
