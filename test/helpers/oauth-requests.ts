// Shared by the OAuth authorization server tests (oauth-authorization, oauth-tokens): the person who consents, the
// client's redirect URI, and the requests a client makes, bound to the file's listening app.
import { randomBytes } from 'node:crypto';
import { sha256 } from '../../src/lib/crypto.ts';
import { Browser, consent, type ConsentChoice, type ListeningApp } from './oauth.ts';

export const person = { email: 'robin@example.com', password: 'a long enough password' };
export const REDIRECT = 'http://127.0.0.1:43110/cb';

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: sha256(verifier).toString('base64url') };
}

/** The file's app is read when a request is made (it is set in `before`); the resource is its /mcp. */
export function oauthRequests(app: () => ListeningApp) {
  const mcp = () => `${app().baseUrl}/mcp`;

  async function post(path: string, body: Record<string, string> | string, headers: Record<string, string> = {}) {
    const isForm = typeof body !== 'string';
    const res = await fetch(`${app().baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': isForm ? 'application/x-www-form-urlencoded' : 'application/json', ...headers },
      body: isForm ? new URLSearchParams(body).toString() : body,
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  }

  async function register(metadata: Record<string, unknown> = {}) {
    return post(
      '/oauth/register',
      JSON.stringify({
        client_name: 'Tester',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        ...metadata,
      }),
    );
  }

  function authorizeUrl(clientId: string, challenge: string, extra: Record<string, string | undefined> = {}): string {
    const params: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'st-123',
      resource: mcp(),
      scope: 'posts:read posts:write',
      ...extra,
    };
    const url = new URL('/oauth/authorize', app().baseUrl);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
    return url.href;
  }

  /** Registers a client and runs the person through consent; returns what a token request needs. */
  async function obtainCode(choice: Partial<ConsentChoice> = {}, extra: Record<string, string> = {}) {
    const client = (await register()).body as { client_id: string };
    const { verifier, challenge } = pkce();
    const { redirect, page } = await consent(
      new Browser(app().baseUrl),
      authorizeUrl(client.client_id, challenge, extra),
      {
        ...person,
        ...choice,
      },
    );
    return { clientId: client.client_id, verifier, code: redirect.searchParams.get('code')!, redirect, page };
  }

  const exchange = (o: { clientId: string; code: string; verifier: string }, extra: Record<string, string> = {}) =>
    post('/oauth/token', {
      grant_type: 'authorization_code',
      client_id: o.clientId,
      code: o.code,
      code_verifier: o.verifier,
      redirect_uri: REDIRECT,
      resource: mcp(),
      ...extra,
    });

  const v1 = (token: string) =>
    fetch(`${app().baseUrl}/v1/workspaces`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);

  return { post, register, authorizeUrl, obtainCode, exchange, v1 };
}
