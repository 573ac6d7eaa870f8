// Request bodies: JSON only, decoded strictly (invalid UTF-8 is an error, not silently replaced), protected
// against prototype poisoning and absurd nesting. Action routes also accept no body or `{}` without a
// Content-Type; anything else that is not JSON gets 415.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import sjson from 'secure-json-parse';
import { AppError } from '../app/errors.ts';
import { jsonDepthExceeds } from '../lib/canonical-json.ts';

const MAX_DEPTH = 32;
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

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
