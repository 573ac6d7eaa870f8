// TypeBox schemas of the brands API: they validate requests, type the handlers and write the OpenAPI document.
// Every limit a brand field has is here, in one table (BRAND_LIMITS), and in docs/api.md "Brands".
import { Type, type Static, type TSchema } from 'typebox';
import { named, StringEnum } from '../../app/envelope.ts';
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

// Names in the OpenAPI document (docs/conventions.md "Adding an endpoint"); the answers are in brands.view.schemas.ts.
named('CreateBrandRequest', CreateBrandBody);
named('UpdateBrandRequest', UpdateBrandBody);
