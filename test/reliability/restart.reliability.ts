// PostgreSQL stopped and started again under load (the suite's own cluster, never the machine's): while it is
// down every API answer is a 503 PUBLIC_API_UNAVAILABLE envelope with Retry-After; when it is back the API and
// the workers recover by themselves (no restart of Herald), every post the API accepted publishes once, and the
// webhook delivery runner recovers too (a post.published webhook arrives for each post).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PlatformName } from '../../src/platforms/limits.ts';
import { auditExactlyOnce, unsettledTargets } from '../helpers/exactly-once.ts';
import { pollFor } from '../helpers/poll.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { call, clusterCtl, recordFigures, startFleet, type Fleet, type HttpAnswer } from './harness.ts';

const PLATFORMS: PlatformName[] = ['x', 'bluesky', 'mastodon'];
let fleet: Fleet;
let receiver: Receiver;
let down = false;

before(async () => {
  receiver = await startReceiver();
  fleet = await startFleet({
    apis: 2,
    workers: 2,
    env: {
      HERALD_RATE_LIMIT_WRITE_PER_MIN: '1000000',
      HERALD_RATE_LIMIT_READ_PER_MIN: '1000000',
      HERALD_OUTBOUND_ALLOWLIST: '127.0.0.1',
    },
  });
});
after(async () => {
  // Whatever happened, leave the cluster running for the files after this one.
  if (down) clusterCtl('start');
  await fleet?.close();
  await receiver?.close();
});

test(
  'PostgreSQL restarted under load: 503 envelopes while it is down, recovery without help, no accepted post lost',
  { timeout: 300_000 },
  async () => {
    const key = await fleet.t.key();
    // Webhooks too: the delivery runner must come back as well, and announce every post (at least once).
    const hook = await call(`${fleet.urls[0]}/v1/webhooks`, {
      method: 'POST',
      key,
      idem: 'restart-hook',
      body: { url: `${receiver.origin}/hook`, events: ['post.published'] },
    });
    assert.equal(hook.status, 201, hook.text);
    const texts = new Map<string, string[]>();
    const counts = { requests: 0, unavailable: 0, unexpected: 0, retriedWrites: 0 };
    const unexpected: string[] = [];
    let loading = true;
    let sequence = 0;

    /** Checks an answer that is not a success: during the outage only the 503 envelope is acceptable. */
    const check = (res: HttpAnswer, what: string): 'retry' | 'done' => {
      counts.requests++;
      if (
        res.status === 503 &&
        res.json?.success === false &&
        res.json.error?.code === 'PUBLIC_API_UNAVAILABLE' &&
        res.headers.get('retry-after') &&
        res.json.request_id
      ) {
        counts.unavailable++;
        return 'retry';
      }
      // A write cut off by the stop may still hold its key for a moment (409 in progress): the client retries.
      if (res.status === 409 && res.json?.error?.code === 'PUBLIC_API_IDEMPOTENCY_IN_PROGRESS') return 'retry';
      if (res.status >= 200 && res.status < 300) return 'done';
      counts.unexpected++;
      unexpected.push(`${what} → ${res.status} ${res.text.slice(0, 200)}`);
      return 'done';
    };

    // Writers: each post is retried with its Idempotency-Key until accepted, as a well-behaved client does.
    const writer = async (w: number) => {
      while (loading) {
        const n = sequence++;
        const url = fleet.urls[n % 2]!;
        const content = `restart ${n} ${Date.now()}`;
        const body = {
          content,
          platforms: PLATFORMS.filter((_, k) => (n + k) % 3 !== 0),
          ...(n % 5 === 0 ? { schedule_at: new Date(Date.now() + 1500).toISOString() } : { publish_now: true }),
        };
        for (let attempt = 0; ; attempt++) {
          let res: HttpAnswer;
          try {
            res = await call(`${url}/v1/posts`, { method: 'POST', key, idem: `restart-${w}-${n}`, body });
          } catch (error) {
            unexpected.push(`POST ${url}: ${(error as Error).message}`);
            counts.unexpected++;
            break;
          }
          if (check(res, `POST ${url}`) === 'done') {
            if (res.status === 201) texts.set(res.json!.data!.post_id!, [content]);
            break;
          }
          if (attempt > 0) counts.retriedWrites++;
          if (attempt > 600) throw new Error(`POST ${content} never accepted`);
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };
    const reader = async () => {
      for (let n = 0; loading; n++) {
        const url = fleet.urls[n % 2]!;
        check(await call(`${url}/v1/posts?limit=5`, { key }), `GET ${url}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const load = Promise.all([writer(0), writer(1), writer(2), writer(3), reader()]);

    await new Promise((r) => setTimeout(r, 2000));
    const acceptedBefore = texts.size;
    clusterCtl('stop');
    down = true;
    const stoppedAt = Date.now();
    console.log(`# PostgreSQL stopped after ${acceptedBefore} accepted posts`);
    // Stay down until both API processes have answered 503 for a while (the key cache lasts a second).
    const unavailableAtStop = counts.unavailable;
    await pollFor(
      '503 answers while PostgreSQL is down',
      async () => (counts.unavailable - unavailableAtStop >= 20 && Date.now() - stoppedAt > 3000) || undefined,
      60_000,
      100,
    );
    const accepted = texts.size;
    clusterCtl('start');
    down = false;
    const startedAt = Date.now();
    await pollFor(
      'both API processes answer 200 again',
      async () => {
        const answers = await Promise.all(fleet.urls.map((url) => call(`${url}/v1/posts?limit=1`, { key })));
        return answers.every((a) => a.status === 200) || undefined;
      },
      60_000,
      100,
    );
    const recoveryMs = Date.now() - startedAt;
    // New posts after the restart must publish too: the workers' runner, waker and LISTEN came back on their own.
    await pollFor(
      'more posts accepted after the restart',
      async () => texts.size >= accepted + 20 || undefined,
      60_000,
      100,
    );
    loading = false;
    await load;

    const ids = [...texts.keys()];
    await pollFor(
      'every accepted post settled',
      async () => ((await unsettledTargets(fleet.t.container.pool, ids)) === 0 ? true : undefined),
      Number(process.env.HERALD_REL_SETTLE_MS ?? 180_000),
      500,
    ).catch(async (error: unknown) => {
      const { rows } = await fleet.t.container.pool.query(
        `SELECT status, count(*)::int AS n FROM post_targets WHERE post_id = ANY($1) GROUP BY status`,
        [ids],
      );
      const { rows: jobs } = await fleet.t.container.pool.query(
        `SELECT task_identifier, attempts, last_error, locked_by, run_at FROM graphile_worker.jobs LIMIT 5`,
      );
      console.log(`# targets by status: ${JSON.stringify(rows)}\n# jobs: ${JSON.stringify(jobs)}`);
      for (const w of fleet.workers)
        console.log(
          `# worker output:\n${w
            .output()
            .split('\n')
            .filter((l) => !l.includes('"level":30'))
            .slice(-30)
            .join('\n')}`,
        );
      throw error;
    });
    const audit = await auditExactlyOnce(fleet.t.container.pool, fleet.sandbox, texts, PLATFORMS);
    const announced = () =>
      new Set(
        receiver.requests
          .map((r) => JSON.parse(r.body) as { type: string; data: { id: string } })
          .filter((e) => e.type === 'post.published')
          .map((e) => e.data.id),
      );
    await pollFor(
      'a post.published webhook for every accepted post',
      async () => ids.every((id) => announced().has(id)) || undefined,
      120_000,
      500,
    );
    console.log(
      `# ${texts.size} posts accepted (${accepted - acceptedBefore} while stopping), ${audit.targets} targets: ${audit.published} published, ${audit.failed} failed`,
    );
    console.log(
      `# ${counts.requests} requests, ${counts.unavailable} answered 503 PUBLIC_API_UNAVAILABLE, ${counts.retriedWrites} write retries`,
    );
    const restarts = fleet.workers.reduce(
      (sum, w) => sum + (w.output().match(/job runner restarted/g)?.length ?? 0),
      0,
    );
    console.log(`# worker job runners restarted after losing the database: ${restarts}`);
    recordFigures('PostgreSQL restarted under load', {
      requests: counts.requests,
      faults: 1,
      lost: audit.lost,
      duplicates: audit.duplicates,
      unexpected5xx: counts.unexpected,
      notes: `${counts.unavailable} × 503 while down; API back ${recoveryMs} ms after; ${restarts} job runner restarts; ${receiver.requests.length} webhooks for ${ids.length} posts`,
    });
    assert.deepEqual(unexpected.slice(0, 10), []);
    assert.ok(counts.unavailable > 0, 'the outage was seen');
    assert.deepEqual(audit.problems.slice(0, 20), []);
    assert.equal(audit.lost, 0);
    assert.equal(audit.duplicates, 0);
    assert.equal(audit.failed, 0, 'no target failed because the database went away');
    assert.deepEqual(fleet.crashed(), [], 'no Herald process died');
  },
);
