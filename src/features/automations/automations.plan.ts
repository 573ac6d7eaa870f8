// What a run would post (docs/automations.md "The automation"): the destinations resolved to platforms and connections,
// then one post body per item (or per library text) written by the generator — a template, the library in turn, a
// model on a topic, or the item's article repurposed by the repurpose feature's fitting. Pure of writes: the run
// creates the posts, the preview only validates them.
import { Type } from 'typebox';
import type { Queryable } from '../../db/pool.ts';
import { PLATFORM_LIMITS } from '../../platforms/catalogue.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import type { AiService } from '../ai/ai.service.ts';
import { fillTemplate } from '../ai/deterministic/text.ts';
import { brandValues, defineTask } from '../ai/tasks.ts';
import type { BrandContext } from '../brands/context.ts';
import { findConnection } from '../connections/connections.repo.ts';
import type { CreatePostBody } from '../posts/posts.schemas.ts';
import { draftOutput, fitOutput, withUtm } from '../repurpose/repurpose.fit.ts';
import type { SourceItem } from './automations.feed.ts';
import type { AutomationRow } from './automations.repo.ts';

export const DEFAULT_ITEM_TEMPLATE = '{{item.title}}\n\n{{item.url}}';
/** An event's post has no title: its text (the item's summary) stands in, or a post without a link would be empty. */
export const DEFAULT_EVENT_TEMPLATE = '{{item.summary}}\n\n{{item.url}}';
/** `schedule` output without `schedule_expr`: posts go out this long after the run. */
export const DEFAULT_SCHEDULE_EXPR = 'PT10M';

/** A run that cannot plan its posts (a destination gone, no model for a topic): its code and message. */
export class PlanFailure extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'PlanFailure';
    this.code = code;
  }
}

export interface PlannedPost {
  item: SourceItem | null;
  body: CreatePostBody;
  imageUrl: string | null;
}

export interface Destinations {
  platforms: PlatformName[];
  connectionIds: string[];
  overrides: Map<PlatformName, string>;
}

/** The destinations as platforms and connections; a connection that is gone or not the brand's fails the run. */
export async function resolveDestinations(db: Queryable, automation: AutomationRow): Promise<Destinations> {
  const platforms: PlatformName[] = [];
  const connectionIds: string[] = [];
  const overrides = new Map<PlatformName, string>();
  for (const d of automation.destinations) {
    let platform = d.platform as PlatformName | undefined;
    if (d.connection_id) {
      const connection = await findConnection(db, automation.workspace_id, d.connection_id);
      if (!connection || connection.brand_id !== automation.brand_id)
        throw new PlanFailure(
          'destination_missing',
          `Connection ${d.connection_id} is no longer a connection of this automation's brand.`,
        );
      platform = connection.platform;
      connectionIds.push(connection.id);
    }
    if (!platform) continue;
    if (!platforms.includes(platform)) platforms.push(platform);
    if (d.content_override) overrides.set(platform, d.content_override);
  }
  return { platforms, connectionIds, overrides };
}

/** `PT2H`, `P1DT30M` → milliseconds (the schema admits days, hours and minutes). */
export function durationMs(expr: string): number {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?)?$/.exec(expr);
  if (!m) return 0;
  return ((Number(m[1] ?? 0) * 24 + Number(m[2] ?? 0)) * 60 + Number(m[3] ?? 0)) * 60_000;
}

/** A post on a topic by the configured model; its deterministic answer is the library text it was given. */
export const topicTask = defineTask({
  name: 'automation_topic',
  summary: 'A post on a topic for one platform, by a model; without one, the library text given as fallback.',
  instructions:
    'Write one social media post about the topic in the data block for the platform named there, in the brand voice, within that platform\'s length rules. Answer {"text": "..."}.',
  input: Type.Object(
    {
      topic: Type.String({ minLength: 1, maxLength: 500, description: 'The topic (the automation owner’s).' }),
      platform: Type.String({ maxLength: 40 }),
      variant: Type.Integer({ minimum: 0, maximum: 1000 }),
      fallback: Type.Optional(Type.String({ minLength: 1, maxLength: 10_000 })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({ text: Type.String({ minLength: 1, maxLength: 65_000 }) }, { additionalProperties: false }),
  engine: 'template',
  deterministic(inputs) {
    return { text: inputs.fallback ?? inputs.topic };
  },
  verify() {
    return [];
  },
});

interface Writer {
  automation: AutomationRow;
  brand: BrandContext;
  now: Date;
}

function localDate(now: Date, zone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: zone, dateStyle: 'short' }).format(now);
}

/** Fills a template for one platform: the item's link carries that platform's UTM parameters. */
function render(w: Writer, template: string, item: SourceItem | null, platform: PlatformName): string {
  const utm = w.automation.options.utm;
  let url = item?.url ?? undefined;
  if (url && utm && /^https?:/i.test(url))
    url = withUtm(url, {
      source: utm.source ?? platform,
      medium: utm.medium ?? 'social',
      campaign: utm.campaign ?? 'automation',
    });
  const zone = w.automation.source.timezone ?? 'UTC';
  const filled = fillTemplate(template, {
    ...brandValues(w.brand),
    'item.title': item?.title ?? undefined,
    'item.url': url,
    'item.summary': item?.summary ?? undefined,
    'item.author': item?.author ?? undefined,
    date: localDate(w.now, zone),
  }).text;
  const tags = w.automation.options.hashtags ?? [];
  return tags.length > 0 ? `${filled}\n\n${tags.join(' ')}` : filled;
}

function timing(automation: AutomationRow, now: Date): Pick<CreatePostBody, 'schedule_at' | 'publish_now'> {
  const { mode, schedule_expr: expr } = automation.output;
  if (mode === 'schedule' || (mode === 'approval' && expr))
    return { schedule_at: new Date(now.getTime() + durationMs(expr ?? DEFAULT_SCHEDULE_EXPR)).toISOString() };
  if (mode === 'publish_now' || mode === 'approval') return { publish_now: true };
  return {};
}

/** One post body from a per-platform text: the first platform's is the content, others differ by override. */
function bodyOf(d: Destinations, textFor: (p: PlatformName) => { text: string; thread?: string[] }): CreatePostBody {
  const first = textFor(d.platforms[0]!);
  const options: Record<string, { content?: string; thread?: string[] }> = {};
  for (const p of d.platforms) {
    const own = p === d.platforms[0] ? first : textFor(p);
    const entry: { content?: string; thread?: string[] } = {};
    if (own.text !== first.text) entry.content = own.text;
    if (own.thread && own.thread.length > 0) entry.thread = own.thread;
    if (Object.keys(entry).length > 0) options[p] = entry;
  }
  return {
    content: first.text,
    platforms: d.platforms,
    ...(d.connectionIds.length > 0 ? { connection_ids: d.connectionIds } : {}),
    ...(Object.keys(options).length > 0 ? { platform_options: options } : {}),
  } as CreatePostBody;
}

/** The repurpose feature's extractive draft, fitted to the platform with the item's link and hashtags. */
function repurposed(w: Writer, item: SourceItem, platform: PlatformName): { text: string; thread?: string[] } {
  const wanted = w.automation.generator.format === 'thread' ? 'thread' : 'post';
  const format = wanted === 'thread' && PLATFORM_LIMITS[platform].maxThreadParts > 1 ? 'thread' : 'post';
  const draft = draftOutput({ platform, format, title: item.title, text: item.text || item.title || '', variant: 0 });
  const utm = w.automation.options.utm;
  const link =
    item.url && utm
      ? withUtm(item.url, {
          source: utm.source ?? platform,
          medium: utm.medium ?? 'social',
          campaign: utm.campaign ?? 'automation',
        })
      : item.url;
  const fitted = fitOutput(platform, format, draft, {
    cta: null,
    link,
    hashtags: w.automation.options.hashtags ?? [],
    brandSuffix: '',
  });
  return { text: fitted.parts[0] ?? '', thread: fitted.parts.slice(1) };
}

export interface PlanInput {
  automation: AutomationRow;
  brand: BrandContext;
  destinations: Destinations;
  /** Feed or event items, oldest first; empty for a scheduled run. */
  items: SourceItem[];
  now: Date;
}

/** The posts of one run and the library cursor after it. */
export async function planPosts(ai: AiService, input: PlanInput): Promise<{ posts: PlannedPost[]; cursor: number }> {
  const { automation, destinations: d } = input;
  const w: Writer = { automation, brand: input.brand, now: input.now };
  const g = automation.generator;
  const when = timing(automation, input.now);
  const override = (p: PlatformName, item: SourceItem | null) => {
    const template = d.overrides.get(p);
    return template ? { text: render(w, template, item, p) } : undefined;
  };
  const image = (item: SourceItem | null) => (automation.options.use_item_image ? (item?.image ?? null) : null);
  if (d.platforms.length === 0) throw new PlanFailure('destination_missing', 'The automation has no destination.');

  if (g.type === 'template' || g.type === 'repurpose') {
    const defaultTemplate = automation.source.type === 'event' ? DEFAULT_EVENT_TEMPLATE : DEFAULT_ITEM_TEMPLATE;
    const items: (SourceItem | null)[] = input.items.length > 0 ? input.items : [null];
    const posts = items.map((item) => {
      if (g.type === 'repurpose' && !item)
        throw new PlanFailure('repurpose_needs_item', 'A repurpose generator needs a feed item or an event’s post.');
      const body = bodyOf(
        d,
        (p) =>
          override(p, item) ??
          (g.type === 'repurpose'
            ? repurposed(w, item!, p)
            : { text: render(w, g.template ?? defaultTemplate, item, p) }),
      );
      return { item, body: { ...body, ...when }, imageUrl: image(item) };
    });
    return { posts, cursor: automation.cursor };
  }

  // library and llm_topic: `count` texts per run, the library taken in turn from the cursor.
  const library = g.items ?? [];
  const count = g.count ?? 1;
  const posts: PlannedPost[] = [];
  for (let k = 0; k < count; k++) {
    const fallback = library.length > 0 ? library[(automation.cursor + k) % library.length] : undefined;
    let text: string;
    if (g.type === 'llm_topic' && ai.provider !== 'deterministic') {
      const answer = await ai.generate<{ text: string }>({
        task: topicTask,
        brand: input.brand,
        workspaceId: automation.workspace_id,
        onLimit: 'deterministic',
        inputs: {
          topic: g.topic ?? '',
          platform: d.platforms[0]!,
          variant: automation.cursor + k,
          ...(fallback ? { fallback } : {}),
        },
      });
      if (answer.generated_by.engine !== 'llm' && !fallback)
        throw new PlanFailure(
          'llm_unavailable',
          'The text-generation provider did not answer and the automation has no library items to fall back on.',
        );
      text = answer.output.text;
    } else if (fallback !== undefined) {
      text = fallback;
    } else {
      throw new PlanFailure(
        'llm_topic_offline',
        'An llm_topic generator needs a text-generation provider (HERALD_AI_PROVIDER); offline it needs generator.items to post from.',
      );
    }
    posts.push({
      item: null,
      body: { ...bodyOf(d, (p) => override(p, null) ?? { text: render(w, text, null, p) }), ...when },
      imageUrl: null,
    });
  }
  return { posts, cursor: library.length > 0 ? (automation.cursor + count) % library.length : automation.cursor };
}
