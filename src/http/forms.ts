// What server-rendered pages and the OAuth endpoints need besides JSON: cookies and
// application/x-www-form-urlencoded bodies (parsed in the encapsulated contexts that accept them).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../app/errors.ts';

export type FormBody = Record<string, string | string[]>;

/** Parses a urlencoded body; a repeated field (checkboxes) becomes an array. */
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

/** Adds the urlencoded parser to an encapsulated context (bodies up to `limit` bytes). */
export function acceptForms(app: FastifyInstance, limit = 64 * 1024): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: limit },
    (_request, body, done) => {
      try {
        done(null, parseForm(body as string));
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
}

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      try {
        return decodeURIComponent(value);
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export interface CookieOptions {
  maxAgeSeconds: number;
  secure: boolean;
}

/** A Set-Cookie value: HttpOnly, SameSite=Lax, Path=/, Secure on https. */
export function cookie(name: string, value: string, options: CookieOptions): string {
  const parts = [
    `${name}=${encodeURIComponent(value)}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`,
  ];
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}

/**
 * Cookie names: with https, the `__Host-` prefix makes browsers refuse the cookie unless it is Secure, host-only
 * and for Path=/, so a sibling subdomain cannot plant or shadow it.
 */
export function cookieName(base: string, secure: boolean): string {
  return secure ? `__Host-${base}` : base;
}
