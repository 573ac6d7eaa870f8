// SQL for OAuth clients (registered dynamically or described by a Client ID Metadata Document).
import type { Queryable } from '../../db/pool.ts';

export type ClientAuthMethod = 'none' | 'client_secret_post' | 'client_secret_basic';

export interface ClientRow {
  id: string;
  kind: 'dcr' | 'cimd';
  name: string;
  redirect_uris: string[];
  grant_types: string[];
  token_endpoint_auth_method: ClientAuthMethod;
  secret_hash: Buffer | null;
  metadata: Record<string, unknown>;
  created_at: Date;
  fetched_at: Date | null;
}

const COLUMNS =
  'id, kind, name, redirect_uris, grant_types, token_endpoint_auth_method, secret_hash, metadata, created_at, fetched_at';

export async function insertClient(
  db: Queryable,
  c: Omit<ClientRow, 'created_at' | 'fetched_at'> & { fetchedAt?: Date | null },
): Promise<ClientRow> {
  const { rows } = await db.query<ClientRow>(
    `INSERT INTO oauth_clients (id, kind, name, redirect_uris, grant_types, token_endpoint_auth_method, secret_hash, metadata, fetched_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, redirect_uris = EXCLUDED.redirect_uris, grant_types = EXCLUDED.grant_types,
       token_endpoint_auth_method = EXCLUDED.token_endpoint_auth_method, metadata = EXCLUDED.metadata, fetched_at = EXCLUDED.fetched_at
     RETURNING ${COLUMNS}`,
    [
      c.id,
      c.kind,
      c.name,
      c.redirect_uris,
      c.grant_types,
      c.token_endpoint_auth_method,
      c.secret_hash,
      JSON.stringify(c.metadata),
      c.fetchedAt ?? null,
    ],
  );
  return rows[0]!;
}

export async function findClient(db: Queryable, id: string): Promise<ClientRow | undefined> {
  const { rows } = await db.query<ClientRow>(`SELECT ${COLUMNS} FROM oauth_clients WHERE id = $1`, [id]);
  return rows[0];
}

/** Housekeeping: registrations that never led to a grant and are older than `days`. */
export async function deleteUnusedClients(db: Queryable, days: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM oauth_clients c
      WHERE c.created_at < now() - make_interval(days => $1)
        AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = c.id)
        AND NOT EXISTS (SELECT 1 FROM oauth_codes o WHERE o.client_id = c.id)`,
    [days],
  );
  return rowCount ?? 0;
}
