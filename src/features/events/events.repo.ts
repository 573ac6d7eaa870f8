// Reads of the events outbox for the events API (the table's writer is outbox.ts). Every function takes the
// workspace id.
import type { Queryable } from '../../db/pool.ts';
import type { CursorPosition } from '../../app/cursor.ts';

export interface StoredEvent {
  id: string;
  type: string;
  created_at: Date;
  workspace_id: string;
  brand_id: string | null;
  data: unknown;
}

export interface EventFilters {
  types?: readonly string[];
  createdFrom?: Date;
  createdTo?: Date;
  /**
   * A key limited to brands (or a request naming one): only events about these brands, and events of `openTypes`,
   * whose resources every key of the workspace may read.
   */
  brands?: { ids: readonly string[]; openTypes: readonly string[] };
}

const COLUMNS = 'id, type, created_at, workspace_id, brand_id, data';

function visibility(filters: EventFilters, param: (value: unknown) => string): string[] {
  const where: string[] = [];
  if (filters.types) where.push(`type = ANY(${param(filters.types)}::text[])`);
  if (filters.createdFrom) where.push(`created_at >= ${param(filters.createdFrom)}`);
  if (filters.createdTo) where.push(`created_at < ${param(filters.createdTo)}`);
  if (filters.brands) {
    where.push(
      `(brand_id = ANY(${param(filters.brands.ids)}::text[]) OR type = ANY(${param(filters.brands.openTypes)}::text[]))`,
    );
  }
  return where;
}

/** One page, newest first; up to `limit` rows (the caller asks for one more to see whether there is a next page). */
export async function listEvents(
  db: Queryable,
  workspaceId: string,
  filters: EventFilters,
  after: CursorPosition | undefined,
  limit: number,
): Promise<StoredEvent[]> {
  const values: unknown[] = [workspaceId];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const where = ['workspace_id = $1', ...visibility(filters, param)];
  if (after) where.push(`(created_at, id) < (${param(after.value)}::timestamptz, ${param(after.id)})`);
  const { rows } = await db.query<StoredEvent>(
    `SELECT ${COLUMNS} FROM events WHERE ${where.join(' AND ')}
      ORDER BY created_at DESC, id DESC LIMIT ${param(limit)}`,
    values,
  );
  return rows;
}

export async function findEvent(
  db: Queryable,
  workspaceId: string,
  id: string,
  filters: EventFilters,
): Promise<StoredEvent | undefined> {
  const values: unknown[] = [workspaceId, id];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const where = ['workspace_id = $1', 'id = $2', ...visibility(filters, param)];
  const { rows } = await db.query<StoredEvent>(`SELECT ${COLUMNS} FROM events WHERE ${where.join(' AND ')}`, values);
  return rows[0];
}
