// Publishing truth under load: threads whose parts meet lost responses and server errors, workers SIGKILLed, the
// sandbox itself restarted (its state in the database, as Herald's mount keeps it), and then posts whose text X
// already holds. Herald must record exactly what the platforms hold: every part once, nothing lost, and never a
// platform post adopted by a target that did not send it — a duplicate rejection stays a failure, retry included.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PlatformName } from '../../src/platforms/limits.ts';
import { auditExactlyOnce } from '../helpers/exactly-once.ts';
import { call, killRandomWorker, recordFigures, startFleet, targetsSettled, type Fleet } from './harness.ts';

const PLATFORMS: PlatformName[] = ['x', 'bluesky', 'mastodon'];
let fleet: Fleet;
/** Every post this file sent and its parts' texts: the audit accounts for everything the simulators hold. */
const sent = new Map<string, string[]>();

before(async () => {
  fleet = await startFleet({
    apis: 1,
    workers: 2,
    sandboxInDatabase: true,
    env: { HERALD_RATE_LIMIT_WRITE_PER_MIN: '1000000', HERALD_RATE_LIMIT_READ_PER_MIN: '1000000' },
  });
});
after(async () => {
  await fleet?.close();
});

/** The fault board is a test control kept per process: a restarted sandbox gets it again. */
function addFaults(): void {
  for (const platform of PLATFORMS) {
    const faults = fleet.sandbox.simulator(platform).faults;
    faults.add({ fault: 'lost_response', operation: 'create_post', probability: 0.05 });
    faults.add({ fault: 'server_error', operation: 'create_post', probability: 0.03 });
  }
}

const firedFaults = () =>
  PLATFORMS.reduce(
    (sum, p) => sum + Object.values(fleet.sandbox.simulator(p).faults.fired()).reduce((a, b) => a + b, 0),
    0,
  );

/** Parts recorded for one platform post: more than one is a wrong adoption, whatever the text. */
async function sharedPlatformIds(): Promise<string[]> {
  const { rows } = await fleet.t.container.pool.query<{ connection_id: string; platform_post_id: string; n: number }>(
    `SELECT t.connection_id, p.platform_post_id, count(*)::int AS n
       FROM target_parts p JOIN post_targets t ON t.id = p.target_id
      WHERE p.platform_post_id IS NOT NULL
      GROUP BY t.connection_id, p.platform_post_id HAVING count(*) > 1`,
  );
  return rows.map((r) => `${r.platform_post_id} recorded ${r.n} times on connection ${r.connection_id}`);
}

test(
  'threads under lost responses, worker kills and sandbox restarts: every part once, none adopted twice',
  { timeout: 420_000 },
  async () => {
    const POSTS = 60;
    const KILLS = 6;
    const RESTARTS = 2;
    addFaults();
    const key = await fleet.t.key();
    const texts = new Map<string, string[]>();
    let requests = 0;
    let fiveHundreds = 0;
    let sending = true;
    const send = (async () => {
      for (let i = 0; i < POSTS; i += 6) {
        await Promise.all(
          Array.from({ length: Math.min(6, POSTS - i) }, async (_, j) => {
            const n = i + j;
            const content = `truth ${n} ${Date.now()}`;
            const parts = [content, `${content} / 2`, `${content} / 3`];
            const thread = { thread: parts.slice(1) };
            const body = {
              content,
              platforms: PLATFORMS,
              platform_options: Object.fromEntries(PLATFORMS.map((p) => [p, thread])),
              publish_now: true,
            };
            // A client that meets the sandbox or a worker mid-restart retries with the same key.
            for (let tries = 0; ; tries++) {
              const res = await call(`${fleet.urls[0]}/v1/posts`, { method: 'POST', key, idem: `truth-${n}`, body });
              requests++;
              if (res.status >= 500) fiveHundreds++;
              if (res.status === 201) {
                texts.set(res.json!.data!.post_id!, parts);
                sent.set(res.json!.data!.post_id!, parts);
                break;
              }
              assert.ok(tries < 20 && res.status === 409, res.text);
              await new Promise((r) => setTimeout(r, 100));
            }
          }),
        );
        await new Promise((r) => setTimeout(r, 200));
      }
      sending = false;
    })();
    let kills = 0;
    let restarts = 0;
    const chaos = (async () => {
      while (kills < KILLS || restarts < RESTARTS || sending) {
        await new Promise((r) => setTimeout(r, 500 + Math.random() * 1000));
        if (restarts < RESTARTS && kills >= (restarts + 1) * 2) {
          await fleet.restartSandbox();
          addFaults();
          restarts++;
          continue;
        }
        if (kills < KILLS && (await killRandomWorker(fleet))) kills++;
        if (fleet.workers.length < 2) fleet.startWorker();
      }
    })();
    await Promise.all([send, chaos]);
    const ids = [...texts.keys()];
    await targetsSettled(fleet, 'every target settled after the last kill and restart', ids, 240_000);
    const audit = await auditExactlyOnce(fleet.t.container.pool, fleet.sandbox, texts, PLATFORMS);
    const shared = await sharedPlatformIds();
    const fired = firedFaults();
    console.log(
      `# ${POSTS} threads of 3 parts, ${audit.targets} targets, ${audit.parts} parts: ${audit.published} published, ${audit.failed} failed with a reason; ${kills} worker kills, ${restarts} sandbox restarts, ${fired} platform faults; ${shared.length} wrong adoptions`,
    );
    recordFigures('threads under kills and sandbox restarts', {
      requests,
      faults: kills + restarts + fired,
      lost: audit.lost,
      duplicates: audit.duplicates,
      unexpected5xx: fiveHundreds,
      notes: `${POSTS} posts, ${audit.parts} parts; ${kills} SIGKILLs, ${restarts} sandbox restarts, ${fired} platform faults; ${shared.length} wrong adoptions`,
    });
    assert.deepEqual(audit.problems.slice(0, 20), []);
    assert.deepEqual(shared, []);
    assert.equal(audit.duplicates, 0);
    assert.equal(audit.lost, 0);
    assert.deepEqual(fleet.crashed(), [], 'no Herald process died on its own');
  },
);

test(
  'posts whose text X already holds fail PLATFORM_DUPLICATE, and a retry adopts nothing',
  { timeout: 240_000 },
  async () => {
    const key = await fleet.t.key();
    const x = fleet.sandbox.simulator('x').faults;
    x.clear();
    // Lost responses as well: the look-up that follows one must not take the other post's tweet for its own.
    x.add({ fault: 'lost_response', operation: 'create_post', probability: 0.3 });
    const ORIGINALS = 8;
    let requests = 0;
    let fiveHundreds = 0;
    const create = async (content: string, idem: string) => {
      const res = await call(`${fleet.urls[0]}/v1/posts`, {
        method: 'POST',
        key,
        idem,
        body: { content, platforms: ['x'], publish_now: true },
      });
      requests++;
      if (res.status >= 500) fiveHundreds++;
      assert.equal(res.status, 201, res.text);
      return res.json!.data!.post_id!;
    };
    const originals = await Promise.all(
      Array.from({ length: ORIGINALS }, (_, i) => create(`original ${i} ${Date.now()}`, `dup-original-${i}`)),
    );
    const settled = (postIds: string[]) => targetsSettled(fleet, 'the posts settled', postIds, 120_000, 300);
    await settled(originals);
    const originalTexts = await Promise.all(
      originals.map(async (id) => {
        const post = (await call(`${fleet.urls[0]}/v1/posts/${id}`, { key })).json!.data!;
        sent.set(id, [String(post.content)]);
        return String(post.content);
      }),
    );
    const copies = await Promise.all(originalTexts.map((text, i) => create(text, `dup-copy-${i}`)));
    await settled(copies);
    // The reproduction of the issue: a retry of the rejected copy must not adopt the original's tweet.
    for (const id of copies) {
      const retried = await call(`${fleet.urls[0]}/v1/posts/${id}/retry`, { method: 'POST', key, idem: `retry-${id}` });
      requests++;
      assert.ok([200, 202].includes(retried.status), retried.text);
    }
    await settled(copies);
    const failedRight = await Promise.all(
      copies.map(async (id, i) => {
        const post = (await call(`${fleet.urls[0]}/v1/posts/${id}`, { key })).json!.data!;
        const target = (
          post.targets as Array<{ status: string; platform_post_id: string | null; error: { code: string } }>
        )[0]!;
        assert.equal(target.status, 'failed', `copy ${i}: ${JSON.stringify(target)}`);
        assert.equal(target.error.code, 'PLATFORM_DUPLICATE');
        assert.equal(target.platform_post_id, null, `copy ${i} adopted ${target.platform_post_id}`);
        sent.set(id, [originalTexts[i]!]);
        return true;
      }),
    );
    const audit = await auditExactlyOnce(fleet.t.container.pool, fleet.sandbox, sent, PLATFORMS);
    const shared = await sharedPlatformIds();
    assert.deepEqual(audit.problems.slice(0, 20), []);
    recordFigures('duplicate content rejected, retried, never adopted', {
      requests,
      faults: Object.values(fleet.sandbox.simulator('x').faults.fired()).reduce((a, b) => a + b, 0),
      lost: audit.lost,
      duplicates: audit.duplicates,
      unexpected5xx: fiveHundreds,
      notes: `${ORIGINALS} originals, ${failedRight.length} copies failed PLATFORM_DUPLICATE after a retry; ${shared.length} wrong adoptions`,
    });
    assert.deepEqual(shared, []);
    assert.equal(audit.duplicates, 0);
  },
);
