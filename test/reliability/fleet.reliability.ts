// Two API and two worker processes on one PostgreSQL and one Redis, as a multi-machine deployment runs them
// (docs/deploy.md): a revoked key is refused by both API processes, rate-limit budgets are shared, posts sent to
// either API process publish exactly once while workers are SIGKILLed again and again, and 200 concurrent
// identical or conflicting requests with one Idempotency-Key create one post.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PlatformName } from '../../src/platforms/limits.ts';
import { auditExactlyOnce } from '../helpers/exactly-once.ts';
import { pollUntil, runHerald } from '../helpers/processes.ts';
import {
  call,
  killRandomWorker,
  recordFigures,
  startFleet,
  targetsSettled,
  type Fleet,
  type HttpAnswer,
} from './harness.ts';

const PLATFORMS: PlatformName[] = ['x', 'bluesky', 'mastodon'];
const READ_BUDGET = 20;
let fleet: Fleet;

before(async () => {
  fleet = await startFleet({
    apis: 2,
    workers: 2,
    env: { HERALD_RATE_LIMIT_WRITE_PER_MIN: '1000000', HERALD_RATE_LIMIT_READ_PER_MIN: String(READ_BUDGET) },
  });
  console.log(`# fleet: API processes at ${fleet.urls.join(', ')}, 2 workers`);
});
after(async () => {
  await fleet?.close();
});

test('a key revoked with the CLI is refused by both API processes', async () => {
  const key = await fleet.t.key();
  const id = (
    await fleet.t.container.pool.query<{ id: string }>(
      'SELECT id FROM api_keys ORDER BY created_at DESC, id DESC LIMIT 1',
    )
  ).rows[0]!.id;
  let requests = 0;
  const status = async (url: string) => {
    requests++;
    return (await call(`${url}/v1/posts`, { key })).status;
  };
  // Warm both processes' key caches, so the test sees revocation reach a process that holds the key.
  assert.deepEqual(await Promise.all(fleet.urls.map(status)), [200, 200]);
  const revoke = await runHerald(['keys', 'revoke', id], fleet.env);
  assert.equal(revoke.code, 0, revoke.stderr);
  const latencies = await Promise.all(
    fleet.urls.map((url) => pollUntil(async () => (await status(url)) === 401, 10_000, 10)),
  );
  console.log(
    `# revocation refused by the two API processes after ${latencies.join(' ms and ')} ms (contract 1 s; ceiling 10 s)`,
  );
  recordFigures('revoked key refused by 2 API processes', {
    requests,
    faults: 0,
    lost: 0,
    duplicates: 0,
    unexpected5xx: 0,
    notes: `refused after ${Math.max(...latencies)} ms at most`,
  });
  const body = (await call(`${fleet.urls[1]}/v1/posts`, { key })).json;
  assert.equal(body?.error?.code, 'PUBLIC_API_KEY_INVALID');
});

test('the two API processes share one rate-limit budget through Redis', async () => {
  const key = await fleet.t.key();
  const answers: HttpAnswer[] = [];
  // Twice the budget, alternating between the processes: apart they would allow all of it.
  for (let i = 0; i < READ_BUDGET * 2; i++) answers.push(await call(`${fleet.urls[i % 2]}/v1/posts`, { key }));
  const allowed = answers.filter((a) => a.status === 200).length;
  const limited = answers.filter((a) => a.status === 429);
  console.log(`# shared budget of ${READ_BUDGET}: ${allowed} allowed, ${limited.length} refused across both processes`);
  recordFigures('rate limit shared by 2 API processes', {
    requests: answers.length,
    faults: 0,
    lost: 0,
    duplicates: 0,
    unexpected5xx: answers.filter((a) => a.status >= 500).length,
    notes: `${allowed} allowed of a budget of ${READ_BUDGET}`,
  });
  // The budget refills one request every 60/READ_BUDGET s, so a slow machine may earn one or two more.
  assert.ok(
    allowed >= READ_BUDGET && allowed <= READ_BUDGET + 2,
    `${allowed} allowed with a shared budget of ${READ_BUDGET}`,
  );
  assert.equal(allowed + limited.length, answers.length, 'every answer is 200 or 429');
  for (const a of limited) assert.equal(a.json?.error?.code, 'PUBLIC_API_RATE_LIMITED');
  const refusedBy = new Set(answers.map((a, i) => (a.status === 429 ? i % 2 : -1)).filter((i) => i >= 0));
  assert.equal(refusedBy.size, 2, 'both processes refuse once the shared budget is spent');
});

test(
  'posts sent to either API process publish exactly once while workers are SIGKILLed repeatedly',
  { timeout: 300_000 },
  async () => {
    const POSTS = 150;
    const KILLS = 10;
    for (const platform of PLATFORMS) {
      const faults = fleet.sandbox.simulator(platform).faults;
      faults.add({ fault: 'lost_response', operation: 'create_post', probability: 0.04 });
      faults.add({ fault: 'server_error', operation: 'create_post', probability: 0.04 });
    }
    const key = await fleet.t.key();
    const texts = new Map<string, string[]>();
    let requests = 0;
    let fiveHundreds = 0;
    let sending = true;
    const send = (async () => {
      for (let i = 0; i < POSTS; i += 10) {
        await Promise.all(
          Array.from({ length: Math.min(10, POSTS - i) }, async (_, j) => {
            const n = i + j;
            const content = `fleet ${n} ${Date.now()}`;
            const body = {
              content,
              platforms: PLATFORMS.filter((_, k) => (n + k) % 3 !== 0),
              ...(n % 4 === 0 ? { schedule_at: new Date(Date.now() + 1500).toISOString() } : { publish_now: true }),
            };
            const res = await call(`${fleet.urls[n % 2]}/v1/posts`, { method: 'POST', key, idem: `fleet-${n}`, body });
            requests++;
            if (res.status >= 500) fiveHundreds++;
            assert.equal(res.status, 201, res.text);
            texts.set(res.json!.data!.post_id!, [content]);
          }),
        );
      }
      sending = false;
    })();
    let kills = 0;
    const killing = (async () => {
      while (kills < KILLS || sending) {
        await new Promise((r) => setTimeout(r, 300 + Math.random() * 900));
        if (await killRandomWorker(fleet)) kills++;
        if (fleet.workers.length < 2) fleet.startWorker();
      }
    })();
    await Promise.all([send, killing]);
    const ids = [...texts.keys()];
    await targetsSettled(fleet, 'every target settled after the last kill', ids, 180_000);
    const audit = await auditExactlyOnce(fleet.t.container.pool, fleet.sandbox, texts, PLATFORMS);
    const fired = PLATFORMS.reduce(
      (sum, p) => sum + Object.values(fleet.sandbox.simulator(p).faults.fired()).reduce((a, b) => a + b, 0),
      0,
    );
    console.log(
      `# ${POSTS} posts, ${audit.targets} targets: ${audit.published} published, ${audit.failed} failed with a reason; ${kills} worker kills, ${fired} platform faults`,
    );
    recordFigures('exactly once while workers are SIGKILLed', {
      requests,
      faults: kills + fired,
      lost: audit.lost,
      duplicates: audit.duplicates,
      unexpected5xx: fiveHundreds,
      notes: `${kills} SIGKILLs, ${fired} platform faults; ${audit.published} targets published, ${audit.failed} failed`,
    });
    assert.deepEqual(audit.problems.slice(0, 20), []);
    assert.equal(audit.duplicates, 0);
    assert.equal(audit.lost, 0);
    assert.deepEqual(fleet.crashed(), [], 'no Herald process died on its own');
  },
);

/** Retries 409 IDEMPOTENCY_IN_PROGRESS answers (as a client honouring Retry-After would, faster) until they settle. */
let retries = 0;
async function settle(url: string, key: string, idem: string, body: unknown, first: HttpAnswer): Promise<HttpAnswer> {
  let res = first;
  for (let tries = 0; res.status === 409 && tries < 200; tries++) {
    assert.equal(res.json?.error?.code, 'PUBLIC_API_IDEMPOTENCY_IN_PROGRESS');
    assert.ok(res.headers.get('retry-after'), '409 carries Retry-After');
    await new Promise((r) => setTimeout(r, 25));
    retries++;
    res = await call(`${url}/v1/posts`, { method: 'POST', key, idem, body });
  }
  return res;
}

test(
  '200 concurrent identical requests with one Idempotency-Key, over both API processes, create one post',
  { timeout: 120_000 },
  async () => {
    const key = await fleet.t.key();
    retries = 0;
    const idem = `same-${Date.now()}`;
    const body = { content: `identical ${idem}`, platforms: ['x', 'bluesky'] };
    const first = await Promise.all(
      Array.from({ length: 200 }, (_, i) => call(`${fleet.urls[i % 2]}/v1/posts`, { method: 'POST', key, idem, body })),
    );
    const statuses = first.map((r) => r.status);
    const inProgress = statuses.filter((s) => s === 409).length;
    assert.deepEqual(
      [...new Set(statuses)].filter((s) => s !== 201 && s !== 409),
      [],
      `only 201 or 409 at first: ${[...new Set(statuses)]}`,
    );
    const final = await Promise.all(first.map((r, i) => settle(fleet.urls[i % 2]!, key, idem, body, r)));
    assert.deepEqual([...new Set(final.map((r) => r.status))], [201]);
    assert.equal(new Set(final.map((r) => r.text)).size, 1, 'every client holds the same answer');
    const { rows } = await fleet.t.container.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM posts WHERE content = $1',
      [body.content],
    );
    assert.equal(rows[0]!.n, 1);
    console.log(`# 200 identical: ${200 - inProgress} answered at once, ${inProgress} got 409 and were retried`);
    recordFigures('200 concurrent identical requests', {
      requests: 200 + retries,
      faults: 0,
      lost: 0,
      duplicates: rows[0]!.n - 1,
      unexpected5xx: final.concat(first).filter((r) => r.status >= 500).length,
      notes: `${inProgress} got 409 first`,
    });
  },
);

test(
  '200 concurrent conflicting requests with one Idempotency-Key: one wins, the others get 422, one post exists',
  { timeout: 120_000 },
  async () => {
    const key = await fleet.t.key();
    retries = 0;
    const idem = `conflict-${Date.now()}`;
    // Half the requests share one body, the other half each have their own.
    const bodies = Array.from({ length: 200 }, (_, i) => ({
      content: i % 2 === 0 ? `conflict ${idem} shared` : `conflict ${idem} own ${i}`,
      platforms: ['x'],
    }));
    const first = await Promise.all(
      bodies.map((body, i) => call(`${fleet.urls[i % 2]}/v1/posts`, { method: 'POST', key, idem, body })),
    );
    assert.deepEqual(
      [...new Set(first.map((r) => r.status))].filter((s) => ![201, 409, 422].includes(s)),
      [],
      'only 201, 409 or 422',
    );
    const final = await Promise.all(first.map((r, i) => settle(fleet.urls[i % 2]!, key, idem, bodies[i], r)));
    const winners = final
      .map((r, i) => (r.status === 201 ? bodies[i]!.content : undefined))
      .filter((c) => c !== undefined);
    assert.ok(winners.length >= 1, 'some request won');
    assert.equal(new Set(winners).size, 1, 'every 201 is for the same body');
    for (const [i, r] of final.entries()) {
      if (bodies[i]!.content === winners[0]) assert.equal(r.status, 201, r.text);
      else {
        assert.equal(r.status, 422, r.text);
        assert.equal(r.json?.error?.code, 'PUBLIC_API_IDEMPOTENCY_CONFLICT');
      }
    }
    assert.equal(
      new Set(final.filter((r) => r.status === 201).map((r) => r.text)).size,
      1,
      'the winners hold one answer',
    );
    const { rows } = await fleet.t.container.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM posts WHERE content LIKE $1`,
      [`conflict ${idem} %`],
    );
    assert.equal(rows[0]!.n, 1);
    const retried = first.filter((r) => r.status === 409).length;
    console.log(
      `# 200 conflicting: ${winners.length} answered 201 (one body), ${final.length - winners.length} 422; ${retried} first got 409`,
    );
    recordFigures('200 concurrent conflicting requests', {
      requests: 200 + retries,
      faults: 0,
      lost: 0,
      duplicates: rows[0]!.n - 1,
      unexpected5xx: final.concat(first).filter((r) => r.status >= 500).length,
      notes: `${winners.length} × 201, ${final.length - winners.length} × 422`,
    });
  },
);
