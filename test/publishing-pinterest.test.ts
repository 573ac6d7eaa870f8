// Pinterest end to end through the public API, a worker and the simulator: an uploaded image published as a Pin on
// the board the post names (fetched by the simulator from Herald's signed URL, as Pinterest fetches it), a carousel
// of three images, and a Pin whose create answer is lost reconciled into one Pin by the look-up on its board.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, type WorkerHandle } from '../src/jobs/worker.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { sandboxSecret } from './helpers/app.ts';
import { buildMediaTestApp, serveMediaToSimulators, uploadBytes, type MediaTestApp } from './helpers/media.ts';
import { jpeg } from './helpers/media-sources.ts';
import { pollFor } from './helpers/poll.ts';

let sandbox: RunningSandbox;
let t: MediaTestApp;
let worker: WorkerHandle;
let key: string;
let boards: Array<{ id: string; name: string }>;

before(async () => {
  const settings: Record<string, unknown> = {};
  sandbox = await startSandbox({ secret: sandboxSecret(), settings, platforms: ['pinterest'] });
  t = await buildMediaTestApp({
    env: { HERALD_SANDBOX_URL: sandbox.url, HERALD_WORKER_POLL_INTERVAL_MS: '200', HERALD_PLATFORM_TIMEOUT_MS: '2000' },
  });
  serveMediaToSimulators(t, settings);
  worker = await startWorker(t.container);
  key = await t.key();
  boards = (await t.inject({ url: `/v1/connections/${t.connections.pinterest}`, key })).json().data.options.boards;
});
after(async () => {
  await worker.stop();
  await t.close();
  await sandbox.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API bodies, read field by field in assertions
async function publish(payload: Record<string, unknown>, label: string): Promise<any> {
  const res = await t.inject({ method: 'POST', url: '/v1/posts', key, payload: { publish_now: true, ...payload } });
  assert.equal(res.statusCode, 201, res.body);
  const id = res.json().data.post.id;
  return pollFor(label, async () => {
    const p = (await t.inject({ url: `/v1/posts/${id}`, key })).json().data;
    return ['published', 'partially_published', 'failed'].includes(p.status) ? p : undefined;
  });
}

async function image(): Promise<string> {
  const { mediaId, put } = await uploadBytes(t, key, jpeg(60, 90), 'image/jpeg', { filename: 'pin.jpg' });
  assert.equal(put.status, 200, put.body.toString());
  return mediaId;
}

const pinsWith = async (text: string) =>
  (await sandbox.simulator('pinterest').posts()).filter((p) => p.text === text && !p.deleted);

describe('Pinterest through the public API', () => {
  test('an uploaded image becomes a Pin on the chosen board, with its title and link', async () => {
    const text = `A Pin ${Date.now()}`;
    const board = boards[1]!.id;
    const post = await publish(
      {
        content: text,
        platforms: ['pinterest'],
        media_ids: [await image()],
        platform_options: { pinterest: { board_id: board, title: 'Title', link: 'https://example.com/pin' } },
      },
      'Pinterest image Pin published',
    );
    assert.equal(post.status, 'published', JSON.stringify(post.targets[0].error));
    const target = post.targets[0];
    assert.equal(target.url, `${sandbox.baseUrl('pinterest')}/pin/${target.platform_post_id}/`);
    assert.equal((await pinsWith(text)).length, 1);
    const page = await (await fetch(target.url)).text();
    assert.ok(page.includes('Title') && page.includes('https://example.com/pin'), page.slice(0, 300));
  });

  test('three images become one carousel Pin', async () => {
    const text = `A carousel ${Date.now()}`;
    const post = await publish(
      {
        content: text,
        platforms: ['pinterest'],
        media_ids: [await image(), await image(), await image()],
        platform_options: { pinterest: { board_id: boards[0]!.id } },
      },
      'Pinterest carousel published',
    );
    assert.equal(post.status, 'published', JSON.stringify(post.targets[0].error));
    const pins = await pinsWith(text);
    assert.deepEqual(
      pins.map((p) => p.media),
      [3],
    );
  });

  test('a Pin whose create answer is lost is found on its board and recorded once', async () => {
    sandbox.simulator('pinterest').faults.add({ fault: 'lost_response', operation: 'create_post' });
    const text = `A lost answer ${Date.now()}`;
    const post = await publish(
      {
        content: text,
        platforms: ['pinterest'],
        media_ids: [await image()],
        platform_options: { pinterest: { board_id: boards[0]!.id } },
      },
      'Pinterest Pin reconciled after a lost answer',
    );
    assert.equal(post.status, 'published', JSON.stringify(post.targets[0].error));
    const pins = await pinsWith(text);
    assert.equal(pins.length, 1);
    assert.equal(pins[0]!.id, post.targets[0].platform_post_id);
    assert.equal(sandbox.simulator('pinterest').faults.fired().lost_response, 1);
  });
});
