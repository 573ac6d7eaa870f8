// Client ID Metadata Documents: a client whose client_id is an https URL, described by the JSON at that URL.
// The document is checked (its own URL as client_id, no secret, exact redirect URIs) and fetched through the
// SSRF guard; an accepted client then goes through consent and the token endpoint like any other.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sha256 } from '../src/lib/crypto.ts';
import {
  ClientDocumentError,
  resolveClientDocument,
  type DocumentFetcher,
} from '../src/features/oauth/client-documents.ts';
import { Browser, consent, createPerson, listenTestApp, type ListeningApp } from './helpers/oauth.ts';

let t: ListeningApp;
const CLIENT = 'https://assistant.example/oauth/client.json';
const REDIRECT = 'https://assistant.example/oauth/callback';
const person = { email: 'kim@example.com', password: 'kim picks a long one' };

before(async () => {
  t = await listenTestApp();
  await createPerson(t, person.email, person.password, [{ workspaceId: t.owner.workspaceId }]);
});
after(() => t.close());

function serving(
  document: unknown,
  options: { status?: number; contentType?: string } = {},
): DocumentFetcher & { calls: number } {
  const fetcher = Object.assign(
    async () => {
      fetcher.calls++;
      return {
        status: options.status ?? 200,
        contentType: options.contentType ?? 'application/json',
        body: Buffer.from(JSON.stringify(document)),
        truncated: false,
      };
    },
    { calls: 0 },
  );
  return fetcher;
}

const goodDocument = (id = CLIENT) => ({
  client_id: id,
  client_name: 'Example Assistant',
  redirect_uris: [REDIRECT],
  token_endpoint_auth_method: 'none',
});
const resolve = (id: string, fetcher: DocumentFetcher, now = new Date()) =>
  resolveClientDocument(t.container.pool, id, fetcher, now);

describe('checking a document', () => {
  test('a valid document becomes a public client, kept a few minutes before it is fetched again', async () => {
    const id = 'https://one.example/client';
    const fetcher = serving(goodDocument(id));
    const client = await resolve(id, fetcher);
    assert.equal(client.kind, 'cimd');
    assert.equal(client.name, 'Example Assistant');
    assert.equal(client.token_endpoint_auth_method, 'none');
    await resolve(id, fetcher, new Date(Date.now() + 60_000));
    assert.equal(fetcher.calls, 1, 'fresh copy reused');
    await resolve(id, fetcher, new Date(Date.now() + 6 * 60_000));
    assert.equal(fetcher.calls, 2, 'fetched again later');
  });

  const refusals: Array<[string, string, DocumentFetcher, RegExp]> = [
    [
      'a document naming another client_id',
      'https://two.example/c',
      serving(goodDocument('https://elsewhere.example/c')),
      /does not name its own URL/,
    ],
    [
      'a document with a secret',
      'https://two.example/c',
      serving({ ...goodDocument('https://two.example/c'), client_secret: 'x' }),
      /client secret/,
    ],
    [
      'a confidential auth method',
      'https://two.example/c',
      serving({ ...goodDocument('https://two.example/c'), token_endpoint_auth_method: 'client_secret_post' }),
      /must use token_endpoint_auth_method "none"/,
    ],
    [
      'an http redirect URI',
      'https://two.example/c',
      serving({ ...goodDocument('https://two.example/c'), redirect_uris: ['http://two.example/cb'] }),
      /must use https/,
    ],
    ['a 404', 'https://two.example/c', serving({}, { status: 404 }), /HTTP 404/],
    [
      'HTML',
      'https://two.example/c',
      serving(goodDocument('https://two.example/c'), { contentType: 'text/html' }),
      /not JSON/,
    ],
    ['a URL without a path', 'https://two.example', serving({}), /must have a path/],
    ['a URL with dot segments', 'https://two.example/a/../c', serving({}), /normal form|segments/],
  ];
  for (const [what, id, fetcher, message] of refusals) {
    test(`${what} is refused with a reason`, async () => {
      await assert.rejects(
        resolve(id, fetcher),
        (error: Error) =>
          error instanceof ClientDocumentError && message.test(`${error.message} (${error.reason ?? ''})`),
      );
    });
  }
});

describe('through the authorization server', () => {
  test('metadata advertises client ID metadata documents', async () => {
    const meta = (await (await fetch(`${t.baseUrl}/.well-known/oauth-authorization-server`)).json()) as {
      client_id_metadata_document_supported: boolean;
    };
    assert.equal(meta.client_id_metadata_document_supported, true);
  });

  test('a document on a private address is never fetched: the person sees why', async () => {
    const url = new URL('/oauth/authorize', t.baseUrl);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: 'https://127.0.0.1/client.json',
      redirect_uri: REDIRECT,
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'S256',
      resource: `${t.baseUrl}/mcp`,
    }).toString();
    const res = await new Browser(t.baseUrl).request('GET', url.href);
    assert.equal(res.status, 400);
    assert.match(res.text, /could not fetch the application&#39;s metadata document/);
  });

  test('an accepted document client consents, exchanges its code without a secret, and is named in the key list', async () => {
    await resolve(CLIENT, serving(goodDocument()));
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL('/oauth/authorize', t.baseUrl);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: CLIENT,
      redirect_uri: REDIRECT,
      code_challenge: sha256(verifier).toString('base64url'),
      code_challenge_method: 'S256',
      resource: `${t.baseUrl}/mcp`,
      state: 'cimd',
      scope: 'posts:read',
    }).toString();
    const { redirect, page } = await consent(new Browser(t.baseUrl), url, person);
    assert.match(page, /Identified by <code>https:\/\/assistant\.example\/oauth\/client\.json<\/code>/);
    const res = await fetch(`${t.baseUrl}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: CLIENT,
        code: redirect.searchParams.get('code')!,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        resource: `${t.baseUrl}/mcp`,
      }),
    });
    assert.equal(res.status, 200);
    const tokens = (await res.json()) as { access_token: string; scope: string };
    assert.equal(tokens.scope, 'posts:read');
    const { rows } = await t.container.pool.query(
      `SELECT c.name FROM api_keys k JOIN oauth_grants g ON g.id = k.grant_id JOIN oauth_clients c ON c.id = g.client_id WHERE k.token_hash = $1`,
      [sha256(tokens.access_token)],
    );
    assert.deepEqual(rows, [{ name: 'Example Assistant' }]);
  });
});
