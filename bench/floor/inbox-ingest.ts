// The floor of the inbox ingestion benchmark: what ingesting needs and nothing more — for each connection, the
// same Mastodon notification pages Herald's adapter reads (`GET /api/v1/notifications?types[]=mention`, walked
// with `min_id`, 40 a page), each page's rows inserted with one INSERT … SELECT FROM unnest … ON CONFLICT DO
// NOTHING. No sources, cursors, health, post linking or automations; the same connection concurrency as Herald.
import type pg from 'pg';
import { newId } from '../../src/lib/ids.ts';

export interface FloorConnection {
  id: string;
  workspaceId: string;
  brandId: string;
  baseUrl: string;
  token: string;
}

interface Note {
  id: string;
  type: string;
  account: { id: string; acct: string; display_name: string; avatar: string };
  status: {
    id: string;
    in_reply_to_id: string | null;
    visibility: string;
    content: string;
    created_at: string;
    url: string;
  };
}

async function ingestOne(pool: pg.Pool, c: FloorConnection): Promise<number> {
  let minId = '0';
  let total = 0;
  for (;;) {
    const url = new URL(`${c.baseUrl}/api/v1/notifications`);
    url.searchParams.append('types[]', 'mention');
    url.searchParams.set('limit', '40');
    url.searchParams.set('min_id', minId);
    const res = await fetch(url, { headers: { authorization: `Bearer ${c.token}` } });
    if (!res.ok) throw new Error(`floor: ${res.status} ${await res.text()}`);
    const page = (await res.json()) as Note[];
    if (page.length === 0) return total;
    const rows = page.filter((n) => n.type === 'mention');
    const now = Date.now();
    await pool.query(
      `INSERT INTO inbox_items (id, workspace_id, connection_id, brand_id, platform, kind, thread_id, parent_id,
         platform_item_id, author, text, permalink, received_at)
       SELECT id, $1, $2, $3, 'mastodon', kind, thread, parent, item, author, text, url, at
         FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::jsonb[], $10::text[], $11::text[],
                     $12::timestamptz[]) AS r (id, kind, thread, parent, item, author, text, url, at)
       ON CONFLICT (connection_id, platform_item_id) DO NOTHING`,
      [
        c.workspaceId,
        c.id,
        c.brandId,
        rows.map(() => newId('inb', now)),
        rows.map((n) => (n.status.visibility === 'direct' ? 'dm' : 'mention')),
        rows.map((n) => n.status.in_reply_to_id ?? n.status.id),
        rows.map((n) => n.status.in_reply_to_id),
        rows.map((n) => n.status.id),
        rows.map((n) =>
          JSON.stringify({
            platform_user_id: n.account.id,
            username: n.account.acct,
            display_name: n.account.display_name,
            avatar_url: n.account.avatar,
          }),
        ),
        rows.map((n) => n.status.content.replace(/<[^>]+>/g, '')),
        rows.map((n) => n.status.url),
        rows.map((n) => n.status.created_at),
      ],
    );
    total += rows.length;
    minId = page[0]!.id;
    if (page.length < 40) return total;
  }
}

/** Ingests every connection's notifications, `concurrency` connections at a time; returns the rows read. */
export async function floorIngest(pool: pg.Pool, connections: FloorConnection[], concurrency: number): Promise<number> {
  const queue = [...connections];
  let total = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let c = queue.shift(); c; c = queue.shift()) {
        const read = await ingestOne(pool, c);
        total += read;
      }
    }),
  );
  return total;
}
