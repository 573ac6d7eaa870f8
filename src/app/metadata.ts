// Metadata (docs/api.md "Metadata"): string key-value pairs a client keeps on its posts, media and webhook
// endpoints — its own ids, mostly — with Stripe's limits and Stripe's update rules. Shared by the features that
// carry it, and by every face (REST, MCP) through their schemas.
import { Type } from 'typebox';
import { AppError } from './errors.ts';

export const METADATA_LIMITS = { keys: 50, keyLength: 40, valueLength: 500 } as const;

const KEY = {
  type: 'string',
  minLength: 1,
  maxLength: METADATA_LIMITS.keyLength,
  pattern: '^[^\\[\\]]+$',
  description: `1 to ${METADATA_LIMITS.keyLength} characters, without \`[\` or \`]\`.`,
};

/** Metadata as it is stored and shown. */
export const Metadata = Type.Unsafe<Record<string, string>>({
  type: 'object',
  maxProperties: METADATA_LIMITS.keys,
  propertyNames: KEY,
  additionalProperties: { type: 'string', maxLength: METADATA_LIMITS.valueLength },
  description: `Your own string key-value pairs (at most ${METADATA_LIMITS.keys} keys; keys up to ${METADATA_LIMITS.keyLength} characters without square brackets, values up to ${METADATA_LIMITS.valueLength}). Herald stores and returns them and never acts on them.`,
  examples: [{ crm_id: 'cmp_8812', campaign: 'spring-launch' }],
});

/** Metadata on creation: as stored, except that a key set to `""` is left out. */
export const MetadataInput = Type.Unsafe<Record<string, string>>({
  type: 'object',
  maxProperties: METADATA_LIMITS.keys,
  propertyNames: KEY,
  additionalProperties: { type: 'string', maxLength: METADATA_LIMITS.valueLength },
  description: `Your own string key-value pairs, returned with the resource (at most ${METADATA_LIMITS.keys} keys; keys up to ${METADATA_LIMITS.keyLength} characters without square brackets, values up to ${METADATA_LIMITS.valueLength}). A key set to \`""\` is not stored.`,
  examples: [{ crm_id: 'cmp_8812' }],
});

/** Metadata in an edit: merged key by key into what is stored. */
export const MetadataPatch = Type.Unsafe<Record<string, string | null> | null>({
  type: ['object', 'null'],
  propertyNames: KEY,
  additionalProperties: { type: ['string', 'null'], maxLength: METADATA_LIMITS.valueLength },
  description: `Merged into the stored metadata: each key given is set, a key set to \`""\` or \`null\` is removed, keys not named stay. \`null\` instead of an object removes every key. At most ${METADATA_LIMITS.keys} keys after the merge.`,
  examples: [{ campaign: 'summer', crm_id: null }],
});

/** The metadata to store on creation: `""` values are dropped (Stripe's "unset"). */
export function initialMetadata(input: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(input ?? {}).filter(([, value]) => value !== ''));
}

/** Applies an edit to stored metadata; more than the key limit afterwards is a 400 naming the count. */
export function mergeMetadata(
  current: Record<string, string>,
  patch: Record<string, string | null> | null,
): Record<string, string> {
  if (patch === null) return {};
  const next: Record<string, string> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || value === '') delete next[key];
    else next[key] = value;
  }
  const count = Object.keys(next).length;
  if (count > METADATA_LIMITS.keys) {
    throw new AppError(
      'PUBLIC_API_BODY_INVALID',
      `metadata would hold ${count} keys after this change; the limit is ${METADATA_LIMITS.keys}. Remove keys (set them to null) in the same request.`,
      { details: [{ path: '/metadata', message: `at most ${METADATA_LIMITS.keys} keys` }] },
    );
  }
  return next;
}
