// How a connect flow reaches a platform: whether and how a platform connects in a live or test workspace, the
// OAuth context of a link or connection (the simulator in test workspaces, the instance a user chose, or the
// platform's hosts), and the app Herald signs in with — configured, or registered per instance and kept.
import { decrypt, encrypt, hmac } from '../../lib/crypto.ts';
import { authorizeSignature } from '../../sandbox/framework/tokens.ts';
import { createPlatformHttp } from '../../platforms/http.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import type { OAuthApp, OAuthContext, PlatformAdapter } from '../../platforms/types.ts';
import type { Pool } from '../../db/pool.ts';
import * as links from './connect.repo.ts';
import type { ConnectLinkRow } from './connect.repo.ts';
import { CONSENT_HOSTS, type PlatformAccess } from './platform-access.ts';

const APP_SECRET = 'platform-app';
// The app a test workspace signs in with at the simulators: a confidential client, as LinkedIn and Meta require
// (the simulators accept any client whose id and secret stay the same from consent to token).
export const SANDBOX_APP: OAuthApp = { clientId: 'herald-sandbox', clientSecret: 'herald-sandbox-secret' };

/** Why a connect flow stopped; `code` goes back to the client's redirect_url as `error`. */
export class ConnectFlowError extends Error {
  readonly code: string;
  /** The link, when known: its redirect_url receives the error. */
  readonly link: ConnectLinkRow | undefined;
  constructor(code: string, message: string, link?: ConnectLinkRow) {
    super(message);
    this.code = code;
    this.link = link;
  }
}

export type Method =
  { ok: true; method: 'oauth' | 'password'; adapter: PlatformAdapter } | { ok: false; reason: string };

/** How a platform connects in a workspace of this mode, or why it cannot (GET /v1/platforms, connect links). */
export function connectMethod(access: PlatformAccess, platform: PlatformName, mode: 'live' | 'test'): Method {
  const adapter = access.registry.get(platform);
  if (!adapter) return { ok: false, reason: `Herald cannot publish to ${platform} yet (no adapter).` };
  const method = adapter.oauth ? 'oauth' : adapter.passwordLogin ? 'password' : undefined;
  if (!method) return { ok: false, reason: `${platform} accounts cannot be connected through a link.` };
  if (mode === 'test')
    return access.sandboxEnabled === false
      ? { ok: false, reason: 'The sandbox is off (HERALD_SANDBOX=off), so test workspaces cannot connect accounts.' }
      : { ok: true, method, adapter };
  if (adapter.oauth && !adapter.oauth.registerApp && !access.apps?.[platform]) {
    return {
      ok: false,
      reason: `No ${platform} app is configured on this Herald (HERALD_${platform.toUpperCase()}_CLIENT_ID and _CLIENT_SECRET), so live workspaces cannot connect ${platform} accounts.`,
    };
  }
  return { ok: true, method, adapter };
}

/** GET /v1/platforms: how each platform connects, and whether it can in live and in test workspaces. */
export function connectAvailability(access: PlatformAccess) {
  return (platform: PlatformName) => {
    const adapter = access.registry.get(platform);
    const method = adapter?.oauth ? ('oauth' as const) : adapter?.passwordLogin ? ('app_password' as const) : null;
    const of = (m: Method) => (m.ok ? { available: true, reason: null } : { available: false, reason: m.reason });
    return {
      method,
      live: of(connectMethod(access, platform, 'live')),
      test: of(connectMethod(access, platform, 'test')),
    };
  };
}

/**
 * A simulator hands its accounts only to flows Herald started: the authorize URL of a test workspace's flow gets
 * `sandbox_sig`, signed with the secret Herald gives its simulators (container.ts), over client, redirect, state
 * and `sandbox_ws`, an opaque tag of the workspace: a simulated account belongs to the first workspace that signs
 * in as it, and the simulator refuses it to any other.
 */
export function signSandboxAuthorize(
  access: PlatformAccess,
  platform: PlatformName,
  location: string,
  workspaceId: string,
): string {
  const url = new URL(location);
  const q = url.searchParams;
  const secret = hmac(access.keyring, 'sandbox-simulators', 'v1');
  const workspace = sandboxWorkspaceTag(access, workspaceId);
  const sig = authorizeSignature(secret, platform, {
    clientId: q.get('client_id') ?? undefined,
    redirectUri: q.get('redirect_uri') ?? undefined,
    state: q.get('state') ?? undefined,
    workspace,
  });
  q.set('sandbox_ws', workspace);
  q.set('sandbox_sig', sig);
  return url.toString();
}

/** The opaque tag a simulator knows a workspace by (`sandbox_ws`): its simulated accounts are held under it. */
export function sandboxWorkspaceTag(access: Pick<PlatformAccess, 'keyring'>, workspaceId: string): string {
  return hmac(access.keyring, 'sandbox-workspace', workspaceId).slice(0, 22);
}

export const redirectUri = (access: PlatformAccess) => `${access.publicUrl}/connect/callback`;
/** Where the flow's platform calls go and where the browser is sent, for this link. */
export type Where = Pick<ConnectLinkRow, 'sandbox' | 'platform' | 'server_url'>;

export function oauthContext(
  access: PlatformAccess,
  link: Where & { redirect_url?: string | null },
  app: OAuthApp,
): OAuthContext {
  if (link.sandbox) {
    const base = `${access.sandboxUrl}/${link.platform}`;
    return {
      http: createPlatformHttp({ baseUrl: base, timeoutMs: access.timeoutMs, transport: access.transport }),
      webUrl: base,
      sandbox: true,
      app,
      redirectUri: redirectUri(access),
    };
  }
  const server = link.server_url;
  const apiUrl = server ?? access.platformUrls[link.platform] ?? CONSENT_HOSTS[link.platform];
  if (!apiUrl) throw new ConnectFlowError('platform_unavailable', `No host is configured for ${link.platform}.`);
  const http = createPlatformHttp({
    baseUrl: apiUrl,
    guard: server ? access.guard : undefined,
    timeoutMs: access.timeoutMs,
    transport: access.transport,
    userAgent: 'Herald (+https://github.com/herald)',
  });
  return {
    http,
    webUrl: server ?? CONSENT_HOSTS[link.platform] ?? apiUrl,
    sandbox: false,
    app,
    redirectUri: redirectUri(access),
  };
}

/** Where an app registered per server is kept: the instance, or the simulator's address for the sandbox. */
const appServer = (access: PlatformAccess, where: Where) =>
  where.sandbox ? `${access.sandboxUrl}/${where.platform}` : where.server_url!;

function openApp(access: PlatformAccess, row: links.PlatformAppRow): OAuthApp {
  return {
    clientId: row.client_id,
    clientSecret: row.client_secret ? decrypt(access.keyring, APP_SECRET, row.client_secret).toString('utf8') : null,
  };
}

/** The app to sign in with: configured, registered on the instance (kept per instance), or the simulator's. */
export async function appFor(
  deps: { pool: Pool; access: PlatformAccess },
  adapter: PlatformAdapter,
  link: Where,
): Promise<OAuthApp> {
  const oauth = adapter.oauth!;
  if (oauth.registerApp) {
    const ctx = oauthContext(deps.access, link, SANDBOX_APP);
    const server = appServer(deps.access, link);
    const known = link.sandbox
      ? undefined
      : await links.findPlatformApp(deps.pool, link.platform, server, ctx.redirectUri);
    if (known) return openApp(deps.access, known);
    // A simulator forgets its apps when it restarts: each sandbox consent registers afresh (and replaces the one kept).
    const app = await oauth.registerApp(ctx, {
      name: 'Herald',
      website: deps.access.publicUrl ?? 'https://github.com/herald',
    });
    const kept = await links.savePlatformApp(
      deps.pool,
      link.platform,
      server,
      ctx.redirectUri,
      {
        clientId: app.clientId,
        clientSecret: app.clientSecret ? encrypt(deps.access.keyring, APP_SECRET, app.clientSecret) : null,
      },
      link.sandbox,
    );
    return openApp(deps.access, kept);
  }
  const configured = deps.access.apps?.[link.platform];
  if (link.sandbox) return configured ?? SANDBOX_APP;
  if (!configured)
    throw new ConnectFlowError('platform_unavailable', `No ${link.platform} app is configured on this Herald.`);
  return configured;
}

/** The OAuth context of an existing connection (revocation), or undefined when Herald no longer has its app. */
export async function oauthContextFor(
  deps: { pool: Pool; access: PlatformAccess },
  row: Where,
): Promise<OAuthContext | undefined> {
  const adapter = deps.access.registry.get(row.platform);
  if (!adapter?.oauth) return undefined;
  if (adapter.oauth.registerApp) {
    const known = await links.findPlatformApp(
      deps.pool,
      row.platform,
      appServer(deps.access, row),
      redirectUri(deps.access),
    );
    return known ? oauthContext(deps.access, row, openApp(deps.access, known)) : undefined;
  }
  const app = deps.access.apps?.[row.platform] ?? (row.sandbox ? SANDBOX_APP : undefined);
  return app ? oauthContext(deps.access, row, app) : undefined;
}
