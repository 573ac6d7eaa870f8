// Route handlers take the types of request.body, params and querystring from the route's TypeBox schemas, through
// @fastify/type-provider-typebox. Validation stays Herald's own Ajv compiler (validation.ts): this is types only.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyTypeProvider } from 'fastify';

/** What TypeBoxTypeProvider infers for a request part validated by `Schema` (Fastify calls providers this way). */
type TypeBoxRequestType<Schema> = (TypeBoxTypeProvider & { schema: Schema })['validator'];

/**
 * TypeBox's inference for requests; replies untyped. A handler returns the bare data and the preSerialization hook
 * wraps it in the envelope (mutations send a finished string), so the response schemas describe the wire, not
 * what a handler returns, and TypeBoxTypeProvider's reply typing would reject every handler.
 */
export interface HeraldTypeProvider extends FastifyTypeProvider {
  validator: TypeBoxRequestType<this['schema']>;
  serializer: unknown;
}

/** The same instance, its routes typed from their schemas. */
export function typed(app: FastifyInstance) {
  return app.withTypeProvider<HeraldTypeProvider>();
}

/**
 * What Fastify's query-string parser gives a route that declares no querystring schema (hidden pages and OAuth
 * endpoints, which read their parameters themselves): a repeated key becomes an array.
 */
export type RawQuerystring = Record<string, string | string[] | undefined>;
