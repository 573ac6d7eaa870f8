// Benchmark: adding posts to one posting queue (POST /v1/posts with `queue: "next"`) over 64 connections, against
// the same creates with an explicit `schedule_at`, on one Herald in the same run, each side in turn and each round
// into a queue of its own; then the slot preview (GET /v1/queues/{id}/slots, 1,000 slots) with 100,000 queued posts
// seeded by SQL. Adds to one queue share claim transactions for their slots (docs/queues.md "What the lock costs"),
// so the ratio is what claiming costs.
import path from 'node:path';
import pg from 'pg';
import { prepareWorkspace, startHerald, type Workspace } from './lib/herald.ts';
import { best, runLoad, type LoadResult, type LoadSpec } from './lib/load.ts';
import { fmt, type BenchContext, type Row } from './lib/report.ts';

const CONNECTIONS = 64;
/** Queue adds at least this share of explicit-time creates. */
const TARGET = 0.8;
/** Slot preview p99, in milliseconds. */
const PREVIEW_P99_MS = 50;
const PREVIEW_SLOTS = 1000;
const DAY_MS = 86_400_000;
const HALF_HOUR_MS = 30 * 60_000;

/** A slot every half hour, every day, in UTC: 336 a week, the most a queue has. */
const EVERY_HALF_HOUR = [0, 1, 2, 3, 4, 5, 6].flatMap((day) =>
  Array.from({ length: 48 }, (_, i) => ({
    day_of_week: day,
    time: `${String(Math.floor(i / 2)).padStart(2, '0')}:${i % 2 === 0 ? '00' : '30'}`,
    timezone: 'UTC',
  })),
);

async function createQueue(url: string, ws: Workspace, name: string): Promise<string> {
  const res = await fetch(`${url}/v1/queues`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${ws.key}`,
      'content-type': 'application/json',
      'idempotency-key': `bench-queue-${name}-${Date.now()}`,
    },
    body: JSON.stringify({ name, slots: EVERY_HALF_HOUR }),
  });
  if (res.status !== 201) throw new Error(`creating a queue answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { data: { id: string } }).data.id;
}

/** `count` posts holding consecutive slots of the queue from `first` on, written as Herald writes a queued post. */
async function seedQueued(url: string, ws: Workspace, queueId: string, first: Date, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO posts (id, workspace_id, brand_id, content, platforms, status, schedule_at, created_via, created_by,
                          queue_id, queue_slot)
       SELECT 'post_queued' || lpad(g::text, 19, '0'), $1, $2, 'Queued post ' || g, ARRAY['mastodon'], 'scheduled',
              $3::timestamptz + g * interval '30 minutes', 'api', $4, $5, $3::timestamptz + g * interval '30 minutes'
         FROM generate_series(0, $6::int - 1) AS g`,
      [ws.workspaceId, ws.brandId, first, ws.userId, queueId, count],
    );
    await client.query('ANALYZE posts');
  } finally {
    await client.end();
  }
}

/** Each post of the queue holds its own slot, and they are the first `count` slots: none given twice, none skipped. */
async function checkQueue(url: string, queueId: string, count: number): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number; distinct: number; span: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT queue_slot)::int AS distinct,
              (extract(epoch FROM max(queue_slot) - min(queue_slot)) / 1800)::int + 1 AS span
         FROM posts WHERE queue_id = $1`,
      [queueId],
    );
    const r = rows[0]!;
    if (r.n !== count || r.distinct !== count || r.span !== count)
      return `queue ${queueId}: ${r.n} posts, ${r.distinct} distinct slots spanning ${r.span} (expected ${count} each)`;
    return undefined;
  } finally {
    await client.end();
  }
}

const line = (r: LoadResult) => `${fmt.rps(r.requestsPerSecond)}, p50 ${fmt.ms(r.p50Ms)}, p99 ${fmt.ms(r.p99Ms)}`;

export async function queueAddBenchmark(ctx: BenchContext): Promise<Row[]> {
  const posts = ctx.quick ? 2_000 : 10_000;
  const queued = ctx.quick ? 20_000 : 100_000;
  const rounds = ctx.quick ? 1 : 2;
  const db = await ctx.server.createDatabase();
  try {
    const ws = await prepareWorkspace(db.url);
    const herald = await startHerald({
      databaseUrl: db.url,
      dataDir: path.join(ctx.scratch, 'queue-add'),
      secret: ws.secret,
    });
    try {
      const spec = (extra: Record<string, unknown>, amount: number): LoadSpec => ({
        url: `${herald.url}/v1/posts`,
        method: 'POST',
        headers: {
          authorization: `Bearer ${ws.key}`,
          'content-type': 'application/json',
          'idempotency-key': 'bench-[<id>]',
        },
        body: JSON.stringify({ content: 'Benchmark post [<id>]', platforms: ['mastodon'], ...extra }),
        connections: CONNECTIONS,
        seconds: 600,
        amount,
        unique: true,
      });
      // Due in a month: nothing publishes during the run, so only the API is measured.
      const explicit = () => spec({ schedule_at: new Date(Date.now() + 30 * DAY_MS).toISOString() }, posts);
      const intoQueue = async (name: string, amount: number) =>
        spec({ queue: 'next', queue_id: await createQueue(herald.url, ws, name) }, amount);
      await runLoad(explicit());
      await runLoad(await intoQueue('warm-up', 1_000));
      const runs: Record<'explicit' | 'queue', LoadResult[]> = { explicit: [], queue: [] };
      for (let round = 0; round < rounds; round++) {
        runs.explicit.push(await runLoad(explicit()));
        const queueSpec = await intoQueue(`round ${round}`, posts);
        runs.queue.push(await runLoad(queueSpec));
        const broken = await checkQueue(db.url, JSON.parse(queueSpec.body!).queue_id as string, posts);
        if (broken) throw new Error(broken);
        ctx.log(
          `queue add, round ${round + 1}: queue ${line(runs.queue.at(-1)!)}; schedule_at ${line(runs.explicit.at(-1)!)}`,
        );
      }
      const q = best(runs.queue);
      const e = best(runs.explicit);

      const previewQueue = await createQueue(herald.url, ws, 'preview');
      const first = new Date(Math.ceil((Date.now() + DAY_MS) / HALF_HOUR_MS) * HALF_HOUR_MS);
      const started = performance.now();
      await seedQueued(db.url, ws, previewQueue, first, queued);
      ctx.log(`queue preview: seeded ${queued} queued posts in ${fmt.s(performance.now() - started)}`);
      // A window in the middle of the seeded posts: every one of its 1,000 slots is taken.
      const from = new Date(first.getTime() + Math.floor(queued / 2) * HALF_HOUR_MS);
      const to = new Date(from.getTime() + 21 * DAY_MS);
      const previewUrl = `${herald.url}/v1/queues/${previewQueue}/slots?from=${from.toISOString()}&to=${to.toISOString()}&limit=${PREVIEW_SLOTS}`;
      const probe = (await (await fetch(previewUrl, { headers: { authorization: `Bearer ${ws.key}` } })).json()) as {
        data: { slots: Array<{ status: string }> };
      };
      const taken = probe.data.slots.filter((s) => s.status === 'taken').length;
      if (probe.data.slots.length !== PREVIEW_SLOTS || taken !== PREVIEW_SLOTS)
        throw new Error(
          `the preview listed ${probe.data.slots.length} slots, ${taken} taken; expected ${PREVIEW_SLOTS}`,
        );
      const previewSpec: LoadSpec = {
        url: previewUrl,
        method: 'GET',
        headers: { authorization: `Bearer ${ws.key}` },
        connections: 4,
        seconds: ctx.quick ? 5 : 15,
      };
      await runLoad({ ...previewSpec, seconds: 3 });
      const preview = await runLoad(previewSpec);
      ctx.log(`queue preview, ${PREVIEW_SLOTS} slots of ${queued} queued: ${line(preview)}`);

      const ratio = q.requestsPerSecond / e.requestsPerSecond;
      const n = posts.toLocaleString('en');
      return [
        {
          benchmark: `Queue add, ${n} posts into one queue, ${CONNECTIONS} conn (best of ${rounds})`,
          herald: fmt.rps(q.requestsPerSecond),
          floor: `${fmt.rps(e.requestsPerSecond)} (create with schedule_at)`,
          ratio,
          target: `≥ ${TARGET} × create with schedule_at`,
          pass: ratio >= TARGET,
          database: ctx.server.label,
        },
        {
          benchmark: `Queue add, ${CONNECTIONS} conn: p50 / p99`,
          herald: `${fmt.ms(q.p50Ms)} / ${fmt.ms(q.p99Ms)}`,
          floor: `${fmt.ms(e.p50Ms)} / ${fmt.ms(e.p99Ms)}`,
          ratio: null,
          target: '—',
          pass: null,
          database: ctx.server.label,
        },
        {
          benchmark: `Queue slot preview, ${PREVIEW_SLOTS.toLocaleString('en')} slots, ${queued.toLocaleString('en')} queued: p99`,
          herald: fmt.ms(preview.p99Ms),
          floor: '—',
          ratio: null,
          target: `< ${PREVIEW_P99_MS} ms`,
          pass: preview.p99Ms < PREVIEW_P99_MS,
          database: ctx.server.label,
        },
      ];
    } finally {
      await herald.stop();
    }
  } finally {
    await db.drop();
  }
}
