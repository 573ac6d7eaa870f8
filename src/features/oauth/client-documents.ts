// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, preferred by MCP 2025-11-25 over
// dynamic registration): a client whose client_id is an https URL is described by the JSON document at that
// URL. Herald fetches it through the SSRF guard when a person is asked to consent, keeps the accepted metadata,
// and uses the stored copy at the token endpoint. Such clients are public: no secret can be shared with them.
// The fetch happens before anyone signs in, so each URL is fetched at most once a minute whatever the outcome
// (cachedDocumentFetcher), and until the answer proves to be this client's document the person is told one
// generic reason: the page must not tell an outsider how an address answered (refused, closed, silent, not TLS).
import type { Queryable } from '../../db/pool.ts';
import { outboundRequest } from '../../lib/outbound.ts';
import type { OutboundGuard } from '../../lib/ssrf.ts';
import * as repo from './clients.repo.ts';
import type { ClientRow } from './clients.repo.ts';
import type { OAuthError } from './oauth-error.ts';
import { validateClientMetadata } from './clients.service.ts';

/** A document fetched at most this often while people keep consenting; refreshes use the stored copy. */
const FRESH_MS = 5 * 60_000;
const MAX_BYTES = 16 * 1024;

export interface FetchedDocument {
  status: number;
  contentType: string | undefined;
  body: Buffer;
  truncated: boolean;
}

export type DocumentFetcher = (url: URL) => Promise<FetchedDocument>;

/**
 * Why an authorization cannot go on with this client: `message` is shown to the person, never redirected;
 * `reason`, when set, is the detail kept for the operator's log (what the address answered).
 */
export class ClientDocumentError extends Error {
  readonly reason: string | undefined;
  constructor(message: string, reason?: string) {
    super(message);
    this.reason = reason;
  }
}

/** The one answer for every way the URL failed to serve a document naming itself: no port or TLS oracle. */
const NOT_FETCHED =
  "Herald could not fetch the application's metadata document. Check that its client_id URL serves the document.";

/**
 * Keeps each URL's outcome, failures included, for `ttlMs` (a pending fetch too, so a burst makes one
 * connection), in at most `maxEntries` entries (the oldest go first). No timers: entries expire when read.
 */
export function cachedDocumentFetcher(
  fetcher: DocumentFetcher,
  options: { ttlMs?: number; maxEntries?: number; now?: () => number } = {},
): DocumentFetcher {
  const { ttlMs = 60_000, maxEntries = 1000, now = Date.now } = options;
  const entries = new Map<string, { expires: number; outcome: Promise<FetchedDocument> }>();
  return (url) => {
    const key = url.href;
    const cached = entries.get(key);
    if (cached && cached.expires > now()) return cached.outcome;
    entries.delete(key);
    const outcome = fetcher(url);
    // Handled here so that a failure nobody awaits yet is not an unhandled rejection; callers get it as is.
    outcome.catch(() => {});
    entries.set(key, { expires: now() + ttlMs, outcome });
    while (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    return outcome;
  };
}

/** GET through the SSRF guard: no redirects, 5 s, 16 KiB. */
export function guardedDocumentFetcher(guard: OutboundGuard): DocumentFetcher {
  return async (url) => {
    const res = await outboundRequest({
      method: 'GET',
      url,
      headers: { accept: 'application/json' },
      timeoutMs: 5000,
      maxResponseBytes: MAX_BYTES,
      guard,
    });
    return { status: res.status, contentType: res.headers['content-type'], body: res.body, truncated: res.truncated };
  };
}

export function isClientIdUrl(clientId: string): boolean {
  return clientId.startsWith('https://');
}

/** The draft's rules for the client_id URL itself. */
export function clientIdUrlProblem(clientId: string): string | undefined {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:') return 'must use https';
  if (url.pathname === '/' || url.pathname === '') return 'must have a path';
  if (url.hash || clientId.includes('#')) return 'may not have a fragment';
  if (url.username || url.password) return 'may not carry credentials';
  if (/\/\.{1,2}(\/|$)/.test(clientId.replace(/^https:\/\/[^/]+/, ''))) return 'may not contain . or .. segments';
  if (url.href !== clientId) return 'is not in normal form';
  return undefined;
}

/**
 * The client described by the document at `clientId`: the stored copy if fetched in the last few minutes, else
 * fetched, checked and stored again. Throws ClientDocumentError with a reason the person can pass on.
 */
export async function resolveClientDocument(
  db: Queryable,
  clientId: string,
  fetcher: DocumentFetcher,
  now: Date,
): Promise<ClientRow> {
  const problem = clientIdUrlProblem(clientId);
  if (problem) throw new ClientDocumentError(`The application's client_id ${problem}.`);
  const stored = await repo.findClient(db, clientId);
  if (stored?.kind === 'cimd' && stored.fetched_at && now.getTime() - stored.fetched_at.getTime() < FRESH_MS)
    return stored;
  let fetched: FetchedDocument;
  try {
    fetched = await fetcher(new URL(clientId));
  } catch (error) {
    throw new ClientDocumentError(NOT_FETCHED, (error as Error).message);
  }
  if (fetched.status !== 200) throw new ClientDocumentError(NOT_FETCHED, `answered HTTP ${fetched.status}`);
  if (fetched.truncated) throw new ClientDocumentError(NOT_FETCHED, `larger than ${MAX_BYTES / 1024} KiB`);
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(fetched.contentType ?? ''))
    throw new ClientDocumentError(NOT_FETCHED, 'not JSON');
  let document: unknown;
  try {
    document = JSON.parse(fetched.body.toString('utf8'));
  } catch {
    throw new ClientDocumentError(NOT_FETCHED, 'not valid JSON');
  }
  const fields = document as Record<string, unknown> | null;
  if (!fields || typeof fields !== 'object' || fields.client_id !== clientId) {
    throw new ClientDocumentError(NOT_FETCHED, 'does not name its own URL as client_id');
  }
  // From here the answer is this client's own document: its problems are the client developer's to see.
  if ('client_secret' in fields || 'client_secret_expires_at' in fields)
    throw new ClientDocumentError("The application's metadata document may not contain a client secret.");
  let metadata;
  try {
    metadata = validateClientMetadata(fields, { authMethod: 'none' });
  } catch (error) {
    throw new ClientDocumentError(`The application's metadata document is invalid: ${(error as OAuthError).message}`);
  }
  if (metadata.authMethod !== 'none')
    throw new ClientDocumentError(
      'A client identified by a metadata document must use token_endpoint_auth_method "none".',
    );
  if (stored && stored.kind !== 'cimd')
    throw new ClientDocumentError('That client_id is already registered differently.');
  return repo.insertClient(db, {
    id: clientId,
    kind: 'cimd',
    name: metadata.name,
    redirect_uris: metadata.redirectUris,
    grant_types: metadata.grantTypes,
    token_endpoint_auth_method: 'none',
    secret_hash: null,
    metadata: { ...metadata.metadata, client_id: clientId },
    fetchedAt: now,
  });
}
