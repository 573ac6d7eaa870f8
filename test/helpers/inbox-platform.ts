// The inbox tests of the platforms whose simulators take comments or reviews (test/inbox-linkedin.test.ts,
// test/inbox-youtube.test.ts, test/inbox-googlebusiness.test.ts) run the same way: items injected through the
// control switch are ingested once and never doubled (a second pass, a lost cursor), the cursor advances, a rate
// limit on the listing backs the source off and shows in its health; answers sent with sendPlatformReply appear on
// the simulator, replying to the item, and its faults come back as data (a deleted item is the rule item_deleted;
// a rate limit and an outage are retryable). Time is moved by passing `now` to the pass, not by waiting.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findItem } from '../../src/features/inbox/inbox.repo.ts';
import { ingestDue } from '../../src/features/inbox/ingest.ts';
import { sourcesOf } from '../../src/features/inbox/ingest.repo.ts';
import { sendPlatformReply, type PlatformReplyDeps } from '../../src/features/inbox/platform-reply.ts';
import type { InboxItemRow } from '../../src/features/inbox/inbox.types.ts';
import type { InjectionKind } from '../../src/sandbox/framework/inbox.ts';
import type { PlatformName } from '../../src/platforms/limits.ts';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './app.ts';
import { inboxRows } from './inbox-ingest.ts';
import { PUBLISHING_ENV } from './publishing.ts';

export interface InboxPlatformContext {
  t: TestApp;
  key: string;
  sandbox: RunningSandbox;
  connectionId: string;
  /** The connection's platform account id (a channel id, a location resource, an author URN). */
  accountId: string;
}

export interface InboxPlatformCase {
  platform: PlatformName;
  /** What the simulator takes through the control switch, and a kind it refuses. */
  kind: InjectionKind;
  refused: InjectionKind;
  /** The stream the platform's items are read in. */
  stream: string;
  /** Makes what the items go on (a post, a video); returns the injection's account and post, and the Herald post. */
  prepare(ctx: InboxPlatformContext): Promise<{ account: string; postId?: string; heraldPostId?: string }>;
  /** The platform's own tests, run after the shared ones with the same app, sandbox and passes. */
  extra?(h: PlatformHarness): void;
}

export interface PlatformHarness {
  ctx: InboxPlatformContext;
  target: () => { account: string; postId?: string };
  pass: () => Promise<unknown>;
  deps: () => PlatformReplyDeps;
  ingestOne: (text: string) => Promise<InboxItemRow>;
}

const MINUTE = 60_000;

export function inboxPlatformSuite(c: InboxPlatformCase): void {
  const ctx = {} as InboxPlatformContext;
  let target: { account: string; postId?: string; heraldPostId?: string };
  let clock = Date.now();

  before(async () => {
    ctx.sandbox = await startSandbox({ secret: sandboxSecret() });
    ctx.t = await buildTestApp({ sandboxUrl: ctx.sandbox.url, worker: true, env: PUBLISHING_ENV });
    ctx.key = await ctx.t.key();
    ctx.connectionId = ctx.t.connections[c.platform]!;
    const { rows } = await ctx.t.container.pool.query<{ account_id: string }>(
      `SELECT account_id FROM connections WHERE id = $1`,
      [ctx.connectionId],
    );
    ctx.accountId = rows[0]!.account_id;
    target = await c.prepare(ctx);
  });
  after(async () => {
    await ctx.t.close();
    await ctx.sandbox.close();
  });

  const pass = () => {
    const k = ctx.t.container;
    return ingestDue(
      {
        pool: k.pool,
        access: k.platformAccess,
        logger: k.logger,
        clock: k.clock,
        pollSeconds: 60,
        batchSize: 100,
        maxPages: 5,
      },
      { now: new Date((clock += 3 * MINUTE)) },
    );
  };
  const inject = async (text: string, count = 1) => {
    const injected = await ctx.sandbox
      .simulator(c.platform)
      .inject({ account: target.account, kind: c.kind, post_id: target.postId, text, count });
    assert.ok('ids' in injected, JSON.stringify(injected));
    return injected.ids;
  };
  const mine = async () => (await inboxRows(ctx.t, ctx.connectionId)).filter((r) => r.kind === c.kind);
  const deps = (): PlatformReplyDeps => {
    const k = ctx.t.container;
    return { pool: k.pool, access: k.platformAccess, logger: k.logger, clock: k.clock };
  };
  async function ingestOne(text: string): Promise<InboxItemRow> {
    const [id] = await inject(text);
    await pass();
    const row = (await inboxRows(ctx.t, ctx.connectionId)).find((r) => r.platform_item_id === id);
    assert.ok(row, 'ingested');
    return (await findItem(ctx.t.container.pool, ctx.t.owner.workspaceId, row.id))!;
  }

  describe(`${c.platform} inbox`, () => {
    test('items are ingested once, linked to the post; a lost cursor (restart) doubles nothing', async () => {
      const ids = await inject('How much is it?', 3);
      await pass();
      const rows = await mine();
      assert.deepEqual(rows.map((r) => r.platform_item_id).sort(), [...ids].sort());
      for (const row of rows) {
        assert.equal(row.text.includes('How much is it?'), true, row.text);
        assert.equal(row.from_account, false);
        if (target.postId) assert.equal(row.platform_post_id, target.postId);
        if (target.heraldPostId) assert.equal(row.post_id, target.heraldPostId);
      }
      await pass();
      assert.equal((await mine()).length, 3, 'a second pass creates nothing');
      await inject('One more');
      await pass();
      assert.equal((await mine()).length, 4, 'the cursor moves on to the new one');
      await ctx.t.container.pool.query(`UPDATE inbox_sources SET cursor = NULL WHERE connection_id = $1`, [
        ctx.connectionId,
      ]);
      await pass();
      assert.equal((await mine()).length, 4, 'a lost cursor re-reads without doubling');
      const [source] = (await sourcesOf(ctx.t.container.pool, ctx.t.owner.workspaceId, ctx.connectionId)).filter(
        (s) => s.stream === c.stream,
      );
      assert.equal(source!.itemsIngested, 4);
      assert.equal(source!.consecutiveFailures, 0);
    });

    test(`the simulator refuses to inject a ${c.refused}`, async () => {
      const refused = await ctx.sandbox.simulator(c.platform).inject({ account: target.account, kind: c.refused });
      assert.ok('error' in refused);
    });

    test('a rate limit on the listing backs the source off and shows in its health', async () => {
      ctx.sandbox
        .simulator(c.platform)
        .faults.add({ fault: 'rate_limited', operation: 'list_inbox', retryAfterSeconds: 900 });
      const tally = await pass();
      assert.equal(tally.rateLimited, 1);
      const [source] = (await sourcesOf(ctx.t.container.pool, ctx.t.owner.workspaceId, ctx.connectionId)).filter(
        (s) => s.stream === c.stream,
      );
      assert.equal(source!.consecutiveFailures, 1);
      assert.equal(source!.lastError?.code, 'PLATFORM_RATE_LIMITED');
      // The next pass is past the back-off: the source recovers.
      clock += 20 * MINUTE;
      await pass();
      const [again] = (await sourcesOf(ctx.t.container.pool, ctx.t.owner.workspaceId, ctx.connectionId)).filter(
        (s) => s.stream === c.stream,
      );
      assert.equal(again!.consecutiveFailures, 0);
    });

    test('an answer appears on the simulator, replying to the item', async () => {
      const item = await ingestOne('Is this in stock?');
      const text = `Yes, it is! ${Date.now()}`;
      const result = await sendPlatformReply(deps(), item, text);
      assert.ok(result.ok, JSON.stringify(result));
      const answer = (await ctx.sandbox.simulator(c.platform).posts()).find((p) => p.id === result.platformReplyId);
      assert.ok(answer, 'the answer is on the simulator');
      assert.equal(answer.replyTo, item.platformItemId);
      assert.equal(answer.text, text);
    });

    test('a deleted item is the rule item_deleted, never retryable', async () => {
      const item = await ingestOne('Delete me');
      ctx.sandbox.simulator(c.platform).faults.add({ fault: 'item_deleted', operation: 'create_post' });
      const result = await sendPlatformReply(deps(), item, 'Too late');
      assert.ok(
        !result.ok && result.rule === 'item_deleted' && result.code === 'PLATFORM_ITEM_DELETED' && !result.retryable,
        JSON.stringify(result),
      );
    });

    test('a rate limit and an outage are retryable; a private reply is refused', async () => {
      const item = await ingestOne('Busy');
      const sim = ctx.sandbox.simulator(c.platform);
      sim.faults.add({ fault: 'rate_limited', operation: 'create_post', retryAfterSeconds: 5 });
      const limited = await sendPlatformReply(deps(), item, 'Now?');
      assert.ok(!limited.ok && limited.retryable && limited.code === 'PLATFORM_RATE_LIMITED', JSON.stringify(limited));
      sim.faults.add({ fault: 'server_error', operation: 'create_post' });
      const down = await sendPlatformReply(deps(), item, 'And now?');
      assert.ok(!down.ok && down.retryable, JSON.stringify(down));
      const privately = await sendPlatformReply(deps(), item, 'DM', { private: true });
      assert.ok(!privately.ok && privately.rule === 'private_reply_unsupported', JSON.stringify(privately));
    });

    c.extra?.({ ctx, target: () => target, pass, deps, ingestOne });
  });
}
