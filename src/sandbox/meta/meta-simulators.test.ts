// The Instagram and Threads simulators under arbitrary input: no method, path, parameter or token makes them
// answer 5xx, and every JSON error they give is an error object with a numeric code (the Graph envelope, or
// api.instagram.com's own OAuth shape).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createPlatformHttp } from '../../platforms/http.ts';
import { type PlatformHttp } from '../../platforms/http-contract.ts';
import { createPlatformRegistry } from '../../platforms/registry.ts';
import { startSandbox, type RunningSandbox } from '../server.ts';

let sandbox: RunningSandbox;
const accounts: Record<'instagram' | 'threads', { http: PlatformHttp; id: string; token: string }> = {} as never;

before(async () => {
  sandbox = await startSandbox({ platforms: ['instagram', 'threads'] });
  for (const platform of ['instagram', 'threads'] as const) {
    const http = createPlatformHttp({ baseUrl: sandbox.baseUrl(platform), timeoutMs: 15_000 });
    const { account, credentials } = await createPlatformRegistry()
      .get(platform)!
      .connectSandbox(http, { username: `fuzz_${platform}` });
    accounts[platform] = { http, id: account.accountId, token: credentials.accessToken };
  }
});
after(() => sandbox.close());

const value = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom(
    'IMAGE',
    'VIDEO',
    'REELS',
    'STORIES',
    'CAROUSEL',
    'TEXT',
    'true',
    'false',
    '0',
    '-1',
    '1e9',
    '[]',
    '{}',
    'v23.0',
    'http://127.0.0.1:1/x.jpg',
    'not a url',
    '1,2',
    'everyone',
    'ig_exchange_token',
    'th_refresh_token',
    'authorization_code',
    'deny',
    'approve',
    'views,likes',
    'impressions',
  ),
);
const names = [
  'media_type',
  'image_url',
  'video_url',
  'children',
  'caption',
  'text',
  'is_carousel_item',
  'creation_id',
  'reply_to_id',
  'reply_control',
  'alt_text',
  'share_to_feed',
  'fields',
  'limit',
  'since',
  'after',
  'metric',
  'message',
  'grant_type',
  'code',
  'client_id',
  'client_secret',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'sandbox_username',
  'decision',
];

for (const platform of ['instagram', 'threads'] as const) {
  describe(`the ${platform} simulator under arbitrary input`, () => {
    test('never a 5xx; JSON errors carry a numeric code', async () => {
      const { http, id, token } = accounts[platform];
      const v = platform === 'instagram' ? 'v23.0' : 'v1.0';
      const edges =
        platform === 'instagram'
          ? ['media', 'media_publish', 'content_publishing_limit', 'stories']
          : ['threads', 'threads_publish', 'threads_publishing_limit', 'replies'];
      const paths = [
        ...edges.map((e) => `/${v}/${id}/${e}`),
        ...edges.map((e) => `/${v}/me/${e}`),
        `/${v}/me`,
        `/${v}/1`,
        `/${v}/1/comments`,
        `/${v}/1/insights`,
        `/${v}/1/replies`,
        '/v99/me',
        '/oauth/authorize',
        '/oauth/access_token',
        '/access_token',
        '/refresh_access_token',
        '/web/p/x',
        '/web/@a/post/b',
        '/nothing',
      ];
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('GET', 'POST', 'DELETE'),
          fc.constantFrom(...paths),
          fc.dictionary(fc.constantFrom(...names), value),
          fc.constantFrom('none', 'valid', 'forged'),
          async (method, path, params, auth) => {
            const withToken =
              auth === 'none' ? params : { ...params, access_token: auth === 'valid' ? token : 'forged.token.value' };
            const res = await http.request(
              method === 'POST'
                ? { method, path, form: withToken }
                : { method: method as 'GET' | 'DELETE', path, query: withToken },
            );
            assert.ok(
              res.status < 500,
              `${method} ${path} ${JSON.stringify(params)} → ${res.status} ${res.text().slice(0, 200)}`,
            );
            if (res.status >= 400 && String(res.headers['content-type']).includes('json')) {
              const body = res.json<{ error?: { code?: unknown }; code?: unknown }>();
              assert.equal(
                typeof (body.error?.code ?? body.code),
                'number',
                `${method} ${path}: ${res.text().slice(0, 200)}`,
              );
            }
          },
        ),
        { numRuns: 200 },
      );
    });
  });
}
