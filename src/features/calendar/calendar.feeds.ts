// ICS feeds of the calendar (docs/calendar.md "ICS feeds"): a secret URL, `/calendar/{token}.ics`, that Google,
// Outlook or Apple calendars subscribe to without a key. The token is the capability: only its SHA-256 is stored,
// the URL is shown once, and revoking the feed makes the URL a 404 at once. A feed shows what its creator chose
// (brands, platforms, kinds of event), never more than the creating key could read.
import { randomBytes } from 'node:crypto';
import type { ServiceContext } from '../../app/context.ts';
import { notFound, validationFailed } from '../../app/errors.ts';
import type { Queryable } from '../../db/pool.ts';
import type { Clock } from '../../lib/clock.ts';
import { sha256 } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import { brandScope } from '../analytics/scope.ts';
import { findBrand } from '../workspaces/workspaces.repo.ts';
import * as repo from './calendar.repo.ts';
import type { FeedRow } from './calendar.repo.ts';
import type { CalendarItem } from './calendar.events.ts';
import { renderIcs, type IcsEvent } from './calendar.ics.ts';
import { CALENDAR_EVENT_TYPES, CALENDAR_FEEDS_MAX, type CreateFeedBody } from './calendar.schemas.ts';
import { collectItems } from './calendar.items.ts';

const DAY_MS = 86_400_000;
/** What a feed covers: the last month (what went out) and the next quarter (what is planned). */
export const ICS_PAST_DAYS = 31;
export const ICS_FUTURE_DAYS = 92;
/** Events one feed answers at most, earliest first: calendar apps time out on very large feeds. */
export const ICS_MAX_EVENTS = 2000;
const TOKEN_PREFIX = 'hcal_';
const TOKEN = /^hcal_[A-Za-z0-9_-]{32}$/;

export interface FeedsDeps {
  clock: Clock;
  /** Herald's public origin: the feed's URL, and the host part of every event's UID. */
  publicUrl: string;
}

export function feedView(row: FeedRow) {
  return {
    id: row.id,
    object: 'calendar_feed' as const,
    name: row.name,
    brand_ids: row.brand_ids,
    platforms: row.platforms,
    types: row.types,
    token_last4: row.token_last4,
    created_at: row.created_at.toISOString(),
    last_read_at: row.last_read_at?.toISOString() ?? null,
    revoked_at: row.revoked_at?.toISOString() ?? null,
  };
}

function describe(item: CalendarItem): string {
  const platforms = item.platforms.join(', ') || 'none';
  return item.type === 'post'
    ? `Status: ${item.status}\nPlatforms: ${platforms}\nPost: ${item.id}\n\n${item.content}`
    : `Planned run of the automation "${item.title}"\nPlatforms: ${platforms}\nAutomation: ${item.automationId}`;
}

function icsStatus(item: CalendarItem): IcsEvent['status'] {
  if (item.status === 'cancelled') return 'CANCELLED';
  return item.status === 'planned' || item.status === 'pending_approval' || item.status === 'draft'
    ? 'TENTATIVE'
    : 'CONFIRMED';
}

export function createFeedsService(deps: FeedsDeps) {
  const host = new URL(deps.publicUrl).host;
  return {
    async create(ctx: ServiceContext, body: CreateFeedBody) {
      const brandIds = brandScope(ctx, body.brand_id);
      if (body.brand_id !== undefined && !(await findBrand(ctx.db, ctx.workspaceId, body.brand_id)))
        throw notFound('brand');
      if ((await repo.countActiveFeeds(ctx.db, ctx.workspaceId)) >= CALENDAR_FEEDS_MAX)
        throw validationFailed([
          {
            platform: null,
            path: '/name',
            rule: 'feeds_limit',
            message: `This workspace has ${CALENDAR_FEEDS_MAX} active feeds, the most it may hold; revoke one first.`,
          },
        ]);
      const token = `${TOKEN_PREFIX}${randomBytes(24).toString('base64url')}`;
      const row = await repo.insertFeed(ctx.db, ctx.workspaceId, {
        id: newId('calf'),
        name: body.name,
        tokenHash: sha256(token),
        token_last4: token.slice(-4),
        brand_ids: brandIds ? [...brandIds] : null,
        platforms: body.platforms ?? null,
        types: body.types ?? [...CALENDAR_EVENT_TYPES],
        created_by: ctx.userId,
      });
      return { feed: feedView(row), url: `${deps.publicUrl.replace(/\/$/, '')}/calendar/${token}.ics` };
    },

    async list(ctx: ServiceContext) {
      const rows = await repo.listFeeds(ctx.db, ctx.workspaceId, ctx.allowedBrandIds);
      return { items: rows.map(feedView), next_cursor: null, has_more: false };
    },

    async get(ctx: ServiceContext, id: string) {
      const row = await repo.findFeed(ctx.db, ctx.workspaceId, id, ctx.allowedBrandIds);
      if (!row) throw notFound('calendar feed');
      return feedView(row);
    },

    async revoke(ctx: ServiceContext, id: string) {
      const row = await repo.revokeFeed(ctx.db, ctx.workspaceId, id, ctx.allowedBrandIds);
      if (!row) throw notFound('calendar feed');
      return feedView(row);
    },

    /** The feed's calendar as RFC 5545 text; null for a token that names no active feed. */
    async ics(db: Queryable, token: string): Promise<string | null> {
      if (!TOKEN.test(token)) return null;
      const feed = await repo.findFeedByTokenHash(db, sha256(token));
      if (!feed) return null;
      const now = deps.clock.now();
      const items = await collectItems(
        db,
        feed.workspace_id,
        {
          from: new Date(now.getTime() - ICS_PAST_DAYS * DAY_MS),
          to: new Date(now.getTime() + ICS_FUTURE_DAYS * DAY_MS),
          brandIds: feed.brand_ids,
          statuses: null,
          types: feed.types,
          platforms: feed.platforms,
        },
        null,
        ICS_MAX_EVENTS,
        now,
      );
      await repo.touchFeed(db, feed.workspace_id, feed.id);
      return renderIcs({
        name: feed.name,
        prodId: '-//Herald//Calendar feed//EN',
        events: items.map((item) => ({
          uid: `${item.id}@${host}`,
          start: item.at,
          modified: item.modified,
          summary: item.title || '(no text)',
          description: describe(item),
          categories: item.platforms,
          status: icsStatus(item),
        })),
      });
    },
  };
}

export type FeedsService = ReturnType<typeof createFeedsService>;
