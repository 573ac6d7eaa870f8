// What every adapter with `fetchMetrics` must show against its simulator: exactly the metrics its platform page
// documents (the others left out, so the sync records them unavailable), counts that grow as the simulator's
// clock moves on and never go down, views ahead of likes, and the metrics call's rate limit and refused token
// classified the way the sync expects. Each adapter's test file calls it with its own list.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPlatformHttp } from '../../src/platforms/http.ts';
import type { PlatformName } from '../../src/platforms/limits.ts';
import { createPlatformRegistry } from '../../src/platforms/registry.ts';
import type { MetricName, PlatformAdapter, PlatformSession, PublishedPart } from '../../src/platforms/types.ts';
import { partMemory } from '../../src/platforms/part-memory.ts';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.ts';
import { acceptedImage, rejects } from './adapter-contract.ts';
import { mediaFetchSettings } from './media-sources.ts';

export interface MetricsContract {
  /** The metrics the platform gives for a plain post (docs/platforms/<p>.md "Metrics and inbox"). */
  gives: MetricName[];
  /** The simulator operation the metrics call counts as (its fault switches). */
  operation: string;
  /** How far the simulator's clock moves between the two readings: within the platform's token lifetime. */
  laterMs?: number;
}

let unique = 0;

export function metricsContract(platform: PlatformName, contract: MetricsContract): void {
  describe(`${platform} metrics against its simulator`, () => {
    let sandbox: RunningSandbox;
    let adapter: PlatformAdapter;
    let session: PlatformSession;
    let post: PublishedPart;
    let offset = 0;

    before(async () => {
      sandbox = await startSandbox({
        platforms: [platform],
        settings: await mediaFetchSettings(),
        now: () => Date.now() + offset,
      });
      adapter = createPlatformRegistry().get(platform)!;
      const http = createPlatformHttp({ baseUrl: sandbox.baseUrl(platform), timeoutMs: 1500 });
      const { account, credentials } = await adapter.connectSandbox(http, {
        username: `metrics_${platform}_${++unique}`,
      });
      session = {
        connection: {
          id: 'conn_metrics',
          accountId: account.accountId,
          handle: account.handle,
          baseUrl: http.baseUrl,
          settings: account.settings ?? {},
          sandbox: true,
        },
        credentials,
        http,
        clock: { now: () => new Date(Date.now() + offset) },
      };
      const media = adapter.limits.media.required
        ? await adapter.prepareMedia(session, [acceptedImage(adapter)], {})
        : [];
      post = await adapter.publish(session, {
        index: 0,
        text: `metrics ${platform} ${Date.now()}`,
        media,
        parent: null,
        root: null,
        key: adapter.newPartKey(new Date()),
        firstSentAt: new Date(),
        options: {},
        ...partMemory(),
      });
    });
    after(() => sandbox?.close());

    test('a post gives exactly the documented metrics; they grow with time, views ahead of likes', async () => {
      const first = await adapter.fetchMetrics!(session, post);
      assert.deepEqual(Object.keys(first).sort(), [...contract.gives].sort());
      for (const value of Object.values(first)) assert.ok(Number.isInteger(value) && value >= 0);
      offset += contract.laterMs ?? 50 * 60_000;
      const later = await adapter.fetchMetrics!(session, post);
      assert.deepEqual(Object.keys(later).sort(), [...contract.gives].sort());
      for (const name of contract.gives) assert.ok(later[name]! >= first[name]!, `${name} never goes down`);
      assert.ok(
        contract.gives.some((name) => later[name]! > 0),
        `something grew: ${JSON.stringify(later)}`,
      );
      const views = later.impressions ?? later.video_views;
      if (views !== undefined && later.likes !== undefined) assert.ok(views >= later.likes, 'views lead likes');
      assert.deepEqual(await adapter.fetchMetrics!(session, post), later, 'the same moment reads the same');
    });

    test('a rate-limited metrics call is rate_limited with the reset; a refused token is auth_expired', async () => {
      const sim = sandbox.simulator(platform);
      sim.faults.add({ fault: 'rate_limited', operation: contract.operation, retryAfterSeconds: 30 });
      const limited = await rejects(adapter.fetchMetrics!(session, post), 'rate_limited');
      assert.ok(limited.retryAfterMs !== undefined && limited.retryAfterMs > 0, 'the reset is known');
      sim.faults.add({ fault: 'expired_token', operation: contract.operation });
      await rejects(adapter.fetchMetrics!(session, post), 'auth_expired');
    });
  });
}
