// The floor for the analytics summary benchmark: a bare node:http server that answers GET /v1/analytics/summary
// the way one would without a rollup — one query through `pg` over the raw snapshot rows captured in the window,
// taking each target's last reading of each metric and summing them per metric. What Herald does beyond this is
// its framework, its checks, the previous period, the top posts and the breakdown.
//
//   FLOOR_DATABASE_URL=… FLOOR_KEY=… FLOOR_WORKSPACE=… node bench/floor/analytics-server.ts
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';

const env = process.env as Record<string, string>;
const pool = new pg.Pool({ connectionString: env.FLOOR_DATABASE_URL, max: Number(env.FLOOR_POOL ?? 20) });
const workspaceId = env.FLOOR_WORKSPACE!;
const bearer = `Bearer ${env.FLOOR_KEY}`;
const DAY_MS = 86_400_000;

async function summary(): Promise<{ status: number; body: string }> {
  const to = new Date();
  const from = new Date(to.getTime() - 30 * DAY_MS);
  const { rows } = await pool.query<{ metric: string; total: string; targets: number }>(
    `SELECT metric, sum(value) AS total, count(*)::int AS targets
       FROM (SELECT DISTINCT ON (target_id, metric) target_id, metric, value
               FROM metric_snapshots
              WHERE workspace_id = $1 AND captured_at >= $2 AND captured_at < $3 AND status = 'ok'
              ORDER BY target_id, metric, captured_at DESC) AS latest
      GROUP BY metric`,
    [workspaceId, from, to],
  );
  const metrics = Object.fromEntries(rows.map((r) => [r.metric, Number(r.total)]));
  return { status: 200, body: JSON.stringify({ success: true, data: { period: { from, to }, metrics } }) };
}

const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const url = new URL(request.url ?? '/', 'http://floor');
    const answer =
      request.headers.authorization !== bearer
        ? Promise.resolve({ status: 401, body: '{"success":false}' })
        : request.method === 'GET' && url.pathname === '/v1/analytics/summary'
          ? summary()
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
