// The dry run (POST /v1/automations/{id}/preview, docs/automations.md "Preview"): the next run's posts rendered
// exactly as the run would make them and checked by the posts validator, with nothing written — no run, no seen
// item, no post, no media, no cursor moved. A feed is fetched (read-only); a model is asked for an llm_topic.
import type { ServiceContext } from '../../app/context.ts';
import type { Clock } from '../../lib/clock.ts';
import type { AiService } from '../ai/ai.service.ts';
import type { PostsService } from '../posts/posts.service.ts';
import { findBrandRow } from '../brands/brands.repo.ts';
import { compileBrandContext } from '../brands/context.ts';
import { FeedFailure, type FeedCaps, type SourceItem } from './automations.feed.ts';
import { eventItem, feedItems } from './automations.items.ts';
import { PlanFailure, planPosts, resolveDestinations } from './automations.plan.ts';
import * as repo from './automations.repo.ts';
import type { AutomationRow } from './automations.repo.ts';
import { nextOccurrence } from './schedule.ts';

/** What the preview needs of the service's dependencies (the service passes its own). */
interface Deps {
  clock: Clock;
  ai: AiService;
  posts: PostsService;
  caps: FeedCaps;
}

function slotOf(row: AutomationRow, now: Date): string | null {
  if (row.next_run_at) return row.next_run_at.toISOString();
  if (row.source.type === 'schedule')
    return nextOccurrence({ rrule: row.source.rrule!, timezone: row.source.timezone! }, now)?.toISOString() ?? null;
  return row.source.type === 'rss' ? now.toISOString() : null;
}

export async function previewAutomation(deps: Deps, ctx: ServiceContext, row: AutomationRow) {
  const now = deps.clock.now();
  const base = { object: 'automation_preview' as const, automation_id: row.id, slot: slotOf(row, now) };
  const empty = (error: { code: string; message: string } | null) => ({
    ...base,
    items_seen: 0,
    items_new: 0,
    posts: [],
    error,
  });
  const brandRow = await findBrandRow(ctx.db, ctx.workspaceId, row.brand_id);
  if (!brandRow) return empty({ code: 'brand_missing', message: 'The automation’s brand was deleted.' });
  let items: SourceItem[] = [];
  let seen = 0;
  try {
    if (row.source.type === 'rss') {
      const found = await feedItems(ctx.db, deps.caps, row);
      items = found.items;
      seen = found.seen;
    } else if (row.source.type === 'event') {
      const next = await repo.eventsAfter(ctx.db, ctx.workspaceId, row.source.event!, row.event_cursor ?? '', now, 1);
      const item = next[0] ? await eventItem(ctx.db, ctx.workspaceId, next[0].id) : undefined;
      if (!item) return empty(null);
      items = [item];
      seen = 1;
    }
    if (row.source.type !== 'schedule' && items.length === 0) return { ...empty(null), items_seen: seen };
    const destinations = await resolveDestinations(ctx.db, row);
    const plan = await planPosts(deps.ai, {
      automation: row,
      brand: compileBrandContext(brandRow),
      destinations,
      items,
      now,
    });
    const posts = [];
    for (const p of plan.posts) {
      const checked = await deps.posts.validate(ctx, p.body, p.imageUrl ? 1 : 0);
      posts.push({
        item: p.item ? { key: p.item.key, title: p.item.title, url: p.item.url } : null,
        content: p.body.content,
        platforms: p.body.platforms,
        platform_options: (p.body.platform_options ?? {}) as Record<string, unknown>,
        connection_ids: p.body.connection_ids ?? [],
        schedule_at: p.body.schedule_at ?? null,
        publish_now: p.body.publish_now === true,
        image_url: p.imageUrl,
        valid: checked.valid,
        issues: checked.issues.map((i) => ({
          platform: i.platform ?? null,
          rule: i.rule,
          message: i.message,
          ...(i.path ? { path: i.path } : {}),
        })),
      });
    }
    return {
      ...base,
      items_seen: row.source.type === 'schedule' ? plan.posts.length : seen,
      items_new: items.length || plan.posts.length,
      posts,
      error: null,
    };
  } catch (error) {
    if (error instanceof FeedFailure || error instanceof PlanFailure)
      return { ...empty({ code: error.code, message: error.message }), items_seen: seen };
    throw error;
  }
}
