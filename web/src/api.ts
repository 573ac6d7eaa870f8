// How the dashboard reaches Herald: the official client (clients/typescript) over /v1 with the session cookie
// instead of a key, plus the sign-in calls under /app/api (docs/dashboard.md "Sign-in"). Nothing else talks to the
// server.
import { createHerald, HeraldError, type components, type Herald } from '@herald/client';

export { HeraldError };

export interface SessionUser {
  id: string;
  email: string;
  name: string | null;
}

export interface MeWorkspace {
  id: string;
  name: string;
  mode: 'live' | 'test';
  role: 'owner' | 'admin' | 'member';
  brands: Array<{ id: string; name: string }>;
}

export interface Me {
  object: 'me';
  user: SessionUser;
  principal: 'session' | 'api_key';
  workspaces: MeWorkspace[];
  scopes: string[];
}

let csrfToken = '';

/** The session's CSRF token, sent on every mutating /v1 and /app/api call. */
export function setCsrfToken(token: string): void {
  csrfToken = token;
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The client's fetch for a signed-in browser: the cookie is the credential, so the client's `Authorization`
 * header is dropped (a request with both is refused), and mutating calls to Herald carry the CSRF header. Signed
 * upload URLs (another origin with S3) get neither.
 */
export function sessionFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const url = new URL(request.url);
  if (url.origin === location.origin && url.pathname.startsWith('/v1/')) {
    request.headers.delete('authorization');
    if (MUTATING.has(request.method)) request.headers.set('x-csrf-token', csrfToken);
  }
  return fetch(request, { credentials: 'same-origin' });
}

/** A client bound to one workspace (and optionally one brand), as every page uses it. */
export function heraldFor(workspaceId: string | undefined, brandId?: string): Herald {
  return createHerald({
    baseUrl: location.origin,
    // Never sent: sessionFetch removes the header the client builds from it.
    apiKey: 'session',
    ...(workspaceId ? { workspaceId } : {}),
    ...(brandId ? { brandId } : {}),
    fetch: sessionFetch,
    retry: { maxRetries: 2 },
  });
}

/** A scope name and a member role, as the generated client schema spells them. */
export type Scope = components['schemas']['CreateKeyBody']['scopes'][number];
export type Role = components['schemas']['UpdateMemberBody']['role'];

async function sessionCall(method: string, path: string, body?: unknown): Promise<unknown> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new HeraldError({ status: 0, code: 'CLIENT_NETWORK_ERROR', message: (error as Error).message });
  }
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: HeraldError.from reports the status.
  }
  if (!response.ok) throw HeraldError.from(response, parsed);
  const envelope = parsed as { data?: unknown } | undefined;
  return envelope && typeof envelope === 'object' && 'data' in envelope ? envelope.data : envelope;
}

export interface Session {
  user: SessionUser;
  csrf_token: string;
}

/** The boot call: the signed-in session, or undefined when there is none (401). */
export async function currentSession(): Promise<Session | undefined> {
  try {
    return (await sessionCall('GET', '/app/api/session')) as Session;
  } catch (error) {
    if (error instanceof HeraldError && error.status === 401) return undefined;
    throw error;
  }
}

export async function signIn(email: string, password: string): Promise<Session> {
  return (await sessionCall('POST', '/app/api/session', { email, password })) as Session;
}

export async function signOut(): Promise<void> {
  await sessionCall('DELETE', '/app/api/session');
}

export interface InviteInfo {
  email: string;
  role: string;
  workspace: { id: string; name: string };
  expires_at: string;
  /** The invited email already has an account: accepting takes its existing password. */
  has_account: boolean;
}

export async function inviteInfo(token: string): Promise<InviteInfo> {
  return (await sessionCall('GET', `/app/api/invites/${encodeURIComponent(token)}`)) as InviteInfo;
}

export async function acceptInvite(token: string, name: string | undefined, password: string): Promise<Session> {
  return (await sessionCall('POST', `/app/api/invites/${encodeURIComponent(token)}/accept`, {
    ...(name ? { name } : {}),
    password,
  })) as Session;
}

/** Any failure in words: the message, its code and the request id to quote when asking for help. */
export function describeError(error: unknown): { message: string; code: string; requestId: string | null } {
  if (error instanceof HeraldError) {
    // A single detail often repeats the message (the server uses it as the message): only its path is added.
    const details = error.details
      .map((d) => (d.message === error.message ? (d.path ?? '') : d.path ? `${d.path}: ${d.message}` : d.message))
      .filter(Boolean)
      .join('; ');
    return {
      message: details ? `${error.message} (${details})` : error.message,
      code: error.code,
      requestId: error.request_id,
    };
  }
  return { message: error instanceof Error ? error.message : String(error), code: 'CLIENT_ERROR', requestId: null };
}
