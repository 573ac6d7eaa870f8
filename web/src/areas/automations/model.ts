// The automation form's state and its translation to and from the API's body (docs/automations.md). Fields that
// belong to another source or generator type are left out of the body, because the server refuses them
// (`source_field_unexpected`), and `backfill` is sent only for feeds (`option_needs_feed`).
import type { components } from '@herald/client';

export type Automation = components['schemas']['Automation'];
export type CreateBody = components['schemas']['CreateAutomationRequest'];
export type SourceType = Automation['source']['type'];
export type GeneratorType = Automation['generator']['type'];
export type EventType = NonNullable<Automation['source']['event']>;
export type OutputMode = Automation['output']['mode'];
export type PlatformId = NonNullable<Automation['destinations'][number]['platform']>;

export const SOURCE_TYPES: Array<[SourceType, string]> = [
  ['schedule', 'On a schedule (RRULE)'],
  ['rss', 'From an RSS or Atom feed'],
  ['event', 'When something happens in the workspace'],
];
export const EVENTS: EventType[] = ['post.published', 'post.partially_published', 'post.scheduled'];
/** Which generators each source takes (the server's `generator_source_mismatch` rule). */
export const GENERATORS_OF: Record<SourceType, Array<[GeneratorType, string]>> = {
  schedule: [
    ['template', 'A template'],
    ['library', 'A library of texts, in turn'],
    ['llm_topic', 'A model writing on a topic'],
  ],
  rss: [
    ['template', 'A template'],
    ['repurpose', 'The item repurposed per platform'],
  ],
  event: [
    ['template', 'A template'],
    ['repurpose', 'The post repurposed per platform'],
  ],
};
export const OUTPUT_MODES: Array<[OutputMode, string]> = [
  ['draft', 'Drafts'],
  ['approval', 'Held for approval'],
  ['schedule', 'Scheduled after the run'],
  ['publish_now', 'Published at once'],
];
export interface DestinationState {
  kind: 'connection' | 'platform';
  connectionId: string;
  platform: PlatformId;
  override: string;
}

export interface FormState {
  name: string;
  brandId: string;
  status: 'active' | 'paused';
  sourceType: SourceType;
  rrule: string;
  timezone: string;
  feedUrl: string;
  event: EventType;
  generatorType: GeneratorType;
  template: string;
  /** Library texts, separated by a blank line. */
  items: string;
  topic: string;
  format: 'post' | 'thread';
  count: string;
  destinations: DestinationState[];
  outputMode: OutputMode;
  scheduleExpr: string;
  utm: boolean;
  utmSource: string;
  utmMedium: string;
  utmCampaign: string;
  useItemImage: boolean;
  hashtags: string;
  maxItems: string;
  backfill: boolean;
}

export const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

export function emptyForm(brandId: string): FormState {
  return {
    name: '',
    brandId,
    status: 'active',
    sourceType: 'schedule',
    rrule: 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0',
    timezone: ZONE,
    feedUrl: '',
    event: 'post.published',
    generatorType: 'template',
    template: '',
    items: '',
    topic: '',
    format: 'post',
    count: '',
    destinations: [],
    outputMode: 'draft',
    scheduleExpr: '',
    utm: false,
    utmSource: '',
    utmMedium: '',
    utmCampaign: '',
    useItemImage: false,
    hashtags: '',
    maxItems: '5',
    backfill: false,
  };
}

export function formFrom(a: Automation): FormState {
  const g = a.generator;
  return {
    ...emptyForm(a.brand_id),
    name: a.name,
    status: a.status === 'paused' ? 'paused' : 'active',
    sourceType: a.source.type,
    rrule: a.source.rrule ?? '',
    timezone: a.source.timezone ?? ZONE,
    feedUrl: a.source.feed_url ?? '',
    event: a.source.event ?? 'post.published',
    generatorType: g.type,
    template: g.template ?? '',
    items: (g.items ?? []).join('\n\n'),
    topic: g.topic ?? '',
    format: g.format ?? 'post',
    count: g.count === undefined ? '' : String(g.count),
    destinations: a.destinations.map((d) => ({
      kind: d.connection_id ? 'connection' : 'platform',
      connectionId: d.connection_id ?? '',
      platform: d.platform ?? 'x',
      override: d.content_override ?? '',
    })),
    outputMode: a.output.mode,
    scheduleExpr: a.output.schedule_expr ?? '',
    utm: Boolean(a.options.utm),
    utmSource: a.options.utm?.source ?? '',
    utmMedium: a.options.utm?.medium ?? '',
    utmCampaign: a.options.utm?.campaign ?? '',
    useItemImage: a.options.use_item_image,
    hashtags: (a.options.hashtags ?? []).join(' '),
    maxItems: String(a.options.max_items_per_run),
    backfill: a.options.backfill,
  };
}

const texts = (value: string) =>
  value
    .split(/\n\s*\n/)
    .map((s) => s.trim())
    .filter(Boolean);

function source(f: FormState): CreateBody['source'] {
  if (f.sourceType === 'schedule') return { type: 'schedule', rrule: f.rrule.trim(), timezone: f.timezone };
  if (f.sourceType === 'rss') return { type: 'rss', feed_url: f.feedUrl.trim() };
  return { type: 'event', event: f.event };
}

function generator(f: FormState): CreateBody['generator'] {
  const count = f.count.trim() ? { count: Number(f.count) } : {};
  switch (f.generatorType) {
    case 'template':
      return { type: 'template', ...(f.template.trim() ? { template: f.template } : {}), ...count };
    case 'library':
      return { type: 'library', items: texts(f.items), ...count };
    case 'llm_topic':
      return {
        type: 'llm_topic',
        topic: f.topic,
        ...(texts(f.items).length ? { items: texts(f.items) } : {}),
        ...count,
      };
    case 'repurpose':
      return { type: 'repurpose', format: f.format };
  }
}

function options(f: FormState): CreateBody['options'] {
  const hashtags = f.hashtags.split(/[\s,]+/).filter(Boolean);
  const utm = {
    ...(f.utmSource.trim() ? { source: f.utmSource.trim() } : {}),
    ...(f.utmMedium.trim() ? { medium: f.utmMedium.trim() } : {}),
    ...(f.utmCampaign.trim() ? { campaign: f.utmCampaign.trim() } : {}),
  };
  return {
    ...(f.utm ? { utm } : {}),
    ...(hashtags.length ? { hashtags } : {}),
    max_items_per_run: Number(f.maxItems) || 5,
    use_item_image: f.useItemImage,
    backfill: f.backfill,
  };
}

/** The fields PATCH replaces and POST takes (POST also takes brand_id and status). */
export function bodyOf(f: FormState): Omit<CreateBody, 'status' | 'brand_id'> {
  const scheduled = f.outputMode === 'schedule' || f.outputMode === 'approval';
  return {
    name: f.name.trim(),
    source: source(f),
    generator: generator(f),
    destinations: f.destinations.map((d) => ({
      ...(d.kind === 'connection' ? { connection_id: d.connectionId } : { platform: d.platform }),
      ...(d.override.trim() ? { content_override: d.override } : {}),
    })),
    output: {
      mode: f.outputMode,
      ...(scheduled && f.scheduleExpr.trim() ? { schedule_expr: f.scheduleExpr.trim() } : {}),
    },
    // Only feeds get options: the server fills `backfill: false` into any options object it is sent (its schema
    // default) and then refuses that field on a schedule or an event source (`option_needs_feed`).
    ...(f.sourceType === 'rss' ? { options: options(f) } : {}),
  };
}

/** One line on what starts the automation. */
export function describeSource(s: Automation['source']): string {
  if (s.type === 'schedule') return `Schedule ${s.rrule?.replace(/\n/g, ' ') ?? ''} (${s.timezone ?? 'UTC'})`;
  if (s.type === 'rss') return `Feed ${s.feed_url ?? ''}`;
  return `On ${s.event ?? 'an event'}`;
}
