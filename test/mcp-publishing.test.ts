// An assistant's whole journey through MCP: see the connected accounts, reserve an upload and send the file to
// the signed URL it returns, create a draft with that image, then publish it on request — the post goes out on
// the simulated platforms, exactly as through REST.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startWorker, type WorkerHandle } from '../src/jobs/worker.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { sandboxSecret } from './helpers/app.ts';
import { png } from './helpers/media-fixtures.ts';
import { listenTestApp, type ListeningApp } from './helpers/oauth.ts';
import { pollFor } from './helpers/poll.ts';

let sandbox: RunningSandbox;
let t: ListeningApp;
let worker: WorkerHandle;
let dataDir: string;
let mcp: Client;

type Structured = { structuredContent: Record<string, unknown> };
const data = (result: unknown) => (result as Structured).structuredContent;

before(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'herald-mcp-media-'));
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await listenTestApp({
    HERALD_SANDBOX_URL: sandbox.url,
    HERALD_DATA_DIR: dataDir,
    HERALD_WORKER_POLL_INTERVAL_MS: '200',
  });
  worker = await startWorker(t.container);
  mcp = new Client({ name: 'assistant', version: '1.0.0' });
  const key = await t.key({ scopes: ['posts:read', 'posts:write', 'media:write', 'connections:read'] });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
});
after(async () => {
  await mcp.close();
  await worker.stop();
  await t.close();
  await sandbox.close();
  await rm(dataDir, { recursive: true, force: true });
});

test('list_connections, create_media_upload, create_post (draft), publish_post: published with the image', async () => {
  const connections = data(await mcp.callTool({ name: 'list_connections', arguments: {} })) as {
    items: Array<{ platform: string; is_default: boolean; sandbox: boolean }>;
  };
  assert.ok(
    connections.items.some((c) => c.platform === 'mastodon' && c.is_default && c.sandbox),
    'the sandbox accounts are listed',
  );

  const reserved = await mcp.callTool({
    name: 'create_media_upload',
    arguments: { filename: 'chart.png', content_type: 'image/png' },
  });
  const upload = data(reserved) as {
    media_id: string;
    upload: { signed_url: string; method: string; headers: Record<string, string> };
  };
  assert.match((reserved.content as Array<{ text: string }>)[0]!.text, /curl -X PUT/);
  const put = await fetch(upload.upload.signed_url, {
    method: upload.upload.method,
    headers: upload.upload.headers,
    body: png(40, 30),
  });
  assert.equal(put.status, 200, await put.text());
  const media = data(await mcp.callTool({ name: 'get_media', arguments: { media_id: upload.media_id } }));
  assert.equal(media.status, 'ready');

  const text = `Drafted by an assistant ${Date.now()}`;
  const created = data(
    await mcp.callTool({
      name: 'create_post',
      arguments: { content: text, platforms: ['mastodon', 'bluesky'], media_ids: [upload.media_id] },
    }),
  ) as { post_id: string; post: { id: string; status: string } };
  assert.equal(created.post.status, 'draft', 'a draft unless asked otherwise');
  assert.equal((await sandbox.simulator('mastodon').posts()).filter((p) => p.text === text).length, 0);

  const publishing = data(await mcp.callTool({ name: 'publish_post', arguments: { post_id: created.post_id } }));
  assert.equal(publishing.status, 'publishing');
  const post = await pollFor('post published through MCP', async () => {
    const p = data(await mcp.callTool({ name: 'get_post', arguments: { post_id: created.post_id } })) as {
      status: string;
    };
    return ['published', 'partially_published', 'failed'].includes(p.status) ? p : undefined;
  });
  assert.equal(post.status, 'published', JSON.stringify(post));
  for (const platform of ['mastodon', 'bluesky'] as const) {
    const held = (await sandbox.simulator(platform).posts()).filter((p) => p.text === text);
    assert.equal(held.length, 1, platform);
    assert.equal(held[0]!.media, 1, `${platform} got the image`);
  }
});
