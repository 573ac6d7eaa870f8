// Helpers the Instagram and Threads adapter tests share: the PlatformError a promise fails with, a sandbox
// account connected through the adapter's own sign-in as a session, and the authorize → consent page → decision
// round trip of the OAuth simulators.
import assert from 'node:assert/strict';
import type { PlatformHttp } from '../../src/platforms/http-contract.ts';
import {
  isPlatformError,
  type OAuthContext,
  type PlatformAdapter,
  type PlatformError,
  type PlatformSession,
} from '../../src/platforms/types.ts';

/** The PlatformError the promise fails with (asserted). */
export async function failure(promise: Promise<unknown>): Promise<PlatformError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(isPlatformError(error), `expected a PlatformError, got ${String(error)}`);
  return error;
}

/** A sandbox account connected with the adapter's sandbox sign-in, as a session on `http`. */
export async function sandboxSession(
  adapter: PlatformAdapter,
  http: PlatformHttp,
  username: string,
  connectionId: string,
): Promise<PlatformSession> {
  const { account: acc, credentials } = await adapter.connectSandbox(http, { username });
  return {
    connection: {
      id: connectionId,
      accountId: acc.accountId,
      handle: acc.handle,
      baseUrl: http.baseUrl,
      settings: {},
      sandbox: true,
    },
    credentials,
    http,
    clock: { now: () => new Date() },
  };
}

/** Authorize, check the consent page, then decide as `username`: the redirect back (asserted to be a 302). */
export async function consentRedirect(
  adapter: PlatformAdapter,
  ctx: OAuthContext,
  options: {
    state: string;
    username: string;
    decision: 'approve' | 'deny';
    checkPage(page: { status: number; text(): string }): void;
  },
): Promise<URL> {
  const url = new URL(adapter.oauth!.authorizeUrl(ctx, { state: options.state, codeChallenge: null }));
  const page = await ctx.http.request({ method: 'GET', path: url.toString() });
  options.checkPage(page);
  url.searchParams.set('sandbox_username', options.username);
  url.searchParams.set('decision', options.decision);
  const back = await ctx.http.request({ method: 'GET', path: url.toString() });
  assert.equal(back.status, 302);
  return new URL(String(back.headers.location));
}
