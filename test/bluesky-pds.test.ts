// Bluesky against a real PDS: @atproto/dev-env runs the reference PDS in-process (its own package under
// test/bluesky-pds, installed with `npm ci --prefix test/bluesky-pds`, kept out of Herald's install). An
// account is created there, connected as a real connection (through the SSRF guard, loopback allow-listed),
// and a post with an image, a link and a two-part thread is published through Herald's public API; the
// records are then read back from the PDS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { connectBluesky } from '../src/features/connections/connections.service.ts';
import type { MediaLibrary } from '../src/features/publishing/media-library.ts';
import { buildTestApp } from './helpers/app.ts';
import { mediaSource, png } from './helpers/media-sources.ts';
import { pollFor } from './helpers/poll.ts';

const PACKAGE = fileURLToPath(new URL('./bluesky-pds/package.json', import.meta.url));
const installed = existsSync(fileURLToPath(new URL('./bluesky-pds/node_modules/@atproto/dev-env/package.json', import.meta.url)));
const skip = installed ? false : 'the real PDS is not installed: run `npm_config_nodedir=<node headers> npm ci --prefix test/bluesky-pds` (see test/bluesky-pds/package.json)';

interface PostRecord {
  text: string;
  langs: string[];
  facets: Array<{ index: { byteStart: number; byteEnd: number }; features: Array<{ $type: string }> }>;
  embed: { $type: string; images: Array<{ alt: string; aspectRatio: { width: number; height: number } }> };
  reply?: unknown;
}

interface DevEnv {
  TestNetworkNoAppView: { create(options: object): Promise<{ pds: { url: string }; close(): Promise<void> }> };
}

test('a post with an image, a link and a two-part thread reaches a real PDS through the public API', { skip, timeout: 120_000 }, async () => {
  process.env.LOG_ENABLED = 'false'; // dev-env's own logging
  const { TestNetworkNoAppView } = createRequire(PACKAGE)('@atproto/dev-env') as DevEnv;
  const network = await TestNetworkNoAppView.create({});
  // Until the media feature is wired to publishing, the image comes from an in-memory library behind the
  // same seam (MediaLibrary) the media feature implements.
  const image = mediaSource(png(64, 48), 'image/png', { altText: 'a small test image' });
  const media: MediaLibrary = { sources: async (_w, ids) => ids.map(() => image) };
  const t = await buildTestApp({ worker: true, mediaLibrary: media, env: { HERALD_OUTBOUND_ALLOWLIST: 'localhost,127.0.0.1,::1' } });
  try {
    const pds = network.pds.url;
    const xrpc = async (nsid: string, body: unknown, token?: string) => {
      const res = await fetch(`${pds}/xrpc/${nsid}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
      assert.equal(res.status, 200, await res.clone().text());
      return res.json() as Promise<Record<string, string>>;
    };
    const account = await xrpc('com.atproto.server.createAccount', { handle: 'herald-e2e.test', email: 'e2e@example.com', password: 'a long password' });
    const appPassword = (await xrpc('com.atproto.server.createAppPassword', { name: 'Herald' }, account.accessJwt)).password!;

    const live = await t.workspace('live');
    const connection = await connectBluesky(t.container.pool, t.container.platformAccess, { workspaceId: live.workspaceId, service: pds, handle: 'herald-e2e.test', appPassword });
    assert.equal(connection.account_id, account.did);
    const key = await t.key({ workspaceIds: [live.workspaceId] });

    const text = 'Herald on a real PDS 🚀 https://example.com/herald?x=1 #herald';
    const draft = await t.inject({ method: 'POST', url: '/v1/posts', key, payload: { content: text, platforms: ['bluesky'], platform_options: { bluesky: { thread: ['and the second part'], languages: ['en'] } } } });
    assert.equal(draft.statusCode, 201, draft.body);
    const id = draft.json().data.post.id;
    await t.container.pool.query(`UPDATE posts SET media_ids = '{med_e2e}', platform_options = jsonb_set(platform_options, '{bluesky,alt_texts}', '["alt text from the post"]') WHERE id = $1`, [id]);
    assert.equal((await t.inject({ method: 'POST', url: `/v1/posts/${id}/publish`, key })).statusCode, 200);
    const post = await pollFor('published on the real PDS', async () => {
      const p = (await t.inject({ url: `/v1/posts/${id}`, key })).json().data;
      return ['published', 'failed', 'partially_published'].includes(p.status) ? p : undefined;
    }, 60_000);
    assert.equal(post.status, 'published', JSON.stringify(post.targets[0].error));
    const uri: string = post.targets[0].platform_post_id;
    assert.match(post.targets[0].url, /^https:\/\/bsky\.app\/profile\/herald-e2e\.test\/post\//);

    const list = await fetch(`${pds}/xrpc/com.atproto.repo.listRecords?repo=${account.did}&collection=app.bsky.feed.post`).then((r) => r.json()) as { records: Array<{ uri: string; cid: string; value: PostRecord }> };
    assert.equal(list.records.length, 2);
    const first = list.records.find((r) => r.uri === uri)!;
    const second = list.records.find((r) => r.uri !== uri)!;
    assert.equal(first.value.text, text);
    assert.deepEqual(first.value.langs, ['en']);
    const link = first.value.facets.find((f) => f.features[0]!.$type === 'app.bsky.richtext.facet#link')!;
    const bytes = Buffer.from(text);
    assert.equal(bytes.subarray(link.index.byteStart, link.index.byteEnd).toString(), 'https://example.com/herald?x=1');
    assert.equal(first.value.embed.$type, 'app.bsky.embed.images');
    assert.equal(first.value.embed.images[0]!.alt, 'alt text from the post', 'the post\'s alt text replaces the media item\'s own');
    assert.deepEqual(first.value.embed.images[0]!.aspectRatio, { width: 64, height: 48 });
    assert.equal(second.value.text, 'and the second part');
    assert.deepEqual(second.value.reply, { root: { uri: first.uri, cid: first.cid }, parent: { uri: first.uri, cid: first.cid } });
  } finally {
    await t.close();
    await network.close();
  }
});
