// The floor for the inbox list benchmark: a bare node:http server that answers GET /v1/inbox?status=open&limit=50
// with the same keyset query Herald runs and the same three queries for the page's drafts, replies and paused
// threads, through `pg`, rendered with the same view function. What Herald takes beyond this is its framework,
// auth, checks and cursor.
//
//   FLOOR_DATABASE_URL=… FLOOR_KEY=… FLOOR_WORKSPACE=… node bench/floor/inbox-list-server.ts
import pg from 'pg';
import {
  findDrafts,
  ITEM_COLUMNS,
  responsesOf,
  takenOverThreads,
  threadKey,
} from '../../src/features/inbox/inbox.repo.ts';
import type { InboxItemRow } from '../../src/features/inbox/inbox.types.ts';
import { renderItem } from '../../src/features/inbox/inbox.view.ts';
import { serveFloor } from './serve.ts';

const env = process.env as Record<string, string>;
const pool = new pg.Pool({ connectionString: env.FLOOR_DATABASE_URL, max: Number(env.FLOOR_POOL ?? 20) });
const workspaceId = env.FLOOR_WORKSPACE!;
const bearer = `Bearer ${env.FLOOR_KEY}`;

async function list(status: string, limit: number): Promise<{ status: number; body: string }> {
  const { rows } = await pool.query<InboxItemRow>(
    `SELECT ${ITEM_COLUMNS} FROM inbox_items i WHERE i.workspace_id = $1 AND i.status = $2
      ORDER BY i.received_at DESC, i.id DESC LIMIT $3`,
    [workspaceId, status, limit + 1],
  );
  const page = rows.slice(0, limit);
  const ids = page.map((r) => r.id);
  const drafts = await findDrafts(pool, workspaceId, ids);
  const responses = await responsesOf(pool, workspaceId, ids);
  const paused = await takenOverThreads(pool, workspaceId, page);
  const items = page.map((r) =>
    renderItem(r, { draft: drafts.get(r.id), responses: responses.get(r.id), paused: paused.has(threadKey(r)) }),
  );
  const data = { items, next_cursor: null, has_more: rows.length > limit };
  return { status: 200, body: JSON.stringify({ success: true, data, request_id: 'req_floor' }) };
}

serveFloor(
  bearer,
  ({ method, url }) =>
    method === 'GET' && url.pathname === '/v1/inbox'
      ? list(url.searchParams.get('status') ?? 'open', Number(url.searchParams.get('limit') ?? 20))
      : undefined,
  () => void pool.end(),
);
