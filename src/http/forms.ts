// What server-rendered pages and the OAuth endpoints need besides JSON: cookies (@fastify/cookie) and
// application/x-www-form-urlencoded bodies (@fastify/formbody), each added to the encapsulated contexts that
// accept them, never to /v1.
import fastifyCookie, { type CookieSerializeOptions } from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../app/errors.ts';

export type FormBody = Record<string, string | string[]>;

/**
 * Parses a urlencoded body; a repeated field (checkboxes) becomes an array. The WHATWG parser (URLSearchParams,
 * as browsers encode forms) rather than formbody's default fast-querystring, which has the same output shape but
 * keeps a whole value undecoded when one escape in it is malformed, and lets NUL through.
 */
export function parseForm(text: string): FormBody {
  const out: FormBody = Object.create(null) as FormBody;
  for (const [key, value] of new URLSearchParams(text)) {
    if (key.includes('\u0000') || value.includes('\u0000'))
      throw new AppError('PUBLIC_API_BODY_INVALID', 'The form contains a NUL character.');
    const seen = out[key];
    if (seen === undefined) out[key] = value;
    else out[key] = Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

/** One value of a form field; undefined when absent or sent more than once (ambiguous). */
export function formField(body: unknown, name: string): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const value = (body as FormBody)[name];
  return typeof value === 'string' ? value : undefined;
}

export function formFields(body: unknown, name: string): string[] {
  if (!body || typeof body !== 'object') return [];
  const value = (body as FormBody)[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** Adds @fastify/formbody to an encapsulated context (bodies up to `limit` bytes, parsed by parseForm). */
export async function acceptForms(app: FastifyInstance, limit = 64 * 1024): Promise<void> {
  await app.register(fastifyFormbody, { bodyLimit: limit, parser: parseForm });
}

/** Adds @fastify/cookie to an encapsulated context: request.cookies, reply.setCookie and reply.clearCookie. */
export async function acceptCookies(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCookie);
}

/** A cookie of the request (the first one of that name, percent-decoded), in a context that accepts cookies. */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const jar = request.cookies as FastifyRequest['cookies'] | null | undefined;
  if (!jar) throw new Error(`Cookie ${name} read in a context without @fastify/cookie (call acceptCookies).`);
  return jar[name];
}

export interface CookieOptions {
  maxAgeSeconds: number;
  secure: boolean;
}

/** Herald's cookie attributes: HttpOnly, SameSite=Lax, Path=/, Max-Age, Secure on https. */
export function cookieOptions(options: CookieOptions): CookieSerializeOptions {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    maxAge: Math.max(0, Math.floor(options.maxAgeSeconds)),
    secure: options.secure,
  };
}

/** Sets a cookie with Herald's attributes (written as Set-Cookie when the reply is sent). */
export function setCookie(reply: FastifyReply, name: string, value: string, options: CookieOptions): FastifyReply {
  return reply.setCookie(name, value, cookieOptions(options));
}

/** Removes a cookie: the same attributes (a `__Host-` cookie must stay Secure with Path=/), Max-Age=0. */
export function clearCookie(reply: FastifyReply, name: string, secure: boolean): FastifyReply {
  return reply.clearCookie(name, cookieOptions({ maxAgeSeconds: 0, secure }));
}

/**
 * Cookie names: with https, the `__Host-` prefix makes browsers refuse the cookie unless it is Secure, host-only
 * and for Path=/, so a sibling subdomain cannot plant or shadow it.
 */
export function cookieName(base: string, secure: boolean): string {
  return secure ? `__Host-${base}` : base;
}
