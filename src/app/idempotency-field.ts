// `idempotency_key` as a body field, for callers that cannot send the Idempotency-Key header (custom GPT actions;
// docs/api.md "Writes without an Idempotency-Key"). A route that declares it sets `idempotencyField` in its
// access (src/http/context.ts); the access pipeline takes it out of the body before validation.
import { Type } from 'typebox';

export const IdempotencyKeyField = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 255,
    description:
      'Stands for the Idempotency-Key header, for callers that cannot send headers: a retry with the same value returns the first answer for 24 h.',
  }),
);
