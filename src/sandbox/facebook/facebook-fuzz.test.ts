// The Facebook simulator under arbitrary input: no method, path, parameter or body makes it answer 5xx, and every
// JSON error it gives is the Graph envelope.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSandbox, type RunningSandbox } from '../server.ts';
import { graphTestClient } from './graph-test-client.ts';

let sandbox: RunningSandbox;
let base: string;
const { graph, signIn } = graphTestClient(() => base);

before(async () => {
  sandbox = await startSandbox({ platforms: ['facebook'], settings: { facebookVideoProcessingMs: 300 } });
  base = sandbox.baseUrl('facebook');
});
after(() => sandbox.close());

describe('the Facebook simulator under arbitrary input', () => {
  test('no method, path, parameter or body makes it answer 5xx, and every JSON error is the Graph envelope', async () => {
    const fc = (await import('fast-check')).default;
    const { pages } = await signIn('fuzz_user');
    const page = pages[0]!;
    const paths = [
      `/v23.0/${page.id}/feed`,
      `/v23.0/${page.id}/photos`,
      `/v23.0/${page.id}/videos`,
      '/v23.0/me',
      '/v23.0/me/accounts',
      '/v23.0/oauth/access_token',
      '/v23.0/dialog/oauth',
      `/v23.0/${page.id}_1`,
      '/v23.0/1',
      '/v1/x',
      '/web/1/posts/2',
    ];
    const value = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.constantFrom(
        'start',
        'transfer',
        'finish',
        'true',
        'false',
        '0',
        '-1',
        '1e9',
        '[]',
        '{}',
        '[{"media_fbid":"1"}]',
        'https://a.example/x',
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'DELETE'),
        fc.constantFrom(...paths),
        fc.dictionary(
          fc.constantFrom(
            'message',
            'link',
            'published',
            'upload_phase',
            'file_size',
            'upload_session_id',
            'start_offset',
            'attached_media',
            'attached_media[0]',
            'limit',
            'since',
            'after',
            'fields',
            'code',
            'client_id',
            'client_secret',
            'redirect_uri',
            'grant_type',
            'fb_exchange_token',
            'description',
          ),
          value,
        ),
        fc.boolean(),
        async (method, path, params, withToken) => {
          const res = await graph(method, path, withToken ? { ...params, access_token: page.access_token } : params);
          assert.ok(res.status < 500, `${method} ${path} ${JSON.stringify(params)} → ${res.status}`);
          if (res.status >= 400 && 'error' in res.json) assert.equal(typeof res.json.error.code, 'number');
        },
      ),
      { numRuns: 150 },
    );
  });
});
