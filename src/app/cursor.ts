// Opaque keyset cursors (docs/api.md "Paging"): the position after the last item of a page, bound to the sort and
// filters it was issued for, so reusing it with other filters is a clear 400 rather than a silent wrong page.
import { sha256 } from '../lib/crypto.ts';
import { AppError } from './errors.ts';

export interface CursorPosition {
  /** The sort key of the last item (an ISO timestamp), or null when it has none (unscheduled posts). */
  value: string | null;
  id: string;
}

function bindingOf(binding: unknown): string {
  return sha256(JSON.stringify(binding)).subarray(0, 12).toString('base64url');
}

export function encodeCursor(position: CursorPosition, binding: unknown): string {
  return Buffer.from(JSON.stringify({ v: position.value, i: position.id, b: bindingOf(binding) })).toString(
    'base64url',
  );
}

/** Decodes a cursor issued for the same `binding`; anything else is a 400 PUBLIC_API_QUERY_INVALID. */
export function decodeCursor(cursor: string, binding: unknown): CursorPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const c = parsed as { v?: unknown; i?: unknown; b?: unknown } | undefined;
  if (
    !c ||
    typeof c !== 'object' ||
    typeof c.i !== 'string' ||
    (c.v !== null && typeof c.v !== 'string') ||
    typeof c.b !== 'string'
  ) {
    throw new AppError('PUBLIC_API_QUERY_INVALID', 'The cursor is not one this API issued.', {
      details: [{ path: '/cursor', message: 'is malformed' }],
    });
  }
  if (c.b !== bindingOf(binding)) {
    throw new AppError(
      'PUBLIC_API_QUERY_INVALID',
      'This cursor was issued for other filters or another sort; start again without a cursor.',
      { details: [{ path: '/cursor', message: 'does not match the filters' }] },
    );
  }
  if (typeof c.v === 'string' && Number.isNaN(Date.parse(c.v))) {
    throw new AppError('PUBLIC_API_QUERY_INVALID', 'The cursor is not one this API issued.', {
      details: [{ path: '/cursor', message: 'is malformed' }],
    });
  }
  return { value: c.v as string | null, id: c.i };
}

/**
 * One page of a keyset list whose rows were read with `limit + 1` (the extra row only says that more follow): the
 * page's rows, and the cursor after its last row, bound to `binding`.
 */
export function keysetPage<R extends { id: string }>(
  rows: readonly R[],
  limit: number,
  binding: unknown,
  sortKey: (row: R) => Date | null,
): { page: R[]; next_cursor: string | null; has_more: boolean } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const hasMore = rows.length > limit && last !== undefined;
  const value = last ? sortKey(last) : null;
  return {
    page,
    next_cursor: hasMore ? encodeCursor({ value: value ? value.toISOString() : null, id: last.id }, binding) : null,
    has_more: hasMore,
  };
}
