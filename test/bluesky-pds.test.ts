// Bluesky against a real PDS: @atproto/dev-env runs the reference PDS in-process (its own package under
// test/bluesky-pds, installed with `npm ci --prefix test/bluesky-pds`, kept out of Herald's install). An
// account is created there, connected as a real connection (through the SSRF guard, loopback allow-listed),
// and a post with an image, a link and a two-part thread is published through Herald's public API; the
// records are then read back from the PDS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { connectBluesky } from '../src/features/connections/connections.service.ts';
import { startWorker } from '../src/jobs/worker.ts';
import { buildMediaTestApp, uploadBytes } from './helpers/media.ts';
import { png } from './helpers/media-sources.ts';
import { pollFor } from './helpers/poll.ts';

const START = fileURLToPath(new URL('./bluesky-pds/start-pds.ts', import.meta.url));
const installed = existsSync(
  fileURLToPath(new URL('./bluesky-pds/node_modules/@atproto/dev-env/package.json', import.meta.url)),
);
const skip = installed
  ? false
  : 'the real PDS is not installed: run `npm_config_nodedir=<node headers> npm ci --prefix test/bluesky-pds` (see test/bluesky-pds/package.json)';

interface PostRecord {
  text: string;
  langs: string[];
  facets: Array<{ index: { byteStart: number; byteEnd: number }; features: Array<{ $type: string }> }>;
  embed: { $type: string; images: Array<{ alt: string; aspectRatio: { width: number; height: number } }> };
  reply?: unknown;
}

test(
  'a post with an image, a link and a two-part thread reaches a real PDS through the public API',
  { skip, timeout: 600_000 },
  async () => {
    const child = spawn(process.execPath, [START], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
    const network = { pds: { url: (JSON.parse(line) as { url: string }).url } };
    const t = await buildMediaTestApp({
      env: { HERALD_OUTBOUND_ALLOWLIST: 'localhost,127.0.0.1,::1', HERALD_WORKER_POLL_INTERVAL_MS: '200' },
    });
    const worker = await startWorker(t.container);
    try {
      const pds = network.pds.url;
      const xrpc = async (nsid: string, body: unknown, token?: string) => {
        const res = await fetch(`${pds}/xrpc/${nsid}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify(body),
        });
        assert.equal(res.status, 200, await res.clone().text());
        return res.json() as Promise<Record<string, string>>;
      };
      const account = await xrpc('com.atproto.server.createAccount', {
        handle: 'herald-e2e.test',
        email: 'e2e@example.com',
        password: 'a long password',
      });
      const appPassword = (await xrpc('com.atproto.server.createAppPassword', { name: 'Herald' }, account.accessJwt))
        .password!;

      const live = await t.workspace('live');
      const connection = await connectBluesky(t.container.pool, t.container.platformAccess, {
        workspaceId: live.workspaceId,
        service: pds,
        handle: 'herald-e2e.test',
        appPassword,
      });
      assert.equal(connection.account_id, account.did);
      const key = await t.key({ workspaceIds: [live.workspaceId] });

      const { mediaId, put } = await uploadBytes(t, key, png(64, 48, 1024), 'image/png', { filename: 'e2e.png' });
      assert.equal(put.status, 200, put.body.toString());
      const text = 'Herald on a real PDS 🚀 https://example.com/herald?x=1 #herald';
      const created = await t.inject({
        method: 'POST',
        url: '/v1/posts',
        key,
        payload: {
          content: text,
          platforms: ['bluesky'],
          media_ids: [mediaId],
          publish_now: true,
          platform_options: {
            bluesky: { thread: ['and the second part'], languages: ['en'], alt_texts: ['alt text from the post'] },
          },
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      const id = created.json().data.post.id;
      const post = await pollFor(
        'published on the real PDS',
        async () => {
          const p = (await t.inject({ url: `/v1/posts/${id}`, key })).json().data;
          return ['published', 'failed', 'partially_published'].includes(p.status) ? p : undefined;
        },
        60_000,
      );
      assert.equal(post.status, 'published', JSON.stringify(post.targets[0].error));
      const uri: string = post.targets[0].platform_post_id;
      assert.match(post.targets[0].url, /^https:\/\/bsky\.app\/profile\/herald-e2e\.test\/post\//);

      const list = (await fetch(
        `${pds}/xrpc/com.atproto.repo.listRecords?repo=${account.did}&collection=app.bsky.feed.post`,
      ).then((r) => r.json())) as { records: Array<{ uri: string; cid: string; value: PostRecord }> };
      assert.equal(list.records.length, 2);
      const first = list.records.find((r) => r.uri === uri)!;
      const second = list.records.find((r) => r.uri !== uri)!;
      assert.equal(first.value.text, text);
      assert.deepEqual(first.value.langs, ['en']);
      const link = first.value.facets.find((f) => f.features[0]!.$type === 'app.bsky.richtext.facet#link')!;
      const bytes = Buffer.from(text);
      assert.equal(
        bytes.subarray(link.index.byteStart, link.index.byteEnd).toString(),
        'https://example.com/herald?x=1',
      );
      assert.equal(first.value.embed.$type, 'app.bsky.embed.images');
      assert.equal(first.value.embed.images[0]!.alt, 'alt text from the post');
      assert.deepEqual(first.value.embed.images[0]!.aspectRatio, { width: 64, height: 48 });
      assert.equal(second.value.text, 'and the second part');
      assert.deepEqual(second.value.reply, {
        root: { uri: first.uri, cid: first.cid },
        parent: { uri: first.uri, cid: first.cid },
      });
    } finally {
      await worker.stop();
      await t.close();
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
  },
);
