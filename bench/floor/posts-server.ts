// The floor for the posts benchmarks: a bare node:http server (no framework, no validation, no auth beyond one
// string comparison) that runs the same SQL Herald runs for POST /v1/posts (one transaction, statement for
// statement, as lib/count-statements.ts counts them in Herald) and GET /v1/posts, through `pg` with a pool of the
// same size, and answers the same JSON. Whatever Herald takes beyond this is the cost of its framework, checks and
// encryption.
//
// With FLOOR_MODE=write it makes only the rows a post is (posts_create, one statement): the write floor.
//
//   FLOOR_DATABASE_URL=… FLOOR_KEY=… FLOOR_WORKSPACE=… FLOOR_USER=… FLOOR_BRAND=… [FLOOR_MODE=write FLOOR_CONNECTION=…]
//   node bench/floor/posts-server.ts
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { postJson } from '../../src/features/posts/posts.view.ts';
import { readCreateContext } from '../../src/features/posts/posts.context.repo.ts';
import { createPostRows } from '../../src/features/posts/posts.create.repo.ts';
import type { PlatformName } from '../../src/platforms/limits.ts';
import type { AttemptRow, NewPost, PostRow, TargetPartRow, TargetRow } from '../../src/features/posts/posts.repo.ts';
import { serveFloor } from './serve.ts';

const env = process.env as Record<string, string>;
const pool = new pg.Pool({ connectionString: env.FLOOR_DATABASE_URL, max: Number(env.FLOOR_POOL ?? 20) });
const workspaceId = env.FLOOR_WORKSPACE!;
const userId = env.FLOOR_USER!;
const brandId = env.FLOOR_BRAND!;
const bearer = `Bearer ${env.FLOOR_KEY}`;

const POST_COLUMNS =
  'id, workspace_id, brand_id, content, platforms, platform_options, media_ids, status, publish_now, schedule_at, published_at, created_via, approval, created_at, updated_at';
const TARGET_COLUMNS = `id, post_id, position, platform, connection_id, sandbox, status, platform_post_id, url, published_at, attempt_count, error,
  CASE WHEN status = 'publishing' AND claimed_by IS NULL THEN greatest(next_attempt_at,
    (SELECT c.throttled_until FROM connections c WHERE c.id = post_targets.connection_id)) END AS next_attempt_at`;
const id = (prefix: string) => `${prefix}_${randomBytes(13).toString('hex').slice(0, 26)}`;

async function render(db: pg.Pool | pg.PoolClient, posts: PostRow[]): Promise<Record<string, unknown>[]> {
  const targets = (
    await db.query<TargetRow>(
      `SELECT ${TARGET_COLUMNS} FROM post_targets WHERE workspace_id = $1 AND post_id = ANY($2::text[]) ORDER BY post_id, position`,
      [workspaceId, posts.map((p) => p.id)],
    )
  ).rows;
  const attempts = (
    await db.query<AttemptRow>(
      'SELECT target_id, started_at, finished_at, outcome, error_code, duration_ms FROM target_attempts WHERE workspace_id = $1 AND target_id = ANY($2::text[]) ORDER BY target_id, started_at, id',
      [workspaceId, targets.map((t) => t.id)],
    )
  ).rows;
  const parts = (
    await db.query<TargetPartRow>(
      'SELECT target_id, position, state, platform_post_id, url FROM target_parts WHERE workspace_id = $1 AND target_id = ANY($2::text[]) ORDER BY target_id, position',
      [workspaceId, targets.map((t) => t.id)],
    )
  ).rows;
  const byPost = Map.groupBy(targets, (t) => t.post_id);
  const attemptsByTarget = Map.groupBy(attempts, (a) => a.target_id);
  const partsByTarget = Map.groupBy(parts, (r) => r.target_id);
  return posts.map((p) => postJson(p, byPost.get(p.id) ?? [], attemptsByTarget, partsByTarget, []));
}

async function events(db: pg.PoolClient, types: string[], data: unknown): Promise<void> {
  await db.query(
    `INSERT INTO events (id, workspace_id, type, data)
       SELECT e.id, $2::uuid, e.type, d.data
         FROM unnest($1::text[], $3::text[]) WITH ORDINALITY AS e(id, type, n)
         JOIN jsonb_array_elements($4::jsonb) WITH ORDINALITY AS d(data, n) ON d.n = e.n
        ORDER BY e.n RETURNING created_at`,
    [types.map(() => id('evt')), workspaceId, types, JSON.stringify(types.map(() => data))],
  );
  await db.query(
    "SELECT id, events FROM webhook_endpoints WHERE workspace_id = $1 AND enabled AND events && ($2::text[] || '*'::text) ORDER BY id FOR KEY SHARE",
    [workspaceId, types],
  );
}

type CreateBody = { content: string; platforms: PlatformName[]; schedule_at: string };

/**
 * The post, its targets and its job in one posts_create call (migration 0031), through Herald's own posts repository
 * (the same prepared statement and arguments), returning the rows as the view reads them.
 */
function writePost(db: pg.Pool | pg.PoolClient, body: CreateBody, connectionIds: Array<string | null>) {
  const scheduleAt = new Date(body.schedule_at);
  const post: NewPost = {
    id: id('post'),
    workspaceId,
    brandId,
    content: body.content,
    platforms: body.platforms,
    platformOptions: {},
    mediaIds: [],
    status: 'scheduled',
    publishNow: false,
    scheduleAt,
    createdVia: 'api',
    createdBy: userId,
    timezone: null,
    metadata: {},
    brandAdditions: {},
  };
  const targets = body.platforms.map((platform, i) => ({ id: id('tgt'), platform, connectionId: connectionIds[i]! }));
  return createPostRows(db, post, targets, { sandbox: true, status: 'scheduled', jobsAt: scheduleAt });
}

// FLOOR_MODE=write: the rows a post is, and nothing else: one posts_create call (the post, its target, its job) in
// its own transaction, with the connection given; no idempotency, look-ups, events or stored answer.
const defaultConnection = env.FLOOR_CONNECTION ?? null;
async function writeOnly(raw: string): Promise<{ status: number; body: string }> {
  const body = JSON.parse(raw) as CreateBody;
  const { post, targets } = await writePost(
    pool,
    body,
    body.platforms.map(() => defaultConnection),
  );
  const view = postJson(post, targets, new Map(), new Map(), []);
  return { status: 201, body: JSON.stringify({ success: true, data: { post_id: post.id, post: view } }) };
}

async function createPost(raw: string, key: string): Promise<{ status: number; body: string }> {
  if (env.FLOOR_MODE === 'write') return writeOnly(raw);
  const body = JSON.parse(raw) as CreateBody;
  const fingerprint = createHash('sha256').update(raw).digest();
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // The idempotency lock and the look-up of a stored answer, in one statement, as Herald claims a key.
    await client.query(
      `SELECT l.ok, k.fingerprint, k.response_status, k.response_body, k.encrypted, k.brand_ids
         FROM (SELECT pg_try_advisory_xact_lock($4) AS ok) l
         LEFT JOIN idempotency_keys k
           ON l.ok AND k.workspace_id = $1 AND k.user_id = $2 AND k.key = $3 AND k.expires_at > now()`,
      [workspaceId, userId, key, fingerprint.readBigInt64BE(0).toString()],
    );
    // The brand's rules, its default connections and the approval policy, in one statement, as Herald reads them.
    const connections = (await readCreateContext(client, workspaceId, brandId, body.platforms)).defaults;
    const connectionIds = body.platforms.map((p) => connections.find((c) => c.platform === p)?.id ?? null);
    // The post, its target and its job in one call; the answer is rendered from the rows just written, and both
    // events go in with one insert and one look-up.
    const { post, targets } = await writePost(client, body, connectionIds);
    const view = postJson(post, targets, new Map(), new Map(), []);
    await events(client, ['post.created', 'post.scheduled'], view);
    const response = JSON.stringify({ success: true, data: { post_id: post.id, post: view } });
    await client.query(
      `INSERT INTO idempotency_keys (workspace_id, user_id, key, fingerprint, response_status, response_body, encrypted, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))
       ON CONFLICT (workspace_id, user_id, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, response_status = EXCLUDED.response_status,
         response_body = EXCLUDED.response_body, encrypted = EXCLUDED.encrypted, expires_at = EXCLUDED.expires_at`,
      [workspaceId, userId, key, fingerprint, 201, Buffer.from(response), false, 86_400],
    );
    await client.query('COMMIT');
    return { status: 201, body: response };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

async function listPosts(query: URLSearchParams): Promise<{ status: number; body: string }> {
  const limit = Number(query.get('limit') ?? 20);
  const statuses = (
    query.get('status') ?? 'draft,pending_approval,scheduled,publishing,published,partially_published,failed,cancelled'
  ).split(',');
  const rows = (
    await pool.query<PostRow>(
      `SELECT ${POST_COLUMNS} FROM posts WHERE workspace_id = $1 AND deleted_at IS NULL AND status = ANY($2::text[]) ORDER BY created_at DESC, id DESC LIMIT $3`,
      [workspaceId, statuses, limit + 1],
    )
  ).rows;
  const page = rows.slice(0, limit);
  const items = await render(pool, page);
  return {
    status: 200,
    body: JSON.stringify({
      success: true,
      data: { items, next_cursor: rows.length > limit ? page.at(-1)!.id : null, has_more: rows.length > limit },
    }),
  };
}

serveFloor(
  bearer,
  ({ method, url, body, headers }) =>
    method === 'POST' && url.pathname === '/v1/posts'
      ? createPost(body, String(headers['idempotency-key']))
      : method === 'GET' && url.pathname === '/v1/posts'
        ? listPosts(url.searchParams)
        : undefined,
  () => void pool.end(),
);
