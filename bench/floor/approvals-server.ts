// The floor for the approvals list benchmark: a bare node:http server that answers
// GET /v1/approvals/items?status=pending&limit=50 with the same keyset query Herald runs, through `pg`, rendered
// with the same view function. What Herald takes beyond this is its framework, auth, checks and cursor.
//
//   FLOOR_DATABASE_URL=… FLOOR_KEY=… FLOOR_WORKSPACE=… node bench/floor/approvals-server.ts
import pg from 'pg';
import type { ItemRow } from '../../src/features/approvals/approvals.repo.ts';
import { renderItem } from '../../src/features/approvals/approvals.view.ts';
import { serveFloor } from './serve.ts';

const env = process.env as Record<string, string>;
const pool = new pg.Pool({ connectionString: env.FLOOR_DATABASE_URL, max: Number(env.FLOOR_POOL ?? 20) });
const workspaceId = env.FLOOR_WORKSPACE!;
const bearer = `Bearer ${env.FLOOR_KEY}`;

async function pending(limit: number): Promise<{ status: number; body: string }> {
  const { rows } = await pool.query<ItemRow>(
    `SELECT id, workspace_id, brand_id, batch_id, kind, subject_type, subject_id, action_type, action_at, source_type,
            source_id, platforms, preview, version, status, on_expire, requested_by, requested_at, decided_by,
            decided_at, reason, expires_at
       FROM approval_items WHERE workspace_id = $1 AND status = $2
      ORDER BY requested_at DESC, id DESC LIMIT $3`,
    [workspaceId, 'pending', limit + 1],
  );
  const page = rows.slice(0, limit);
  const data = { items: page.map((r) => renderItem(r)), next_cursor: null, has_more: rows.length > limit };
  return { status: 200, body: JSON.stringify({ success: true, data, request_id: 'req_floor' }) };
}

serveFloor(
  bearer,
  ({ method, url }) =>
    method === 'GET' && url.pathname === '/v1/approvals/items'
      ? pending(Number(url.searchParams.get('limit') ?? 20))
      : undefined,
  () => void pool.end(),
);
