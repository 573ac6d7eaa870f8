// TypeBox schemas of what the brands API answers (a brand, its compiled context, a deletion), with their OpenAPI
// names and examples. What it accepts, and every field's limits, are in brands.schemas.ts.
import { Type, type TSchema } from 'typebox';
import { named, StringEnum, Timestamp } from '../../app/envelope.ts';
import { PLATFORM_NAMES } from '../../platforms/limits.ts';
import {
  BANNED_TERM_SEVERITIES,
  REQUIRED_TERM_MODES,
  RULE_APPLY,
  VOICE_EMOJI,
  VOICE_HASHTAGS,
} from './brands.schemas.ts';

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
