// Fastify's schema compiler: bodies through the strict body validator, everything else through the coercing
// one (both in src/app/validation.ts, shared with the MCP tools).
import type { FastifySchemaCompiler } from 'fastify';
import { bodyValidator, textValidator } from '../app/validation.ts';

export function createValidatorCompiler(): FastifySchemaCompiler<object> {
  return ({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyValidator(schema) : textValidator(schema)) as ReturnType<FastifySchemaCompiler<object>>;
}
