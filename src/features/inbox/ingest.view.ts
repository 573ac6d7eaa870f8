// The ingestion health a connection's GET shows (docs/inbox.md "Ingestion"): per stream the connection is polled
// on, when it was last read and read well, when it is read next, and the consecutive failures with the last error.
import { Type } from 'typebox';
import { NullableTimestamp, StringEnum, Timestamp } from '../../app/envelope.ts';
import { INBOX_STREAMS, type InboxSourceRow } from './inbox.types.ts';

export const InboxStreamHealth = Type.Object(
  {
    stream: StringEnum(INBOX_STREAMS),
    healthy: Type.Boolean({ description: 'False after a failed poll, until a poll succeeds again.' }),
    consecutive_failures: Type.Integer({ minimum: 0 }),
    last_error: Type.Union([Type.Object({ code: Type.String(), message: Type.String(), at: Timestamp }), Type.Null()]),
    last_polled_at: NullableTimestamp,
    last_ok_at: NullableTimestamp,
    next_poll_at: Timestamp,
    items_ingested: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);

export function renderHealth(sources: readonly InboxSourceRow[]): Record<string, unknown>[] {
  return sources.map((s) => ({
    stream: s.stream,
    healthy: s.consecutiveFailures === 0,
    consecutive_failures: s.consecutiveFailures,
    last_error: s.lastError,
    last_polled_at: s.lastPolledAt?.toISOString() ?? null,
    last_ok_at: s.lastOkAt?.toISOString() ?? null,
    next_poll_at: s.nextPollAt.toISOString(),
    items_ingested: Number(s.itemsIngested),
  }));
}
