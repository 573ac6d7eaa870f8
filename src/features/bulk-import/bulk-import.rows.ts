// One import row → the body of a post (docs/queues.md "Bulk import"). A CSV record's cells are text: each column
// is read by its name (`content`, `platforms`, `schedule_at`, `mastodon.visibility`, …) and its value converted by the
// type the posts schema gives that field. A JSON row already has the post's fields. Both then pass the same
// validator as `POST /v1/posts`, so a row is refused for exactly what a single create refuses, field by field.
import { Type, type Static } from 'typebox';
import { bodyValidator } from '../../app/validation.ts';
import { PLATFORM_NAMES } from '../../platforms/limits.ts';
import { CreatePostBody, PlatformOptions } from '../posts/posts.schemas.ts';

/** A problem with one row: `field` is the CSV column (or the JSON row's field) it is about. */
export interface RowError {
  code: string;
  message: string;
  field: string | null;
  platform: string | null;
}

/** The fields of one JSON row: a post's fields (`queue` included) but `publish_now`, plus media by URL. */
const { publish_now: _publishNow, platforms, ...postFields } = CreatePostBody.properties;
export const ImportRow = Type.Object(
  {
    ...postFields,
    platforms: Type.Optional(platforms),
    media_urls: Type.Optional(
      Type.Array(Type.String({ minLength: 8, maxLength: 2048, format: 'uri' }), {
        maxItems: 10,
        description: 'Files Herald fetches (media by URL) and attaches after `media_ids`, in order.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ImportRow = Static<typeof ImportRow>;

/** What a row becomes: the post's body and the URLs to fetch as its media. */
export interface ConvertedRow {
  body: CreatePostBody;
  mediaUrls: string[];
  /** Connection ids whose platforms fill `platforms` when the row names only connections. */
  needsPlatformsFrom: string[] | null;
}

type JsonSchema = { type?: string | string[]; anyOf?: JsonSchema[]; properties?: Record<string, JsonSchema> };

const LIST_COLUMNS = new Set(['platforms', 'connection_ids', 'media_ids']);
const TEXT_COLUMNS = new Set(['content', 'schedule_at', 'timezone', 'queue', 'queue_id', 'brand_id']);
const COLUMN_ALIASES: Record<string, string> = { brand: 'brand_id' };

const error = (code: string, message: string, field: string | null, platform: string | null = null): RowError => ({
  code,
  message,
  field,
  platform,
});

function typeOf(schema: JsonSchema): string {
  const types = schema.anyOf ? schema.anyOf.map(typeOf) : [schema.type ?? 'string'].flat();
  return types.find((t) => t !== 'null') ?? 'string';
}

/**
 * A cell converted to the type of the option it fills: `true`/`false`, a number, a `|`-separated list, an object's
 * text or JSON.
 */
function cellValue(schema: JsonSchema, raw: string, column: string): { value: unknown } | RowError {
  switch (typeOf(schema)) {
    case 'boolean':
      if (/^(true|false)$/i.test(raw)) return { value: raw.toLowerCase() === 'true' };
      return error('value_invalid', `${column} takes true or false, not "${raw}".`, column);
    case 'integer':
    case 'number':
      if (raw !== '' && Number.isFinite(Number(raw))) return { value: Number(raw) };
      return error('value_invalid', `${column} takes a number, not "${raw}".`, column);
    case 'array':
      return { value: raw.split('|').map((item) => item.trim()) };
    case 'object':
      // An option that is an object with a `text` (a first comment) takes its text alone; any other, JSON.
      if (!raw.startsWith('{') && objectOf(schema)?.properties?.text) return { value: { text: raw } };
      try {
        return { value: JSON.parse(raw) as unknown };
      } catch {
        return error('value_invalid', `${column} takes a JSON object.`, column);
      }
    default:
      return { value: raw };
  }
}

const platformSchemas = (PlatformOptions as unknown as JsonSchema).properties ?? {};

/** The object form of an option (itself, or the object member of a union). */
function objectOf(schema: JsonSchema): JsonSchema | undefined {
  return schema.anyOf ? schema.anyOf.find((s) => typeOf(s) === 'object') : schema;
}

/** A CSV record (header → cell) as a JSON row, with the errors of columns Herald does not know. */
export function rowFromRecord(record: Record<string, string>): { row: Record<string, unknown>; errors: RowError[] } {
  const row: Record<string, unknown> = {};
  const errors: RowError[] = [];
  const options: Record<string, Record<string, unknown>> = {};
  const metadata: Record<string, string> = {};
  for (const [header, cell] of Object.entries(record)) {
    const raw = cell.trim();
    if (raw === '') continue; // an empty cell says nothing
    const column = COLUMN_ALIASES[header.trim().toLowerCase()] ?? header.trim().toLowerCase();
    if (TEXT_COLUMNS.has(column)) row[column] = column === 'content' ? cell : raw;
    else if (LIST_COLUMNS.has(column)) row[column] = raw.split(/[\s,|]+/).filter(Boolean);
    else if (column === 'media_urls') row[column] = raw.split(/[\s|]+/).filter(Boolean);
    else if (column.startsWith('metadata.') && column.length > 'metadata.'.length)
      metadata[header.trim().slice('metadata.'.length)] = raw;
    else {
      const [platform, option, ...rest] = column.split('.');
      const schema = platformSchemas[platform ?? '']?.properties?.[option ?? ''];
      if (!schema || rest.length > 0) {
        errors.push(
          error(
            'unknown_column',
            `Herald does not know the column "${header}": see docs/queues.md "Bulk import" for the columns.`,
            header,
          ),
        );
        continue;
      }
      const converted = cellValue(schema, raw, column);
      if ('code' in converted) errors.push({ ...converted, platform: platform! });
      else (options[platform!] ??= {})[option!] = converted.value;
    }
  }
  if (Object.keys(options).length > 0) row.platform_options = options;
  if (Object.keys(metadata).length > 0) row.metadata = metadata;
  return { row, errors };
}

/** `/platform_options/x/reply_settings` → `x.reply_settings` (CSV) or `platform_options.x.reply_settings` (JSON). */
export function fieldOf(path: string, csv: boolean): string | null {
  const parts = path.split('/').filter(Boolean);
  if (parts.length === 0) return null;
  if (csv && parts[0] === 'platform_options') parts.shift();
  if (csv) while (parts.length > 1 && /^\d+$/.test(parts.at(-1)!)) parts.pop();
  return parts.join('.');
}

const validateRow = bodyValidator(ImportRow);

/** The row's body, or the reasons it is not one (schema errors, a missing time source, an unknown platform). */
export function convertRow(row: Record<string, unknown>, csv: boolean): ConvertedRow | { errors: RowError[] } {
  const errors: RowError[] = [];
  if (Array.isArray(row.platforms))
    for (const name of row.platforms)
      if (typeof name === 'string' && !(PLATFORM_NAMES as readonly string[]).includes(name))
        errors.push(
          error(
            'platform_unknown',
            `"${name}" is not a platform Herald publishes to (${PLATFORM_NAMES.join(', ')}).`,
            'platforms',
          ),
        );
  if (errors.length === 0 && !validateRow(row))
    for (const e of validateRow.errors ?? []) {
      const params = e.params as { additionalProperty?: string; missingProperty?: string; allowedValues?: unknown[] };
      if (e.keyword === 'additionalProperties')
        errors.push(
          error(
            'unknown_field',
            `Herald does not know the field "${params.additionalProperty}".`,
            fieldOf(`${e.instancePath}/${params.additionalProperty}`, csv),
          ),
        );
      else if (e.keyword === 'required')
        errors.push(
          error(
            'field_required',
            `${params.missingProperty} is required.`,
            fieldOf(`${e.instancePath}/${params.missingProperty}`, csv),
          ),
        );
      else if (e.instancePath === '/schedule_at')
        errors.push(
          error(
            'schedule_invalid',
            `schedule_at must be an ISO 8601 date and time, e.g. 2026-12-01T09:00:00Z.`,
            'schedule_at',
          ),
        );
      else if (e.keyword === 'enum')
        errors.push(
          error(
            'value_not_allowed',
            `${fieldOf(e.instancePath, csv)} must be one of: ${(params.allowedValues ?? []).join(', ')}.`,
            fieldOf(e.instancePath, csv),
          ),
        );
      else
        errors.push(
          error(
            'value_invalid',
            `${fieldOf(e.instancePath, csv) ?? 'The row'} ${e.message ?? 'is invalid'}.`,
            fieldOf(e.instancePath, csv),
          ),
        );
    }
  if (errors.length > 0) return { errors };
  const { media_urls: mediaUrls, ...fields } = row as ImportRow;
  const connections = fields.connection_ids ?? [];
  if (fields.platforms === undefined && connections.length === 0)
    return {
      errors: [error('field_required', 'Name the platforms or the connection ids to publish to.', 'platforms')],
    };
  const body = { ...fields, platforms: fields.platforms ?? [] } as CreatePostBody;
  return { body, mediaUrls: mediaUrls ?? [], needsPlatformsFrom: fields.platforms === undefined ? connections : null };
}
