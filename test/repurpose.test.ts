// Repurpose jobs: a fixture article served over local HTTP becomes an X thread within limits and a LinkedIn post;
// text and post sources; approval mode makes one batch; schedule mode spaces posts from the first time; the SSRF
// guard refuses private addresses at once and on redirects, and too large, too slow or non-HTML pages fail the job.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Value } from 'typebox/value';
import { insertFetchedMedia } from '../src/features/media/media.repo.ts';
import { repurposeFetchCaps } from '../src/features/repurpose/repurpose.extract.ts';
import { insertJob } from '../src/features/repurpose/repurpose.repo.ts';
import { runRepurposeJob } from '../src/features/repurpose/repurpose.run.ts';
import { RepurposeJob } from '../src/features/repurpose/repurpose.view.schemas.ts';
import { PLATFORM_LIMITS } from '../src/platforms/catalogue.ts';
import { startWorker, type WorkerHandle } from '../src/jobs/worker.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './helpers/app.ts';
import { pollFor } from './helpers/poll.ts';
import { ARTICLE_TITLE, jobEnded, startArticleServer, startJob, type FixtureServer } from './helpers/repurpose.ts';
import { fakeDns } from './helpers/webhooks.ts';

let sandbox: RunningSandbox;
let t: TestApp;
let worker: WorkerHandle;
let key: string;
let site: FixtureServer;
const dns = fakeDns({ 'articles.test': ['127.0.0.1'], 'private.example': ['10.0.0.7'] });

before(async () => {
  site = await startArticleServer();
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildTestApp({
    lookup: dns,
    env: {
      HERALD_SANDBOX_URL: sandbox.url,
      HERALD_OUTBOUND_ALLOWLIST: 'articles.test',
      // Short enough for the slow page's test, long enough that the big page reaches its size cap first on a
      // loaded machine (it streams 3 MB; at 1 s it sometimes hit the time cap).
      HERALD_MEDIA_FETCH_TIMEOUT_SECONDS: '4',
    },
  });
  worker = await startWorker(t.container);
  key = await t.key();
});
after(async () => {
  await worker.stop();
  await t.close();
  await sandbox.close();
  await site.close();
});

async function postRow(id: string) {
  const { rows } = await t.container.pool.query(
    'SELECT content, platform_options, created_via, status, schedule_at, platforms FROM posts WHERE id = $1',
    [id],
  );
  return rows[0] as {
    content: string;
    platform_options: Record<string, { thread?: string[] }>;
    created_via: string;
    status: string;
    schedule_at: Date | null;
    platforms: string[];
  };
}

const article = () => `${site.origin()}/blog/article`;
/** Starts a job and answers it once it has ended. */
const runJob = async (body: Record<string, unknown>) => jobEnded(t, key, (await startJob(t, key, body)).id);

describe('a URL source', () => {
  test('the article becomes an X thread within limits and a LinkedIn post, as drafts, with repurpose.completed', async () => {
    const queued = await startJob(t, key, {
      source: { type: 'url', url: article() },
      targets: [
        { platform: 'x', format: 'thread' },
        { platform: 'linkedin', format: 'post' },
      ],
      options: { utm: { campaign: 'launch' } },
    });
    assert.equal(queued.status, 'queued');
    const job = await jobEnded(t, key, queued.id);
    assert.equal(job.status, 'completed', JSON.stringify(job.error ?? job.outputs));
    assert.ok(Value.Check(RepurposeJob, { ...job }), JSON.stringify([...Value.Errors(RepurposeJob, job)].slice(0, 3)));
    assert.equal(job.source_snapshot.title, ARTICLE_TITLE);
    assert.match(job.source_snapshot.sha256, /^[0-9a-f]{64}$/);
    assert.doesNotMatch(job.source_snapshot.excerpt, /Copyright|About us/, 'Readability leaves the page chrome out');
    assert.equal(job.generated_by.engine, 'extractive');

    const [thread, linkedin] = job.outputs;
    assert.equal(thread.platform, 'x');
    assert.ok(thread.parts.length >= 2, 'the article needs more than one X post');
    thread.parts.forEach((part: string, i: number) => {
      assert.deepEqual(PLATFORM_LIMITS.x.text.check(part), [], part);
      assert.ok(part.endsWith(` ${i + 1}/${thread.parts.length}`), part);
    });
    assert.ok(thread.parts[0].startsWith(ARTICLE_TITLE), 'the title leads');
    const link = `${article()}?utm_source=x&utm_medium=social&utm_campaign=launch`;
    assert.ok(
      thread.parts.some((p: string) => p.includes(`${link} `)),
      'the link stands whole in one part',
    );
    assert.equal(thread.within_limit, true);
    assert.ok(thread.char_count <= PLATFORM_LIMITS.x.text.maxLength);
    const xPost = await postRow(thread.post_id);
    assert.equal(xPost.created_via, 'repurpose');
    assert.equal(xPost.status, 'draft');
    assert.equal(xPost.content, thread.parts[0]);
    assert.deepEqual(xPost.platform_options.x?.thread, thread.parts.slice(1));

    assert.equal(linkedin.platform, 'linkedin');
    assert.equal(linkedin.parts.length, 1);
    assert.deepEqual(PLATFORM_LIMITS.linkedin.text.check(linkedin.content), []);
    assert.match(linkedin.content, /utm_source=linkedin&utm_medium=social&utm_campaign=launch/);
    assert.ok(linkedin.hashtags.length > 0 && linkedin.hashtags.every((h: string) => linkedin.content.includes(h)));
    assert.equal((await postRow(linkedin.post_id)).content, linkedin.content);

    // The same validator as POST /v1/posts/validate accepts what was made.
    const check = await t.inject({
      method: 'POST',
      url: '/v1/posts/validate',
      key,
      payload: {
        content: thread.parts[0],
        platforms: ['x'],
        platform_options: { x: { thread: thread.parts.slice(1) } },
      },
    });
    assert.equal(check.json().data.valid, true, check.body);

    const { rows } = await t.container.pool.query(`SELECT type FROM events WHERE data->>'id' = $1`, [job.id]);
    assert.deepEqual(
      rows.map((r) => r.type),
      ['repurpose.completed'],
    );
  });

  test('a redirect within the allowed host is followed', async () => {
    const job = await runJob({
      source: { type: 'url', url: `${site.origin()}/hop` },
      targets: [{ platform: 'bluesky', format: 'post' }],
    });
    assert.equal(job.status, 'completed', JSON.stringify(job.error ?? job.outputs));
    assert.match(job.outputs[0].content, /\/blog\/article\?utm_source=bluesky/);
  });
});

describe('text, post and media sources', () => {
  test('pasted text becomes a Bluesky thread whose parts fit in graphemes', async () => {
    const text = Array.from(
      { length: 14 },
      (_, i) => `Sentence number ${i + 1} explains one more detail of the quarterly planning process for the team.`,
    ).join(' ');
    const job = await runJob({
      source: { type: 'text', text, title: 'Planning' },
      targets: [{ platform: 'bluesky', format: 'thread' }],
      options: { hashtags: false },
    });
    assert.equal(job.status, 'completed', JSON.stringify(job.outputs));
    const [out] = job.outputs;
    assert.ok(out.parts.length >= 2);
    for (const part of out.parts) assert.deepEqual(PLATFORM_LIMITS.bluesky.text.check(part), []);
    assert.deepEqual(out.hashtags, []);
    assert.equal(job.source_snapshot.title, 'Planning');
  });

  test('a Herald post is read as the source', async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: {
        content: 'Our support team now answers within one hour on weekdays. Weekend answers come the next morning.',
        platforms: ['linkedin'],
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const postId = created.json().data.post.id;
    const job = await runJob({
      source: { type: 'post', post_id: postId },
      targets: [{ platform: 'x', format: 'post', count: 2 }],
    });
    assert.equal(job.status, 'completed', JSON.stringify(job.outputs));
    assert.equal(job.outputs.length, 2);
    assert.match(job.outputs[0].content, /support team/);
    assert.notEqual(job.outputs[0].post_id, postId);
  });

  test('a post that does not exist, or was deleted, is a 422 naming the rule', async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: { content: 'A post about to be deleted.', platforms: ['linkedin'] },
    });
    const deleted = created.json().data.post.id;
    const gone = await t.inject({ method: 'DELETE', url: `/v1/posts/${deleted}`, key });
    assert.ok(gone.statusCode < 300, gone.body);
    for (const postId of ['post_nope', deleted]) {
      const res = await t.inject({
        method: 'POST',
        url: '/v1/repurpose',
        key,
        payload: { source: { type: 'post', post_id: postId }, targets: [{ platform: 'x', format: 'post' }] },
      });
      assert.equal(res.statusCode, 422, `${postId}: ${res.body}`);
      assert.equal(res.json().error.details[0].rule, 'source_post_not_found');
    }
  });

  test('a media source without a transcript is refused: there is no offline transcription', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/v1/repurpose',
      key,
      payload: { source: { type: 'media', media_id: 'med_x' }, targets: [{ platform: 'x', format: 'post' }] },
    });
    assert.equal(res.statusCode, 422, res.body);
    const rules = res.json().error.details.map((d: { rule: string }) => d.rule);
    assert.ok(rules.includes('transcript_required'), rules.join());
  });

  test('a video with its transcript is repurposed from the transcript; an image is not a video', async () => {
    const id = `med_${'0'.repeat(20)}video1`;
    await insertFetchedMedia(t.container.pool, {
      id,
      workspaceId: t.owner.workspaceId,
      filename: 'talk.mp4',
      sourceUrl: `${site.origin()}/talk.mp4`,
      maxBytes: 1_000,
      storageDriver: 'local',
      uploadKey: `${t.owner.workspaceId}/${id}`,
      deadline: new Date(Date.now() + 60_000),
      createdBy: t.owner.userId,
    });
    const transcript =
      'Welcome to the talk. Today we show how review queues make mobile releases safer. Every release waits for one approval.';
    const job = await runJob({
      source: { type: 'media', media_id: id, transcript, title: 'Safer releases' },
      targets: [{ platform: 'threads', format: 'post' }],
    });
    assert.equal(job.status, 'completed', JSON.stringify(job.outputs));
    assert.match(job.outputs[0].content, /^Safer releases/);
    assert.match(job.outputs[0].content, /review queues/);

    await t.container.pool.query(`UPDATE media SET kind = 'image' WHERE id = $1`, [id]);
    const res = await t.inject({
      method: 'POST',
      url: '/v1/repurpose',
      key,
      payload: { source: { type: 'media', media_id: id, transcript }, targets: [{ platform: 'x', format: 'post' }] },
    });
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().error.details[0].rule, 'source_media_not_video');
  });

  test('a thread for a platform without threads, and fields of another source type, are 422s', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/v1/repurpose',
      key,
      payload: {
        source: { type: 'text', text: 'Hello there.', url: article() },
        targets: [{ platform: 'linkedin', format: 'thread' }],
      },
    });
    assert.equal(res.statusCode, 422, res.body);
    const rules = res
      .json()
      .error.details.map((d: { rule: string }) => d.rule)
      .sort();
    assert.deepEqual(rules, ['source_field_unexpected', 'thread_unsupported']);
  });

  test('a link that is not an absolute http(s) URL is a 422', async () => {
    for (const link of ['http://[', 'ftp://example.com/a', 'example.com/a']) {
      const res = await t.inject({
        method: 'POST',
        url: '/v1/repurpose',
        key,
        payload: {
          source: { type: 'text', text: 'Hello there.' },
          targets: [{ platform: 'x', format: 'post' }],
          options: { link },
        },
      });
      assert.equal(res.statusCode, 422, `${link}: ${res.body}`);
      assert.equal(res.json().error.details[0].rule, 'link_invalid');
    }
  });

  test('bad inputs are 400s, 403s or 422s naming the problem, never a 500', async () => {
    const text = { type: 'text', text: 'Hello there.' };
    const x = [{ platform: 'x', format: 'post' }];
    const cases: [Record<string, unknown>, number, string][] = [
      [{ source: { type: 'url', url: 'not a url' }, targets: x }, 422, 'url_invalid'],
      [{ source: { type: 'url', url: 'ftp://articles.test/a' }, targets: x }, 422, 'url_scheme_blocked'],
      [{ source: { type: 'url' }, targets: x }, 422, 'source_field_required'],
      [{ source: { type: 'post', post_id: 'post_nope' }, targets: x }, 422, 'source_post_not_found'],
      [{ source: text, targets: [...x, ...x] }, 422, 'target_repeated'],
      [{ source: text, targets: [] }, 400, 'PUBLIC_API_BODY_INVALID'],
      [{ source: text, targets: [{ ...x[0], count: 6 }] }, 400, 'PUBLIC_API_BODY_INVALID'],
      [{ source: text, targets: [{ ...x[0], count: 0 }] }, 400, 'PUBLIC_API_BODY_INVALID'],
      [{ source: text, targets: [{ platform: 'myspace', format: 'post' }] }, 400, 'PUBLIC_API_BODY_INVALID'],
      [{ source: { type: 'text', text: 'a'.repeat(100_001) }, targets: x }, 400, 'PUBLIC_API_BODY_INVALID'],
      [{ brand_id: 'brand_nope', source: text, targets: x }, 403, 'PUBLIC_API_BRAND_FORBIDDEN'],
    ];
    for (const [payload, status, expected] of cases) {
      const res = await t.inject({ method: 'POST', url: '/v1/repurpose', key, payload });
      assert.equal(res.statusCode, status, `${JSON.stringify(payload).slice(0, 120)}: ${res.body.slice(0, 300)}`);
      const error = res.json().error;
      assert.ok(
        error.code === expected || error.details?.some((d: { rule?: string }) => d.rule === expected),
        `${expected}: ${res.body.slice(0, 300)}`,
      );
    }
  });

  test('an Idempotency-Key is required', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/v1/repurpose',
      key,
      idem: false,
      payload: { source: { type: 'text', text: 'Hello there.' }, targets: [{ platform: 'x', format: 'post' }] },
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().error.code, 'PUBLIC_API_IDEMPOTENCY_REQUIRED');
  });
});

describe('partial results', () => {
  test('an output the validator refuses fails with its rule while the others become posts: partially_completed', async () => {
    const job = await runJob({
      source: { type: 'url', url: article() },
      targets: [
        { platform: 'x', format: 'post' },
        { platform: 'instagram', format: 'caption' },
      ],
    });
    assert.equal(job.status, 'partially_completed', JSON.stringify(job.outputs));
    const [x, instagram] = job.outputs;
    assert.equal(x.status, 'created');
    assert.equal(instagram.status, 'failed');
    assert.equal(instagram.within_limit, true, 'the caption fits; Instagram needs media, which a text source lacks');
    assert.equal(instagram.error.rule, 'media_required');
    assert.equal(instagram.post_id, null);
    const { rows } = await t.container.pool.query(`SELECT type FROM events WHERE data->>'id' = $1`, [job.id]);
    assert.deepEqual(
      rows.map((r) => r.type),
      ['repurpose.completed'],
    );
  });
});

describe('brand rules', () => {
  async function withBrand(change: string, values: unknown[], run: () => Promise<void>) {
    await t.container.pool.query(`UPDATE brands SET ${change} WHERE id = $1`, [t.owner.brandId, ...values]);
    try {
      await run();
    } finally {
      await t.container.pool.query(
        `UPDATE brands SET signature = NULL, banned_terms = '{}', default_hashtags = '{}', rules = '{}' WHERE id = $1`,
        [t.owner.brandId],
      );
    }
  }

  test('the signature the brand appends is counted: the X post with it stays within the limit', async () => {
    const signature = '— The Herald team, writing from the harbour office every single week';
    await withBrand(`signature = $2, rules = '{"signature": {"apply": "always"}}'`, [signature], async () => {
      const job = await runJob({
        source: { type: 'url', url: article() },
        targets: [{ platform: 'x', format: 'post' }],
      });
      assert.equal(job.status, 'completed', JSON.stringify(job.outputs));
      const [out] = job.outputs;
      assert.deepEqual(PLATFORM_LIMITS.x.text.check(`${out.content}\n\n${signature}`), []);
      const check = await t.inject({
        method: 'POST',
        url: '/v1/posts/validate',
        key,
        payload: { content: out.content, platforms: ['x'] },
      });
      const answer = check.json().data;
      assert.equal(answer.valid, true, check.body);
      assert.ok(answer.applied[0].text.includes(signature), 'the validator appended the signature');
    });
  });

  test('hashtags are the brand defaults first, then the source keywords', async () => {
    await withBrand(`default_hashtags = ARRAY['#HeraldHQ']`, [], async () => {
      const job = await runJob({
        source: { type: 'url', url: article() },
        targets: [{ platform: 'linkedin', format: 'post' }],
      });
      assert.equal(job.status, 'completed', JSON.stringify(job.outputs));
      const [out] = job.outputs;
      assert.equal(out.hashtags[0], '#HeraldHQ');
      assert.ok(out.hashtags.length > 1, 'keywords follow the default');
      assert.ok(out.content.includes(out.hashtags.join(' ')));
    });
  });

  test('an output using a term the brand bans (as an error) fails with the rule and makes no post', async () => {
    await withBrand(
      `banned_terms = ARRAY['network'], rules = '{"banned_terms": {"severity": "error"}}'`,
      [],
      async () => {
        const job = await runJob({
          source: { type: 'url', url: article() },
          targets: [{ platform: 'linkedin', format: 'post' }],
        });
        assert.equal(job.status, 'failed');
        const [out] = job.outputs;
        assert.equal(out.status, 'failed');
        assert.equal(out.error.rule, 'banned_term');
        assert.equal(out.post_id, null);
        assert.equal(job.error.code, 'outputs_failed');
      },
    );
  });
});

describe('output modes', () => {
  test('approval mode holds every output for review in one batch for the job', async () => {
    const job = await runJob({
      source: { type: 'url', url: article() },
      targets: [
        { platform: 'x', format: 'thread' },
        { platform: 'linkedin', format: 'post' },
      ],
      output: { mode: 'approval' },
    });
    assert.equal(job.status, 'completed', JSON.stringify(job.outputs));
    assert.ok(job.approval_batch_id);
    const { rows } = await t.container.pool.query(
      'SELECT id, batch_id, subject_id, status, source_type, source_id FROM approval_items WHERE batch_id = $1',
      [job.approval_batch_id],
    );
    assert.equal(rows.length, 2);
    for (const out of job.outputs) {
      const item = rows.find((r) => r.id === out.approval_item_id);
      assert.ok(item, 'each output names its approval item');
      assert.equal(item.subject_id, out.post_id);
      assert.deepEqual([item.status, item.source_type, item.source_id], ['pending', 'repurpose', job.id]);
      assert.equal((await postRow(out.post_id)).status, 'pending_approval');
    }
    const batches = await t.container.pool.query('SELECT status FROM approval_batches WHERE id = $1', [
      job.approval_batch_id,
    ]);
    assert.equal(batches.rows[0].status, 'completed');
  });

  test('approval mode where no output passes leaves no empty batch behind', async () => {
    // Instagram refuses a post without media: the only output fails its rule.
    const job = await runJob({
      source: { type: 'text', text: 'Release notes matter. Review queues make release notes better.' },
      targets: [{ platform: 'instagram', format: 'caption' }],
      output: { mode: 'approval' },
    });
    assert.equal(job.status, 'failed', JSON.stringify(job.outputs));
    assert.equal(job.approval_batch_id, null);
    const batches = await t.container.pool.query('SELECT 1 FROM approval_batches WHERE source_id = $1', [job.id]);
    assert.equal(batches.rows.length, 0);
  });

  test('schedule mode spaces the posts from the first time, read in the brand time zone', async () => {
    await t.container.pool.query(`UPDATE brands SET timezone = 'Europe/Paris' WHERE id = $1`, [t.owner.brandId]);
    try {
      const year = new Date().getUTCFullYear() + 1;
      const job = await runJob({
        source: { type: 'url', url: article() },
        targets: [{ platform: 'linkedin', format: 'post', count: 2 }],
        output: { mode: 'schedule', schedule: { first_at: `${year}-07-01T09:00:00`, spacing_minutes: 90 } },
      });
      assert.equal(job.status, 'completed', JSON.stringify(job.outputs));
      const times = await Promise.all(
        job.outputs.map(async (o: { post_id: string }) => (await postRow(o.post_id)).schedule_at!.toISOString()),
      );
      // 09:00 in Paris in July is 07:00 UTC.
      assert.deepEqual(times, [`${year}-07-01T07:00:00.000Z`, `${year}-07-01T08:30:00.000Z`]);
      for (const o of job.outputs) assert.equal((await postRow(o.post_id)).status, 'scheduled');
    } finally {
      await t.container.pool.query('UPDATE brands SET timezone = NULL WHERE id = $1', [t.owner.brandId]);
    }
  });

  test('schedule mode without a first time is a 422', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/v1/repurpose',
      key,
      payload: {
        source: { type: 'text', text: 'Hello there.' },
        targets: [{ platform: 'x', format: 'post' }],
        output: { mode: 'schedule' },
      },
    });
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().error.details[0].rule, 'schedule_required');
  });
});

describe('the SSRF guard and the fetch caps', () => {
  async function failedWith(url: string) {
    const job = await jobEnded(
      t,
      key,
      (await startJob(t, key, { source: { type: 'url', url }, targets: [{ platform: 'x', format: 'post' }] })).id,
    );
    assert.equal(job.status, 'failed');
    assert.deepEqual(job.outputs, []);
    const { rows } = await t.container.pool.query(`SELECT type FROM events WHERE data->>'id' = $1`, [job.id]);
    assert.deepEqual(
      rows.map((r) => r.type),
      ['repurpose.failed'],
    );
    return job.error as { code: string; message: string };
  }

  test('a host resolving to a private address, or a loopback literal, is a 422 at once', async () => {
    for (const url of ['https://private.example/post', site.origin('127.0.0.1') + '/blog/article']) {
      const res = await t.inject({
        method: 'POST',
        url: '/v1/repurpose',
        key,
        payload: { source: { type: 'url', url }, targets: [{ platform: 'x', format: 'post' }] },
      });
      assert.equal(res.statusCode, 422, res.body);
      assert.match(res.json().error.details[0].rule, /^url_/);
    }
  });

  test('a redirect into a private address fails the job', async () => {
    const error = await failedWith(`${site.origin()}/to-private`);
    assert.equal(error.code, 'source_unreachable');
    assert.match(error.message, /redirect to https:\/\/private\.example\/admin was refused/);
  });

  test('a page over the size cap fails the job', async () => {
    const error = await failedWith(`${site.origin()}/big`);
    assert.match(error.message, /larger than/);
  });

  test('a page slower than the time cap fails the job', async () => {
    const error = await failedWith(`${site.origin()}/slow`);
    assert.match(error.message, /within 4 s/);
  });

  test('a response that is not HTML fails the job', async () => {
    const error = await failedWith(`${site.origin()}/data.json`);
    assert.equal(error.code, 'source_not_html');
  });
});

describe('reading, listing and cancelling', () => {
  test('a running job can be cancelled once; it then creates nothing', async () => {
    const job = await startJob(t, key, {
      source: { type: 'url', url: `${site.origin()}/slow` },
      targets: [{ platform: 'x', format: 'post' }],
    });
    const res = await t.inject({ method: 'POST', url: `/v1/repurpose/${job.id}/cancel`, key });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.status, 'cancelled');
    const again = await t.inject({ method: 'POST', url: `/v1/repurpose/${job.id}/cancel`, key });
    assert.equal(again.statusCode, 409, again.body);
    // Whatever the worker had started ends without writing over the cancellation.
    await pollFor('slow fetch over', async () => {
      const { rows } = await t.container.pool.query(
        `SELECT 1 FROM graphile_worker.jobs WHERE key = $1 AND locked_at IS NOT NULL`,
        [`repurpose:${job.id}`],
      );
      return rows.length === 0;
    });
    const read = (await t.inject({ url: `/v1/repurpose/${job.id}`, key })).json().data;
    assert.equal(read.status, 'cancelled');
    assert.deepEqual(read.outputs, []);
  });

  test('a job cancelled while it is generating writes no post and keeps its cancellation', async () => {
    // The row alone (no queued worker job), run by hand with a model that sees the cancel arrive mid-generation.
    const row = await insertJob(t.container.pool, {
      id: `rep_generating_${Date.now()}`,
      workspace_id: t.owner.workspaceId,
      brand_id: t.owner.brandId,
      created_by: t.owner.userId,
      source: { type: 'text', text: 'Release notes matter. Review queues make release notes better.' },
      targets: [{ platform: 'linkedin', format: 'post', count: 1 }],
      options: { hashtags: true },
      output: { mode: 'draft' },
    });
    const repurposePosts = async () =>
      (await t.container.pool.query(`SELECT count(*)::int AS n FROM posts WHERE created_via = 'repurpose'`)).rows[0].n;
    const postsBefore = await repurposePosts();
    let cancelled = 0;
    const ai = {
      ...t.container.ai,
      async generate<T>(request: Parameters<typeof t.container.ai.generate>[0]) {
        const res = await t.inject({ method: 'POST', url: `/v1/repurpose/${row.id}/cancel`, key });
        assert.equal(res.statusCode, 200, res.body);
        cancelled++;
        return t.container.ai.generate<T>(request);
      },
    };
    const deps = {
      pool: t.container.pool,
      ai,
      posts: t.container.posts,
      clock: t.container.clock,
      logger: t.container.logger,
      caps: repurposeFetchCaps(t.container.outboundGuard, 1),
    };
    await runRepurposeJob(deps, { workspace_id: t.owner.workspaceId, job_id: row.id }, false);
    assert.equal(cancelled, 1);
    const read = (await t.inject({ url: `/v1/repurpose/${row.id}`, key })).json().data;
    assert.equal(read.status, 'cancelled');
    assert.deepEqual(read.outputs, []);
    assert.ok(read.source_snapshot, 'the source was read before the cancel');
    assert.equal(await repurposePosts(), postsBefore);
    const events = await t.container.pool.query(`SELECT type FROM events WHERE data->>'id' = $1`, [row.id]);
    assert.deepEqual(events.rows, []);
  });

  test('the list filters by status and pages with a cursor; an unknown id is a 404', async () => {
    const first = await t.inject({ url: '/v1/repurpose?status=failed&limit=2', key });
    assert.equal(first.statusCode, 200, first.body);
    const page = first.json().data;
    assert.equal(page.items.length, 2);
    assert.ok(page.items.every((j: { status: string }) => j.status === 'failed'));
    assert.equal(page.has_more, true);
    const next = (await t.inject({ url: `/v1/repurpose?status=failed&limit=2&cursor=${page.next_cursor}`, key })).json()
      .data;
    assert.ok(next.items.length >= 1);
    assert.equal(
      new Set([...page.items, ...next.items].map((j: { id: string }) => j.id)).size,
      page.items.length + next.items.length,
    );
    const other = await t.inject({ url: `/v1/repurpose?status=completed&cursor=${page.next_cursor}`, key });
    assert.equal(other.statusCode, 400);
    assert.equal((await t.inject({ url: '/v1/repurpose/rep_nope', key })).statusCode, 404);
    const mine = (await t.inject({ url: `/v1/repurpose?brand_id=${t.owner.brandId}&limit=100`, key })).json().data;
    assert.ok(mine.items.length > 0 && mine.items.every((j: { brand_id: string }) => j.brand_id === t.owner.brandId));
    const none = (await t.inject({ url: '/v1/repurpose?brand_id=brand_elsewhere', key })).json().data;
    assert.deepEqual(none.items, []);
  });

  test('reading needs repurpose:read', async () => {
    const posts = await t.key({ scopes: ['posts:read'] });
    assert.equal((await t.inject({ url: '/v1/repurpose', key: posts })).statusCode, 403);
  });
});
