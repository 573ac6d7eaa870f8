// The response envelope (docs/api.md "Envelope"): `{ success, data, request_id }` or
// `{ success, error, request_id }`, and the TypeBox schemas that describe it in the OpenAPI document.
import { Type, type TSchema, type TUnsafe } from 'typebox';
import { ERROR_CATALOGUE, type ErrorCode, type ErrorDetail } from './errors.ts';

/**
 * A string enum as plain JSON Schema (`type: string, enum: [...]`), which reads better in OpenAPI than anyOf of consts.
 */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: Record<string, unknown> = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/**
 * A list filter of enumerated values (`status=scheduled,failed` or `status=scheduled&status=failed`): an array of
 * the enum, which the route's `listQuery(name)` hook (src/http/query.ts) builds from either spelling.
 */
export function EnumList<const T extends readonly string[]>(values: T, description: string) {
  return Type.Array(StringEnum(values), { minItems: 1, maxItems: values.length * 2, description });
}

export function successBody(requestId: string, data: unknown): { success: true; data: unknown; request_id: string } {
  return { success: true, data, request_id: requestId };
}

export function errorBody(
  requestId: string,
  code: ErrorCode,
  message: string,
  docsBaseUrl: string,
  details?: ErrorDetail[],
): Record<string, unknown> {
  const error: Record<string, unknown> = {
    code,
    message,
    retryable: ERROR_CATALOGUE[code].retryable,
    doc_url: `${docsBaseUrl}/docs/errors#${code}`,
  };
  if (details && details.length > 0) error.details = details.slice(0, 50);
  return { success: false, error, request_id: requestId };
}

export const ErrorDetailSchema = Type.Object(
  {
    path: Type.Optional(Type.String({ description: 'JSON Pointer to the offending input, e.g. `/platforms/0`.' })),
    message: Type.String(),
    platform: Type.Optional(Type.String({ description: 'For platform rules: the platform whose rule failed.' })),
    rule: Type.Optional(Type.String({ description: 'For rule failures: a stable snake_case rule name.' })),
  },
  { additionalProperties: true },
);

export const ErrorEnvelopeSchema = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({
      code: StringEnum(Object.keys(ERROR_CATALOGUE), {
        description: 'A code of the error catalogue (see /docs/errors).',
      }),
      message: Type.String(),
      details: Type.Optional(Type.Array(ErrorDetailSchema)),
      retryable: Type.Boolean(),
      doc_url: Type.String({ format: 'uri' }),
    }),
    request_id: Type.String({ examples: ['req_3Jx9s0AqLZr6b2Vd'] }),
  },
  { $id: 'ErrorEnvelope', title: 'Error envelope' },
);

export function Envelope<T extends TSchema>(data: T, description?: string) {
  return Type.Object(
    {
      success: Type.Literal(true),
      data,
      request_id: Type.String({ examples: ['req_3Jx9s0AqLZr6b2Vd'] }),
      replayed: Type.Optional(
        Type.Literal(true, {
          description:
            'Only for `actions` keys: this write repeated an earlier one, which was not done again; `data` is its answer.',
        }),
      ),
    },
    description ? { description } : {},
  );
}

/**
 * Names a schema: the OpenAPI document lists it as `#/components/schemas/<name>` (src/http/openapi.ts hoists every
 * schema whose `title` is a PascalCase name) and uses `example` for every operation that sends or returns it.
 * Request bodies and the `data` of responses must be named (test/openapi.test.ts fails on an inline object).
 */
export function named<T extends TSchema>(name: string, schema: T, example?: unknown): T {
  if (!SCHEMA_NAME.test(name)) throw new Error(`Schema name ${name} is not PascalCase`);
  return Object.assign(schema, { title: name }, example === undefined ? {} : { examples: [example] });
}

/** A name as the OpenAPI document's components use it. */
export const SCHEMA_NAME = /^[A-Z][A-Za-z0-9]*$/;

/** The component name of a schema: its `$ref`/`$id` (shared schemas) or its PascalCase `title` (`named`). */
export function schemaName(schema: TSchema): string | undefined {
  const s = schema as { $ref?: string; $id?: string; title?: string };
  const name = s.$ref?.replace(/^#\/components\/schemas\//, '') ?? s.$id ?? s.title;
  return name !== undefined && SCHEMA_NAME.test(name) ? name : undefined;
}

/** A page of a list, named `<Item>Page` after its item (which must be named). */
export function ListOf<T extends TSchema>(item: T) {
  const name = schemaName(item);
  if (!name) throw new Error('ListOf needs a named item schema (Type.Ref, or named())');
  return Type.Object(
    {
      items: Type.Array(item),
      next_cursor: Type.Union([Type.String(), Type.Null()], {
        description: 'Pass as `cursor` to get the next page; null on the last page.',
      }),
      has_more: Type.Boolean(),
    },
    { title: `${name}Page`, description: `A page of ${name} items, newest first unless sorted otherwise.` },
  );
}

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 in UTC with `Z`.' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
