// TypeBox schemas of what the automations API accepts (docs/automations.md): the automation, its patch, the list
// queries and the ids. What it answers is in automations.view.schemas.ts. Which fields go with which `type` is a
// rule of the service (422 naming the rule), so each part stays one flat object a client reads at a glance.
import { Type, type Static } from 'typebox';
import { EnumList, named, StringEnum } from '../../app/envelope.ts';
import { PLATFORM_NAMES } from '../../platforms/limits.ts';

export const SOURCE_TYPES = ['schedule', 'rss', 'event'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];
export const GENERATOR_TYPES = ['template', 'library', 'llm_topic', 'repurpose'] as const;
export type GeneratorType = (typeof GENERATOR_TYPES)[number];
export const OUTPUT_MODES = ['draft', 'approval', 'schedule', 'publish_now'] as const;
export type OutputMode = (typeof OUTPUT_MODES)[number];
export const AUTOMATION_STATUSES = ['active', 'paused', 'error', 'archived'] as const;
export type AutomationStatus = (typeof AUTOMATION_STATUSES)[number];
export const RUN_TRIGGERS = ['schedule', 'manual', 'feed', 'event'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];
export const RUN_STATUSES = ['queued', 'running', 'completed', 'failed', 'skipped'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** Events an `event` automation may run on: a post's lifecycle (posts an automation made itself are skipped). */
export const SOURCE_EVENTS = ['post.published', 'post.partially_published', 'post.scheduled'] as const;
export const REPURPOSE_FORMATS = ['post', 'thread'] as const;

export const MAX_TEMPLATE_CHARS = 10_000;
export const MAX_LIBRARY_ITEMS = 500;
export const MAX_DESTINATIONS = 20;
export const MAX_ITEMS_PER_RUN = 50;

export const AutomationSource = Type.Object(
  {
    type: StringEnum(SOURCE_TYPES, {
      description:
        '`schedule`: runs at each occurrence of `rrule` in `timezone`; `rss`: polls `feed_url` (RSS or Atom) and posts its new items; `event`: runs when `event` happens in the workspace.',
    }),
    rrule: Type.Optional(
      Type.String({
        minLength: 6,
        maxLength: 1000,
        description:
          'For `schedule`: an RFC 5545 RRULE (`FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0`), optionally with its `DTSTART;TZID=…:` line; without one the rule starts at creation.',
      }),
    ),
    timezone: Type.Optional(
      Type.String({ maxLength: 64, description: 'For `schedule`: the IANA time zone the rule is read in.' }),
    ),
    feed_url: Type.Optional(
      Type.String({ maxLength: 2048, description: 'For `rss`: the feed, fetched through the SSRF guard.' }),
    ),
    event: Type.Optional(StringEnum(SOURCE_EVENTS, { description: 'For `event`: the event type that starts a run.' })),
  },
  { additionalProperties: false },
);
export type AutomationSource = Static<typeof AutomationSource>;

export const AutomationGenerator = Type.Object(
  {
    type: StringEnum(GENERATOR_TYPES, {
      description:
        '`template`: `template` filled with the item and the brand; `library`: the next `count` texts of `items`, in turn; `llm_topic`: a model writes about `topic` (refused offline unless `items` is given); `repurpose`: the item’s article (or the event’s post) repurposed per platform.',
    }),
    template: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_TEMPLATE_CHARS,
        description:
          'Placeholders: `{{item.title}}`, `{{item.url}}`, `{{item.summary}}`, `{{item.author}}`, `{{date}}`, `{{brand.name}}` …',
      }),
    ),
    items: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: MAX_TEMPLATE_CHARS }), {
        minItems: 1,
        maxItems: MAX_LIBRARY_ITEMS,
        description: 'For `library` (and `llm_topic` offline): the texts, used in turn.',
      }),
    ),
    topic: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'For `llm_topic`.' })),
    format: Type.Optional(StringEnum(REPURPOSE_FORMATS, { description: 'For `repurpose`: a post or a thread.' })),
    count: Type.Optional(
      // No schema default: one filled in here would be a `count` on every generator, and `template` and
      // `repurpose` refuse it (automations.checks.ts); the plan reads an absent count as 1.
      Type.Integer({ minimum: 1, maximum: 10, description: 'Posts per scheduled run (library, topic); default 1.' }),
    ),
  },
  { additionalProperties: false },
);
export type AutomationGenerator = Static<typeof AutomationGenerator>;

export const AutomationDestination = Type.Object(
  {
    connection_id: Type.Optional(Type.String({ maxLength: 200, description: 'A connection of the brand.' })),
    platform: Type.Optional(StringEnum(PLATFORM_NAMES, { description: 'Or a platform: the brand’s default.' })),
    content_override: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_TEMPLATE_CHARS,
        description: 'A template used for this destination’s platform instead of the generated text.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type AutomationDestination = Static<typeof AutomationDestination>;

export const AutomationOutput = Type.Object(
  {
    mode: StringEnum(OUTPUT_MODES, {
      description:
        '`draft`: drafts; `approval`: held for review, one approval batch per run; `schedule`: scheduled `schedule_expr` after the run; `publish_now`: published at once (the approval policy still applies to `automation` posts).',
    }),
    schedule_expr: Type.Optional(
      Type.String({
        maxLength: 40,
        pattern: '^P(?!$)(\\d+D)?(T(?=\\d)(\\d+H)?(\\d+M)?)?$',
        description: 'For `schedule`: an ISO 8601 duration after the run (`PT2H`, `P1DT30M`); default `PT10M`.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type AutomationOutput = Static<typeof AutomationOutput>;

const UtmValue = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._~-]+$' });

export const AutomationOptions = Type.Object(
  {
    utm: Type.Optional(
      Type.Object(
        { source: Type.Optional(UtmValue), medium: Type.Optional(UtmValue), campaign: Type.Optional(UtmValue) },
        {
          additionalProperties: false,
          description:
            'UTM parameters on the item’s link: `utm_source` defaults to the platform, `utm_medium` to `social`, `utm_campaign` to `automation`. Absent: links are left as they are.',
        },
      ),
    ),
    use_item_image: Type.Optional(
      Type.Boolean({ default: false, description: 'Attach the feed item’s image (fetched as media by URL).' }),
    ),
    hashtags: Type.Optional(
      Type.Array(Type.String({ pattern: '^#[\\p{L}\\p{N}_]+$', maxLength: 100 }), {
        maxItems: 30,
        description: 'Hashtags appended to every post.',
      }),
    ),
    max_items_per_run: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_ITEMS_PER_RUN, default: 5, description: 'New feed items per run.' }),
    ),
    backfill: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'For `rss`: `false` marks the items already in the feed at the first poll as seen, so only later ones post.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type AutomationOptions = Static<typeof AutomationOptions>;

const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const Destinations = Type.Array(AutomationDestination, { minItems: 1, maxItems: MAX_DESTINATIONS });

export const CreateAutomationBody = named(
  'CreateAutomationRequest',
  Type.Object(
    {
      brand_id: Type.Optional(Type.String({ maxLength: 200, description: 'The brand; the request’s otherwise.' })),
      name: Name,
      status: Type.Optional(StringEnum(['active', 'paused'] as const, { default: 'active' })),
      source: AutomationSource,
      generator: AutomationGenerator,
      destinations: Destinations,
      output: Type.Optional(AutomationOutput),
      options: Type.Optional(AutomationOptions),
    },
    { additionalProperties: false },
  ),
  {
    name: 'Blog to LinkedIn',
    source: { type: 'rss', feed_url: 'https://example.com/blog/feed.xml' },
    generator: { type: 'template', template: '{{item.title}}\n\n{{item.url}}' },
    destinations: [{ platform: 'linkedin' }],
    output: { mode: 'approval' },
    options: { utm: { campaign: 'blog' }, max_items_per_run: 3 },
  },
);
export type CreateAutomationBody = Static<typeof CreateAutomationBody>;

export const PatchAutomationBody = named(
  'UpdateAutomationRequest',
  Type.Object(
    {
      name: Type.Optional(Name),
      source: Type.Optional(AutomationSource),
      generator: Type.Optional(AutomationGenerator),
      destinations: Type.Optional(Destinations),
      output: Type.Optional(AutomationOutput),
      options: Type.Optional(AutomationOptions),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
  { name: 'Blog to LinkedIn and X', destinations: [{ platform: 'linkedin' }, { platform: 'x' }] },
);
export type PatchAutomationBody = Static<typeof PatchAutomationBody>;

export const ListAutomationsQuery = Type.Object(
  {
    status: Type.Optional(EnumList(AUTOMATION_STATUSES, 'Automations in any of these statuses: `status=active`.')),
    brand_id: Type.Optional(Type.String({ maxLength: 200 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 1000, description: 'The `next_cursor` of the previous page.' })),
  },
  { additionalProperties: false },
);
export type ListAutomationsQuery = Static<typeof ListAutomationsQuery>;

export const ListRunsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 1000, description: 'The `next_cursor` of the previous page.' })),
  },
  { additionalProperties: false },
);
export type ListRunsQuery = Static<typeof ListRunsQuery>;

export const AutomationIdParams = Type.Object({
  id: Type.String({
    maxLength: 200,
    description: 'The automation id (`auto_…`).',
    examples: ['auto_01jdq4x1k9m2v7c3r5t8w0yz6b'],
  }),
});
