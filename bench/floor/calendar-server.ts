// The floor for the calendar benchmark: a bare node:http server that answers GET /v1/calendar/events with the
// posts query Herald runs (one keyset range over posts_calendar_idx, the first page of the window) through `pg`,
// each row put on its local date in `tz`, and the same JSON. Whatever Herald takes beyond this is its framework,
// its checks, the schedule automations' look-up and the cursor.
//
//   FLOOR_DATABASE_URL=… FLOOR_KEY=… FLOOR_WORKSPACE=… node bench/floor/calendar-server.ts
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';

const env = process.env as Record<string, string>;
const pool = new pg.Pool({ connectionString: env.FLOOR_DATABASE_URL, max: Number(env.FLOOR_POOL ?? 20) });
const workspaceId = env.FLOOR_WORKSPACE!;
const bearer = `Bearer ${env.FLOOR_KEY}`;

interface Row {
  id: string;
  brand_id: string;
  content: string;
  platforms: string[];
  status: string;
  starts_at: Date;
}

async function events(url: URL): Promise<{ status: number; body: string }> {
  const from = new Date(url.searchParams.get('from') ?? '');
  const to = new Date(url.searchParams.get('to') ?? '');
  const tz = url.searchParams.get('tz') ?? 'UTC';
  const limit = Number(url.searchParams.get('limit') ?? 100);
  const { rows } = await pool.query<Row>(
    `SELECT p.id, p.brand_id, left(p.content, 400) AS content, p.platforms, p.status,
            coalesce(p.schedule_at, p.published_at) AS starts_at
       FROM posts p
      WHERE p.workspace_id = $1 AND p.deleted_at IS NULL AND coalesce(p.schedule_at, p.published_at) IS NOT NULL
        AND coalesce(p.schedule_at, p.published_at) >= $2 AND coalesce(p.schedule_at, p.published_at) < $3
        AND p.status <> 'cancelled'
      ORDER BY coalesce(p.schedule_at, p.published_at), p.id
      LIMIT $4`,
    [workspaceId, from, to, limit + 1],
  );
  const day = new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' });
  const items = rows.slice(0, limit).map((r) => ({
    id: r.id,
    object: 'calendar_event',
    type: 'post',
    title: r.content.split('\n')[0]!.slice(0, 80),
    starts_at: r.starts_at.toISOString(),
    date: day.format(r.starts_at),
    status: r.status,
    platforms: r.platforms,
    brand_id: r.brand_id,
    post_id: r.id,
    automation_id: null,
    editable: r.status === 'scheduled',
  }));
  const data = { items, next_cursor: rows.length > limit ? 'next' : null, has_more: rows.length > limit, tz };
  return { status: 200, body: JSON.stringify({ success: true, data }) };
}

const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const url = new URL(request.url ?? '/', 'http://floor');
    const answer =
      request.headers.authorization !== bearer
        ? Promise.resolve({ status: 401, body: '{"success":false}' })
        : request.method === 'GET' && url.pathname === '/v1/calendar/events'
          ? events(url)
          : Promise.resolve({ status: 404, body: '{"success":false}' });
    answer.then(
      ({ status, body }) => response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(body),
      (error: Error) =>
        response
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ success: false, error: error.message })),
    );
  });
});
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`),
);
process.on('SIGTERM', () => server.close(() => void pool.end()));
