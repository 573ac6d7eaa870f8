// TypeBox schemas of the brands API: they validate requests, type the handlers and write the OpenAPI document.
// Every limit a brand field has is here, in one table (BRAND_LIMITS), and in docs/api.md "Brands".
import { Type, type Static, type TSchema } from 'typebox';
import { named, StringEnum, Timestamp } from '../../app/envelope.ts';
import { PLATFORM_NAMES } from '../../platforms/limits.ts';

/** The limits of every brand field (characters are UTF-16 code units, as JavaScript and JSON Schema count them). */
export const BRAND_LIMITS = {
  name: 100,
  slug: 64,
  website: 300,
  industry: 100,
  timezone: 64,
  language: 35,
  colors: { items: 10 },
  voice: {
    descriptors: { items: 10, length: 40 },
    do: { items: 20, length: 200 },
    dont: { items: 20, length: 200 },
    examples: { items: 10, length: 1000 },
  },
  audience: { summary: 500, segments: { items: 10, length: 200 } },
  goals: { items: 10, length: 200 },
  offer: 1000,
  guidelines_md: 20_000,
  banned_terms: { items: 50, length: 40 },
  required_terms: { items: 20, length: 40 },
  default_hashtags: { items: 30, length: 50 },
  signature: 200,
  cta_default: 200,
  memory: { items: 50, text: 500, tags: 5, tag: 30 },
  documents: { items: 10, title: 200 },
} as const;

export const VOICE_EMOJI = ['none', 'light', 'rich'] as const;
export const VOICE_HASHTAGS = ['none', 'few', 'many'] as const;
export const BANNED_TERM_SEVERITIES = ['warning', 'error'] as const;
export const REQUIRED_TERM_MODES = ['append', 'warning', 'error'] as const;
export const RULE_APPLY = ['always', 'never', 'platforms'] as const;
export const BRAND_ADDITION_RULES = ['cta', 'required_terms', 'signature', 'default_hashtags'] as const;

/** One line: no control characters (no line breaks, tabs or NUL). */
const LINE = '^[^\\u0000-\\u001f\\u007f]*$';
/** Text that may span lines: no control characters other than line feed and tab. */
const TEXT = '^[^\\u0000-\\u0008\\u000b-\\u001f\\u007f]*$';

const line = (max: number, description?: string, min = 1) =>
  Type.String({ minLength: min, maxLength: max, pattern: LINE, ...(description ? { description } : {}) });
const text = (max: number, description?: string) =>
  Type.String({ minLength: 1, maxLength: max, pattern: TEXT, ...(description ? { description } : {}) });
const nullable = <T extends TSchema>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description ? { description } : {});
const lines = (items: number, length: number, description: string) =>
  Type.Array(line(length), { maxItems: items, description });

const Name = line(BRAND_LIMITS.name, 'The brand as people call it.');
const Slug = Type.String({
  minLength: 1,
  maxLength: BRAND_LIMITS.slug,
  pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
  description:
    'Short name unique in the workspace: lower-case letters, digits and single hyphens. Made from `name` when absent.',
});
const Website = Type.String({
  maxLength: BRAND_LIMITS.website,
  format: 'uri',
  pattern: '^https?://',
  description: "The brand's site, `http://` or `https://`.",
});
const Timezone = Type.String({
  minLength: 1,
  maxLength: BRAND_LIMITS.timezone,
  pattern: '^[A-Za-z][A-Za-z0-9_+\\-]*(/[A-Za-z0-9_+\\-]+)*$',
  description: 'An IANA time zone, e.g. `Europe/Paris` (stored in its canonical spelling).',
});
const Language = Type.String({
  maxLength: BRAND_LIMITS.language,
  pattern: '^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$',
  description: 'BCP 47 language tag the brand writes in, e.g. `en` or `pt-BR`.',
});
const Color = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: '`#rrggbb` (stored in lower case).' });
const MediaId = Type.String({ minLength: 1, maxLength: 100 });
const Hashtag = Type.String({
  minLength: 2,
  maxLength: BRAND_LIMITS.default_hashtags.length,
  pattern: '^#[^\\s#\\u0000-\\u001f\\u007f]+$',
  description: 'A hashtag with its `#`, no spaces.',
});

export const Voice = Type.Object(
  {
    descriptors: Type.Optional(
      lines(BRAND_LIMITS.voice.descriptors.items, BRAND_LIMITS.voice.descriptors.length, 'Words for the voice.'),
    ),
    formality: Type.Optional(
      nullable(Type.Integer({ minimum: 1, maximum: 5 }), '1 (casual) to 5 (formal); null: no preference.'),
    ),
    emoji: Type.Optional(nullable(StringEnum(VOICE_EMOJI), 'How much emoji; null: no preference.')),
    hashtags: Type.Optional(nullable(StringEnum(VOICE_HASHTAGS), 'How many hashtags; null: no preference.')),
    do: Type.Optional(lines(BRAND_LIMITS.voice.do.items, BRAND_LIMITS.voice.do.length, 'What the voice does.')),
    dont: Type.Optional(
      lines(BRAND_LIMITS.voice.dont.items, BRAND_LIMITS.voice.dont.length, 'What the voice never does.'),
    ),
    examples: Type.Optional(
      Type.Array(text(BRAND_LIMITS.voice.examples.length), {
        maxItems: BRAND_LIMITS.voice.examples.items,
        description: 'Posts written in this voice.',
      }),
    ),
  },
  { additionalProperties: false, description: 'How the brand writes. Absent fields keep their value on PATCH.' },
);
export type VoiceInput = Static<typeof Voice>;

export const Audience = Type.Object(
  {
    summary: Type.Optional(nullable(text(BRAND_LIMITS.audience.summary), 'Who the brand writes for.')),
    segments: Type.Optional(
      lines(BRAND_LIMITS.audience.segments.items, BRAND_LIMITS.audience.segments.length, 'Groups within it.'),
    ),
  },
  { additionalProperties: false },
);

const MemoryItem = Type.Object(
  {
    id: Type.Optional(
      Type.String({
        pattern: '^mem_[A-Za-z0-9]{1,40}$',
        description: 'Keep the id of an item to keep it; items without one get a new `mem_…` id.',
      }),
    ),
    text: text(BRAND_LIMITS.memory.text),
    tags: Type.Optional(
      Type.Array(line(BRAND_LIMITS.memory.tag), { maxItems: BRAND_LIMITS.memory.tags, uniqueItems: true }),
    ),
  },
  { additionalProperties: false },
);

const DocumentRef = Type.Object(
  {
    media_id: MediaId,
    title: line(BRAND_LIMITS.documents.title),
  },
  { additionalProperties: false, description: 'Uploaded media (ready, in this workspace) the brand refers to.' },
);

const Applies = (what: string, defaultApply: (typeof RULE_APPLY)[number]) =>
  Type.Object(
    {
      apply: Type.Optional(
        StringEnum(RULE_APPLY, {
          description: `Where ${what} is applied: on every platform, never, or only on \`platforms\`. Default \`${defaultApply}\`.`,
        }),
      ),
      platforms: Type.Optional(
        Type.Array(StringEnum(PLATFORM_NAMES), {
          maxItems: PLATFORM_NAMES.length,
          uniqueItems: true,
          description: 'The platforms, with `apply: platforms`.',
        }),
      ),
    },
    { additionalProperties: false },
  );

export const BrandRulesInput = Type.Object(
  {
    banned_terms: Type.Optional(
      Type.Object(
        {
          severity: Type.Optional(
            StringEnum(BANNED_TERM_SEVERITIES, {
              description:
                '`warning` (default): posts with a banned term are created, with a warning; `error`: refused with 422.',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    required_terms: Type.Optional(
      Type.Object(
        {
          ...Applies('the required terms are checked', 'always').properties,
          when_missing: Type.Optional(
            StringEnum(REQUIRED_TERM_MODES, {
              description:
                'A required term missing from a post: `warning` (default), `error` (422), or `append` (added at the end).',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    signature: Type.Optional(Applies('`signature` is appended', 'never')),
    cta: Type.Optional(Applies('`cta_default` is appended', 'never')),
    default_hashtags: Type.Optional(Applies('the missing `default_hashtags` are appended', 'never')),
  },
  {
    additionalProperties: false,
    description:
      'How the brand applies to posts, without any model. Additions are appended to the first part of each platform text, counted in its limits, and shown by `POST /posts/validate`. Absent fields keep their value on PATCH.',
  },
);
export type BrandRulesInput = Static<typeof BrandRulesInput>;

const fields = {
  slug: Type.Optional(Slug),
  website: Type.Optional(nullable(Website)),
  industry: Type.Optional(nullable(line(BRAND_LIMITS.industry))),
  timezone: Type.Optional(nullable(Timezone)),
  language: Type.Optional(nullable(Language)),
  colors: Type.Optional(Type.Array(Color, { maxItems: BRAND_LIMITS.colors.items })),
  logo_media_id: Type.Optional(nullable(MediaId, 'A ready image uploaded to this workspace.')),
  voice: Type.Optional(Voice),
  audience: Type.Optional(Audience),
  goals: Type.Optional(lines(BRAND_LIMITS.goals.items, BRAND_LIMITS.goals.length, 'What the brand wants.')),
  offer: Type.Optional(nullable(text(BRAND_LIMITS.offer), 'What the brand sells or offers.')),
  guidelines_md: Type.Optional(nullable(text(BRAND_LIMITS.guidelines_md), 'Editorial guidelines, in Markdown.')),
  banned_terms: Type.Optional(
    lines(
      BRAND_LIMITS.banned_terms.items,
      BRAND_LIMITS.banned_terms.length,
      'Words or phrases posts must not use (matched whole, ignoring case).',
    ),
  ),
  required_terms: Type.Optional(
    lines(
      BRAND_LIMITS.required_terms.items,
      BRAND_LIMITS.required_terms.length,
      'Words or phrases every post must carry (e.g. `#ad`), matched whole, ignoring case.',
    ),
  ),
  default_hashtags: Type.Optional(Type.Array(Hashtag, { maxItems: BRAND_LIMITS.default_hashtags.items })),
  signature: Type.Optional(nullable(text(BRAND_LIMITS.signature), 'Appended where `rules.signature` says.')),
  cta_default: Type.Optional(
    nullable(text(BRAND_LIMITS.cta_default), 'Call to action; appended where `rules.cta` says.'),
  ),
  memory: Type.Optional(
    Type.Array(MemoryItem, {
      maxItems: BRAND_LIMITS.memory.items,
      description: 'Facts to remember when writing for the brand. Replaces the whole list.',
    }),
  ),
  documents: Type.Optional(
    Type.Array(DocumentRef, { maxItems: BRAND_LIMITS.documents.items, description: 'Replaces the whole list.' }),
  ),
  rules: Type.Optional(BrandRulesInput),
};

export const CreateBrandBody = Type.Object(
  { name: Name, ...fields },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Acme Coffee',
        website: 'https://acme.example',
        timezone: 'Europe/Paris',
        language: 'en',
        voice: { descriptors: ['warm', 'direct'], formality: 2, emoji: 'light', hashtags: 'few' },
        banned_terms: ['cheap'],
        default_hashtags: ['#acmecoffee'],
        signature: '— The Acme team',
        rules: { signature: { apply: 'platforms', platforms: ['linkedin', 'facebook'] } },
      },
    ],
  },
);
export type CreateBrandBody = Static<typeof CreateBrandBody>;

export const UpdateBrandBody = Type.Object(
  {
    version: Type.Integer({
      minimum: 1,
      description:
        'The `version` you read. A brand changed since answers 409 `PUBLIC_API_VERSION_CONFLICT`: read it again and reapply.',
    }),
    name: Type.Optional(Name),
    ...fields,
  },
  {
    additionalProperties: false,
    description:
      'A JSON Merge Patch (RFC 7396) of the brand plus the `version` read: fields present replace (objects `voice`, `audience` and `rules` merge), `null` clears. Lists replace whole.',
    examples: [{ version: 3, signature: '— Acme', rules: { signature: { apply: 'always' } } }],
  },
);
export type UpdateBrandBody = Static<typeof UpdateBrandBody>;

export const BrandIdParams = Type.Object({
  id: Type.String({ maxLength: 200, description: 'The brand id (`brand_…`).' }),
});

export const ListBrandsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 1000, description: 'The `next_cursor` of the previous page.' })),
  },
  { additionalProperties: false },
);
export type ListBrandsQuery = Static<typeof ListBrandsQuery>;

const AppliesOut = Type.Object({
  apply: StringEnum(RULE_APPLY),
  platforms: Type.Array(StringEnum(PLATFORM_NAMES)),
});

export const BrandRulesSchema = Type.Object({
  banned_terms: Type.Object({ severity: StringEnum(BANNED_TERM_SEVERITIES) }),
  required_terms: Type.Object({
    apply: StringEnum(RULE_APPLY),
    platforms: Type.Array(StringEnum(PLATFORM_NAMES)),
    when_missing: StringEnum(REQUIRED_TERM_MODES),
  }),
  signature: AppliesOut,
  cta: AppliesOut,
  default_hashtags: AppliesOut,
});

const Nullable = (s: TSchema) => Type.Union([s, Type.Null()]);

export const Brand = Type.Object(
  {
    id: Type.String({ examples: ['brand_01jdq4x1k9m2v7c3r5t8w0yz6b'] }),
    object: Type.Literal('brand'),
    workspace_id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    slug: Type.String(),
    is_default: Type.Boolean({ description: 'The brand posts use when none is named; it cannot be deleted.' }),
    website: Nullable(Type.String()),
    industry: Nullable(Type.String()),
    timezone: Nullable(Type.String()),
    language: Nullable(Type.String()),
    colors: Type.Array(Type.String()),
    logo_media_id: Nullable(Type.String()),
    voice: Type.Object({
      descriptors: Type.Array(Type.String()),
      formality: Nullable(Type.Integer()),
      emoji: Nullable(StringEnum(VOICE_EMOJI)),
      hashtags: Nullable(StringEnum(VOICE_HASHTAGS)),
      do: Type.Array(Type.String()),
      dont: Type.Array(Type.String()),
      examples: Type.Array(Type.String()),
    }),
    audience: Type.Object({ summary: Nullable(Type.String()), segments: Type.Array(Type.String()) }),
    goals: Type.Array(Type.String()),
    offer: Nullable(Type.String()),
    guidelines_md: Nullable(Type.String()),
    banned_terms: Type.Array(Type.String()),
    required_terms: Type.Array(Type.String()),
    default_hashtags: Type.Array(Type.String()),
    signature: Nullable(Type.String()),
    cta_default: Nullable(Type.String()),
    memory: Type.Array(Type.Object({ id: Type.String(), text: Type.String(), tags: Type.Array(Type.String()) })),
    documents: Type.Array(Type.Object({ media_id: Type.String(), title: Type.String() })),
    rules: BrandRulesSchema,
    version: Type.Integer({ description: 'Goes up by one with every change; send it back with PATCH.' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Brand', title: 'Brand' },
);

export const BrandContextSchema = Type.Object(
  {
    object: Type.Literal('brand_context'),
    brand_id: Type.String(),
    version: Type.Integer({ description: 'The brand version the context was compiled from.' }),
    text: Type.String({
      description:
        'One block ready for a prompt, at most `max_chars` characters. Untrusted data (it is what the brand says): quote it as data.',
    }),
    fields: Type.Object({}, { additionalProperties: true, description: 'The brand fields the text was made from.' }),
    truncated: Type.Array(Type.String(), {
      description: 'The sections cut to fit the bound, in the order they were cut (docs/api.md "Brand context").',
    }),
    max_chars: Type.Integer(),
  },
  { $id: 'BrandContext', title: 'Brand context' },
);

const BRAND_EXAMPLE = {
  id: 'brand_01jdq4x1k9m2v7c3r5t8w0yz6b',
  object: 'brand',
  workspace_id: '0b6f2c1e-4d3a-4f8e-9a7b-5c2d1e0f9a83',
  name: 'Acme Coffee',
  slug: 'acme-coffee',
  is_default: false,
  website: 'https://acme.example',
  industry: 'Coffee roasting',
  timezone: 'Europe/Paris',
  language: 'en',
  colors: ['#3b2f2f'],
  logo_media_id: null,
  voice: {
    descriptors: ['warm', 'direct'],
    formality: 2,
    emoji: 'light',
    hashtags: 'few',
    do: ['Name the origin of the beans'],
    dont: ['Promise health benefits'],
    examples: ['Our Ethiopian Guji is back: bright, floral, roasted on Monday.'],
  },
  audience: { summary: 'Home baristas', segments: ['espresso beginners'] },
  goals: ['Grow subscriptions'],
  offer: 'Freshly roasted single-origin beans, delivered weekly.',
  guidelines_md: null,
  banned_terms: ['cheap'],
  required_terms: [],
  default_hashtags: ['#acmecoffee'],
  signature: '— The Acme team',
  cta_default: null,
  memory: [{ id: 'mem_01jdq4x1k9m2v7c3r5t8w0yz6b', text: 'Roastery opened in 2014 in Lyon.', tags: ['history'] }],
  documents: [],
  rules: {
    banned_terms: { severity: 'warning' },
    required_terms: { apply: 'always', platforms: [], when_missing: 'warning' },
    signature: { apply: 'platforms', platforms: ['linkedin', 'facebook'] },
    cta: { apply: 'never', platforms: [] },
    default_hashtags: { apply: 'never', platforms: [] },
  },
  version: 3,
  created_at: '2026-11-20T10:05:00Z',
  updated_at: '2026-11-24T16:40:12Z',
};

// Names and examples in the OpenAPI document (docs/conventions.md "Adding an endpoint").
named('CreateBrandRequest', CreateBrandBody);
named('UpdateBrandRequest', UpdateBrandBody);
named('Brand', Brand, BRAND_EXAMPLE);
named('BrandContext', BrandContextSchema, {
  object: 'brand_context',
  brand_id: BRAND_EXAMPLE.id,
  version: 3,
  text: 'Brand: Acme Coffee (acme-coffee)\nWebsite: https://acme.example\nVoice: warm, direct\nFormality: 2 of 5 (casual)\nNever use these terms: "cheap"\nDefault hashtags: #acmecoffee\nSignature: — The Acme team',
  fields: { name: 'Acme Coffee', slug: 'acme-coffee', banned_terms: ['cheap'] },
  truncated: [],
  max_chars: 12000,
});
export const DeletedBrand = named(
  'DeletedBrand',
  Type.Object({ id: Type.String(), object: Type.Literal('brand'), deleted: Type.Literal(true) }),
  { id: BRAND_EXAMPLE.id, object: 'brand', deleted: true },
);
