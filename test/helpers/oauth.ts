// Helpers for driving sign-in, consent and the OAuth flow over real HTTP: the app listening on an ephemeral
// port (its public URL is that address), a cookie-keeping browser, a person with a password, and an
// OAuthClientProvider for the MCP SDK's own client.
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { setPassword, createUser } from '../../src/features/users/users.service.ts';
import type { MemberRole } from '../../src/features/workspaces/workspaces.repo.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { buildTestApp, type TestApp } from './app.ts';
import { freePort } from './ports.ts';

export interface ListeningApp extends TestApp {
  baseUrl: string;
  clock: MovableClock;
}

export interface MovableClock extends Clock {
  advance(ms: number): void;
}

export function movableClock(): MovableClock {
  let offset = 0;
  return { now: () => new Date(Date.now() + offset), advance: (ms) => void (offset += ms) };
}

/** The real app on 127.0.0.1:<free port>, with HERALD_PUBLIC_URL set to that address. */
export async function listenTestApp(env: Record<string, string> = {}): Promise<ListeningApp> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const clock = movableClock();
    const t = await buildTestApp({ env: { HERALD_PUBLIC_URL: baseUrl, ...env }, clock });
    try {
      await t.app.listen({ port, host: '127.0.0.1' });
      // As `herald serve` does: revocations reach this process through LISTEN/NOTIFY.
      await t.container.authenticator.listen(t.db.connectionString);
      return Object.assign(t, { baseUrl, clock });
    } catch (error) {
      await t.close();
      if ((error as { code?: string }).code !== 'EADDRINUSE' || attempt > 5) throw error;
    }
  }
}

/** Creates an account with a password and memberships. */
export async function createPerson(
  t: TestApp,
  email: string,
  password: string,
  memberships: Array<{ workspaceId: string; role?: MemberRole }>,
): Promise<string> {
  let userId = '';
  for (const m of memberships)
    userId = (await createUser(t.container.pool, { email, workspaceId: m.workspaceId, role: m.role ?? 'member' }))
      .userId;
  await setPassword(t.container.pool, email, password);
  return userId;
}

export interface PageResponse {
  status: number;
  location: string | undefined;
  headers: Headers;
  text: string;
}

/** A browser: keeps cookies, never follows redirects (tests look at each step). */
export class Browser {
  readonly cookies = new Map<string, string>();
  readonly baseUrl: string;
  constructor(baseUrl: string) {
    this.baseUrl = baseUrl;
  }

  async request(
    method: 'GET' | 'POST',
    url: string,
    options: { form?: Record<string, string | string[]>; headers?: Record<string, string> } = {},
  ): Promise<PageResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (options.form) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(options.form))
        for (const one of Array.isArray(v) ? v : [v]) params.append(k, one);
      body = params.toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const res = await fetch(new URL(url, this.baseUrl), { method, headers, body, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/Max-Age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return {
      status: res.status,
      location: res.headers.get('location') ?? undefined,
      headers: res.headers,
      text: await res.text(),
    };
  }
}

/** The value of a hidden input of a server-rendered form. */
export function hiddenField(html: string, name: string): string {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(html);
  if (!match) throw new Error(`no hidden field ${name} in the page`);
  return match[1]!
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

export async function signIn(
  browser: Browser,
  email: string,
  password: string,
  returnTo?: string,
): Promise<PageResponse> {
  const form = await browser.request('GET', returnTo ? `/login?return_to=${encodeURIComponent(returnTo)}` : '/login');
  const fields: Record<string, string> = { csrf: hiddenField(form.text, 'csrf'), email, password };
  if (returnTo) fields.return_to = returnTo;
  return browser.request('POST', '/login', { form: fields });
}

export interface ConsentChoice {
  email: string;
  password: string;
  /** `workspaceId` or `workspaceId/brandId`; default: what the page preselects. */
  target?: string;
  /** Scopes left checked; default: every scope asked for. */
  scopes?: string[];
  decision?: 'allow' | 'deny';
}

/**
 * What a person does with an authorization URL: signs in when asked, reads the consent page, answers it.
 * Returns the redirect back to the client (its URL), and the consent page it saw.
 */
export async function consent(
  browser: Browser,
  authorizationUrl: string | URL,
  choice: ConsentChoice,
): Promise<{ redirect: URL; page: string }> {
  let res = await browser.request('GET', String(authorizationUrl));
  if (res.status === 302 && res.location?.startsWith('/login')) {
    const returnTo = new URL(res.location, browser.baseUrl).searchParams.get('return_to')!;
    const signedIn = await signIn(browser, choice.email, choice.password, returnTo);
    if (signedIn.status !== 303) throw new Error(`sign-in failed with ${signedIn.status}`);
    res = await browser.request('GET', signedIn.location!);
  }
  if (res.status !== 200)
    throw new Error(`consent page answered ${res.status}: ${res.location ?? res.text.slice(0, 300)}`);
  const page = res.text;
  const scopes = choice.scopes ?? [...page.matchAll(/name="scope" value="([^"]+)"/g)].map((m) => m[1]!);
  const selected = /<option value="([^"]+)" selected>/.exec(page)?.[1];
  const answer = await browser.request('POST', '/oauth/authorize', {
    form: {
      csrf: hiddenField(page, 'csrf'),
      request: hiddenField(page, 'request'),
      target: choice.target ?? selected ?? '',
      scope: scopes,
      decision: choice.decision ?? 'allow',
    },
    headers: { origin: browser.baseUrl },
  });
  if (answer.status !== 303 || !answer.location)
    throw new Error(`consent answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return { redirect: new URL(answer.location), page };
}

/** An MCP client's OAuth state, kept in memory; the "browser redirect" is captured for the test to follow. */
export class TestOAuthProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly redirectUrl: string;
  readonly clientMetadata: OAuthClientMetadata;

  constructor(
    options: {
      redirectUrl?: string;
      name?: string;
      authMethod?: 'none' | 'client_secret_post' | 'client_secret_basic';
    } = {},
  ) {
    this.redirectUrl = options.redirectUrl ?? 'http://127.0.0.1:53682/callback';
    this.clientMetadata = {
      client_name: options.name ?? 'Test Assistant',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: options.authMethod ?? 'none',
    };
  }

  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}
