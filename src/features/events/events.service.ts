// The events API (docs/api.md "Events API"): the events of the outbox, read back by clients that missed webhook
// deliveries or cannot receive them. The same events, with the same payloads, as the webhooks; kept at least 30 days
// (HERALD_EVENT_RETENTION_DAYS). A key limited to brands sees only its brands' events.
import type { ServiceContext } from '../../app/context.ts';
import { decodeCursor, keysetPage } from '../../app/cursor.ts';
import { AppError, notFound } from '../../app/errors.ts';
import * as repo from './events.repo.ts';
import type { ListEventsQuery } from './events.schemas.ts';
import type { EventType } from './outbox.ts';

/**
 * Event types about resources every key of the workspace reads, whatever brands it is limited to: media belong to
 * the workspace, not to a brand. Events about nothing brand-scoped otherwise (webhook endpoints, tests) are for keys
 * that reach every brand, as the webhooks API is.
 */
const OPEN_TYPES: readonly EventType[] = ['media.ready', 'media.failed'];

function time(value: string | undefined, path: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new AppError('PUBLIC_API_QUERY_INVALID', `${path.slice(1)} is not a valid time.`, {
      details: [{ path, message: 'is not a valid time' }],
    });
  return date;
}

/** The brands whose events the caller sees: the header's brand, else the key's brands; null: every event. */
function brandScope(ctx: ServiceContext): repo.EventFilters['brands'] {
  const ids = ctx.brandFromHeader && ctx.brandId !== null ? [ctx.brandId] : ctx.allowedBrandIds;
  return ids ? { ids, openTypes: OPEN_TYPES } : undefined;
}

export function eventJson(e: repo.StoredEvent): Record<string, unknown> {
  return {
    id: e.id,
    object: 'event',
    type: e.type,
    created_at: e.created_at.toISOString(),
    workspace_id: e.workspace_id,
    data: e.data,
  };
}

export function createEventsService() {
  return {
    async list(ctx: ServiceContext, query: ListEventsQuery) {
      const limit = query.limit ?? 20;
      const types = query.type ? [...new Set(query.type)].sort() : undefined;
      const filters: repo.EventFilters = {
        types,
        createdFrom: time(query.created_from, '/created_from'),
        createdTo: time(query.created_to, '/created_to'),
        brands: brandScope(ctx),
      };
      const binding = { list: 'events', ...filters };
      const after = query.cursor ? decodeCursor(query.cursor, binding) : undefined;
      const rows = await repo.listEvents(ctx.db, ctx.workspaceId, filters, after, limit + 1);
      const { page, ...more } = keysetPage(rows, limit, binding, (row) => row.created_at);
      return { items: page.map(eventJson), ...more };
    },

    async get(ctx: ServiceContext, id: string) {
      const event = await repo.findEvent(ctx.db, ctx.workspaceId, id, { brands: brandScope(ctx) });
      if (!event) throw notFound('event');
      return eventJson(event);
    },
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
