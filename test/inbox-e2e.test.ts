// The inbox end to end (docs/inbox.md "Test mode", "Evaluation", "Approval mode"): a comment injected through the
// X simulator's control switch (`POST /_sandbox/inbox`) is ingested by the `ingest_inbox` job on a real
// graphile worker, an inbox automation answers it — in `auto` mode the worker's `send_inbox_reply` job posts the
// reply, in `approval` mode an `inbox_reply` approval item waits and approving it through /v1/approvals sends it
// once — and the reply is a post on the simulator answering the comment. Then a restart (a new worker, the
// cursors lost) ingests the same comments again and creates nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker } from '../src/jobs/worker.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './helpers/app.ts';
import { handleOf, inboxRows } from './helpers/inbox-ingest.ts';
import { pollFor } from './helpers/poll.ts';
import { PUBLISHING_ENV, publishingRequests } from './helpers/publishing.ts';

let sandbox: RunningSandbox;
let t: TestApp;
let key: string;
let account: string;
let postId: string;

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildTestApp({ sandboxUrl: sandbox.url, worker: true, env: PUBLISHING_ENV });
  key = await t.key();
  account = await handleOf(t, t.connections.x!);
  const { create, settled } = publishingRequests(() => ({ t, key, sandbox }));
  const post = await settled(
    (await create({ content: 'Our new shirts', platforms: ['x'], publish_now: true })).id,
    'post',
  );
  assert.equal(post.status, 'published');
  postId = post.targets[0]!.platform_post_id!;
});
after(async () => {
  await t.close();
  await sandbox.close();
});

type SimPost = { id: string; text: string; replyTo?: string | null };

/** Injects comments through the simulator's HTTP control switch; returns their platform ids. */
async function injectComment(text: string, author: string): Promise<string> {
  const res = await fetch(`${sandbox.baseUrl('x')}/_sandbox/inbox`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ account, kind: 'comment', post_id: postId, text, author }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  const { ids } = (await res.json()) as { ids: string[] };
  assert.equal(ids.length, 1);
  return ids[0]!;
}

/** Makes the X sources due (the poll interval passing) and queues one ingestion pass on the worker. */
async function queueIngest(): Promise<void> {
  await t.container.pool.query(`UPDATE inbox_sources SET next_poll_at = now() WHERE connection_id = $1`, [
    t.connections.x,
  ]);
  await t.container.pool.query(`SELECT graphile_worker.add_job('ingest_inbox', '{}'::json)`);
}

async function ingested(platformItemId: string): Promise<string> {
  return pollFor(`ingested ${platformItemId}`, async () => {
    const rows = await inboxRows(t, t.connections.x!);
    return rows.find((r) => r.platform_item_id === platformItemId)?.id;
  });
}

async function simPosts(): Promise<SimPost[]> {
  const res = await fetch(`${sandbox.baseUrl('x')}/_sandbox/posts`);
  return ((await res.json()) as { posts: SimPost[] }).posts;
}

const repliesTo = async (platformItemId: string) => (await simPosts()).filter((p) => p.replyTo === platformItemId);

async function automation(body: Record<string, unknown>): Promise<string> {
  const res = await t.inject({ method: 'POST', url: '/v1/inbox/automations', key, payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.id;
}

async function item(id: string) {
  const res = await t.inject({ url: `/v1/inbox/${id}`, key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as {
    status: string;
    responses: Array<{ status: string; text: string; platform_reply_id: string | null; source: string }>;
  };
}

describe('inbox end to end on the X simulator', () => {
  test('auto mode: injected comment → ingest job → automation → send job → reply on the simulator', async () => {
    const id = await automation({
      name: 'price',
      trigger: { type: 'keyword', keywords: ['price'] },
      actions: [{ type: 'reply_public', template: 'Hi {{author}}, prices are on our site.' }],
      response_mode: 'auto',
    });
    const commentId = await injectComment('What is the price?', 'ana_lima');
    await queueIngest();
    const itemId = await ingested(commentId);

    // Both at once: the item and its replies are read by two statements, so one read can fall between the send's
    // commit and the other.
    const sent = await pollFor('auto reply sent', async () => {
      const got = await item(itemId);
      return got.responses[0]?.status === 'sent' && got.status === 'replied' ? got : undefined;
    });
    assert.equal(sent.status, 'replied');
    assert.equal(sent.responses.length, 1);
    assert.equal(sent.responses[0]!.source, 'automation');
    const onSim = await repliesTo(commentId);
    assert.equal(onSim.length, 1, 'one reply on the simulator');
    assert.equal(onSim[0]!.id, sent.responses[0]!.platform_reply_id);
    assert.match(onSim[0]!.text, /prices are on our site\./);

    const runs = (await t.inject({ url: `/v1/inbox/automations/${id}/runs`, key })).json().data.items;
    assert.equal(runs.length, 1);
    assert.equal(runs[0].outcome, 'sent');

    // The events webhooks deliver: the item ingested, the automation that answered it, the reply sent.
    const events = async (type: string) => {
      const res = await t.inject({ url: `/v1/events?type=${type}&limit=50`, key });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().data.items as Array<{ data: Record<string, unknown> }>;
    };
    const created = await events('inbox.item.created');
    assert.ok(created.some((e) => e.data.id === itemId));
    const triggered = (await events('inbox.automation.triggered')).find((e) => e.data.item_id === itemId);
    assert.equal(triggered?.data.automation_id, id);
    assert.equal(triggered?.data.outcome, 'sent');
    const replied = await pollFor('inbox.item.replied', async () =>
      (await events('inbox.item.replied')).find((e) => (e.data.item as { id: string }).id === itemId),
    );
    const response = replied.data.response as { status: string; platform_reply_id: string };
    assert.equal(response.status, 'sent');
    assert.equal(response.platform_reply_id, sent.responses[0]!.platform_reply_id);
    await t.inject({ method: 'DELETE', url: `/v1/inbox/automations/${id}`, key });
  });

  test('approval mode: an approval item; approved through /v1/approvals, the reply is sent once', async () => {
    await automation({
      name: 'shipping',
      trigger: { type: 'keyword', keywords: ['shipping'] },
      actions: [{ type: 'reply_public', template: 'We ship everywhere, {{author}}.' }],
      response_mode: 'approval',
    });
    const commentId = await injectComment('Do you offer shipping to Chile?', 'pedro_s');
    await queueIngest();
    const itemId = await ingested(commentId);

    const pending = await pollFor('approval item', async () => {
      const res = await t.inject({ url: '/v1/approvals/items?kind=inbox_reply&status=pending', key });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json().data.items as Array<{ id: string; version: number; subject: { id: string } }>)[0];
    });
    const waiting = await item(itemId);
    assert.equal(waiting.responses[0]!.status, 'pending_approval');
    assert.equal((await repliesTo(commentId)).length, 0, 'nothing posted before approval');

    const decide = (version: number) =>
      t.inject({
        method: 'POST',
        url: `/v1/approvals/items/${pending.id}/actions`,
        key,
        payload: { action: 'approve', version },
      });
    const approved = await decide(pending.version);
    assert.equal(approved.statusCode, 200, approved.body);
    // A second approval (a retry with the old version) never sends a second reply.
    assert.notEqual((await decide(pending.version)).statusCode, 200);

    const sent = await pollFor('approved reply sent', async () => {
      const got = await item(itemId);
      return got.responses[0]?.status === 'sent' ? got : undefined;
    });
    assert.equal(sent.responses.length, 1);
    const onSim = await repliesTo(commentId);
    assert.equal(onSim.length, 1, 'sent once');
    assert.match(onSim[0]!.text, /We ship everywhere/);
  });

  test('a restart (new worker, cursors lost) ingests the same comments again and creates nothing', async () => {
    const before = await inboxRows(t, t.connections.x!);
    assert.ok(before.length >= 2);
    // The first worker stops (the test app's close then has nothing left to stop); a new one takes over.
    const first = t.worker!;
    await first.stop();
    first.stop = async () => {};
    const worker = await startWorker(t.container);
    try {
      await t.container.pool.query(`UPDATE inbox_sources SET cursor = NULL WHERE connection_id = $1`, [
        t.connections.x,
      ]);
      const { rows: clock } = await t.container.pool.query<{ now: Date }>('SELECT now() AS now');
      await queueIngest();
      await pollFor('pass after restart', async () => {
        const { rows } = await t.container.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM inbox_sources
            WHERE connection_id = $1 AND (last_polled_at IS NULL OR last_polled_at < $2)`,
          [t.connections.x, clock[0]!.now],
        );
        return rows[0]!.n === 0 ? true : undefined;
      });
      const again = await inboxRows(t, t.connections.x!);
      assert.deepEqual(
        again.map((r) => r.id),
        before.map((r) => r.id),
      );
      const { rows } = await t.container.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM inbox_responses r JOIN inbox_items i ON i.id = r.item_id
          WHERE i.connection_id = $1`,
        [t.connections.x],
      );
      assert.equal(rows[0]!.n, 2, 'no automation ran again on the re-read comments');
    } finally {
      await worker.stop();
    }
  });
});
