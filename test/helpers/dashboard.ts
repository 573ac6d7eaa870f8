// Signing in as the dashboard does (POST /app/api/session) and calling /v1 with the session cookie and its CSRF
// token, for the dashboard-*.test.ts files.
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import assert from 'node:assert/strict';
import type { TestApp } from './app.ts';

export interface Session {
  cookie: string;
  csrf: string;
  userId: string;
  /** A /v1 (or /app/api) call with the cookie; writes carry the CSRF token and an Idempotency-Key unless told. */
  call(o: InjectOptions & { csrf?: string | false; idem?: string | false }): Promise<LightMyRequestResponse>;
}

export async function signInSession(t: TestApp, email: string, password: string): Promise<Session> {
  const res = await t.app.inject({ method: 'POST', url: '/app/api/session', payload: { email, password } });
  assert.equal(res.statusCode, 200, res.body);
  const cookie = res.cookies.find((c) => c.name === 'herald_session')!;
  const { csrf_token: csrf, user } = res.json().data;
  return sessionOf(t, `herald_session=${cookie.value}`, csrf, user.id);
}

export function sessionOf(t: TestApp, cookie: string, csrf: string, userId: string): Session {
  return {
    cookie,
    csrf,
    userId,
    call(o) {
      const { csrf: given, idem, ...rest } = o;
      const headers: Record<string, string> = { cookie, ...(rest.headers as Record<string, string> | undefined) };
      const method = String(rest.method ?? 'GET').toUpperCase();
      if (method !== 'GET' && given !== false) headers['x-csrf-token'] ??= given ?? csrf;
      return t.inject({ ...rest, headers, idem } as InjectOptions & { idem?: string | false });
    },
  };
}
