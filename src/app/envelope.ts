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
    { success: Type.Literal(true), data, request_id: Type.String() },
    description ? { description } : {},
  );
}

export function ListOf<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    next_cursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as `cursor` to get the next page; null on the last page.',
    }),
    has_more: Type.Boolean(),
  });
}

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 in UTC with `Z`.' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
