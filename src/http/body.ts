// Request bodies: JSON only, decoded strictly (invalid UTF-8 is an error, not silently replaced, and so is a
// lone UTF-16 surrogate spelled as a `\uD800` escape), protected against prototype poisoning and absurd nesting.
// Action routes also accept no body or `{}` without a Content-Type; anything else that is not JSON gets 415.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import sjson from 'secure-json-parse';
import { AppError, type ErrorDetail } from '../app/errors.ts';
import { jsonDepthExceeds } from '../lib/canonical-json.ts';

const MAX_DEPTH = 32;
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
/** A `\uD800`–`\uDFFF` escape: the only way a lone surrogate gets into text decoded from strict UTF-8. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** JSON Pointer (RFC 6901) of a path, as `details[].path` spells them. */
function pointer(path: readonly string[]): string {
  return path.map((p) => `/${p.toWellFormed().replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/**
 * Every string (and property name) that is not well-formed UTF-16. PostgreSQL and every UTF-8 encoder would
 * silently store U+FFFD in its place, so the text the caller validated is not the text kept: refuse it instead.
 */
function illFormedStrings(value: unknown, path: string[], found: ErrorDetail[]): void {
  if (found.length >= 50) return;
  if (typeof value === 'string') {
    if (!value.isWellFormed()) found.push({ path: pointer(path), message: 'Text with a lone UTF-16 surrogate.' });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => illFormedStrings(item, [...path, String(i)], found));
  } else if (value !== null && typeof value === 'object') {
    for (const [name, item] of Object.entries(value)) {
      if (!name.isWellFormed())
        found.push({ path: pointer(path), message: 'A property name with a lone UTF-16 surrogate.' });
      illFormedStrings(item, [...path, name], found);
    }
  }
}

export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  let text: string;
  try {
    text = decoder.decode(raw);
  } catch {
    throw new AppError('PUBLIC_API_BODY_INVALID', 'The body is not valid UTF-8.');
  }
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    throw new AppError('PUBLIC_API_BODY_INVALID', `The body is not valid JSON: ${(error as Error).message}`);
  }
  if (jsonDepthExceeds(value, MAX_DEPTH))
    throw new AppError('PUBLIC_API_BODY_INVALID', `The body nests deeper than ${MAX_DEPTH} levels.`);
  if (SURROGATE_ESCAPE.test(text)) {
    const found: ErrorDetail[] = [];
    illFormedStrings(value, [], found);
    if (found.length > 0)
      throw new AppError(
        'PUBLIC_API_BODY_INVALID',
        `The body is not valid Unicode: a lone UTF-16 surrogate escape (\\uD800–\\uDFFF without its pair) at ${found
          .slice(0, 5)
          .map((d) => d.path || '/')
          .join(', ')}.`,
        { details: found },
      );
  }
  return value;
}

export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const json = async (_request: FastifyRequest, body: Buffer) => parseJsonBody(body);
  app.addContentTypeParser(['application/json', 'application/merge-patch+json'], { parseAs: 'buffer' }, json);
  app.addContentTypeParser('*', { parseAs: 'buffer' }, async (request: FastifyRequest, body: Buffer) => {
    if (body.length === 0) return undefined;
    // No route matched: the not-found handler answers 404 or 405, whatever the body is.
    if (request.is404) return undefined;
    if (request.routeOptions.config.access?.actionBody) return parseJsonBody(body);
    throw new AppError(
      'PUBLIC_API_UNSUPPORTED_MEDIA_TYPE',
      `Send JSON with Content-Type: application/json (got ${request.headers['content-type'] ?? 'no Content-Type'}).`,
    );
  });
}
