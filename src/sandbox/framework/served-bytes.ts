// How a simulator serves bytes a client uploaded (media, blobs, documents): from Herald's own origin, so the browser
// must never sniff them into something else, and a sandboxed CSP keeps any page they might be from running script.
import type { FastifyReply } from 'fastify';

/** The headers of every response carrying uploaded bytes, cacheable for `maxAgeSeconds`. */
export function uploadedBytesHeaders(maxAgeSeconds: number, immutable = false): Record<string, string> {
  return {
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; sandbox",
    'cache-control': `public, max-age=${maxAgeSeconds}${immutable ? ', immutable' : ''}`,
  };
}

/**
 * Sets the type of uploaded bytes: images and videos as themselves, anything else as an opaque download (what a
 * client declared is not to be trusted with Herald's origin).
 */
export function typeUploadedBytes(reply: FastifyReply, type: string | undefined): FastifyReply {
  if (type !== undefined && /^(image|video)\//.test(type)) return reply.type(type);
  return reply.type('application/octet-stream').header('content-disposition', 'attachment');
}
