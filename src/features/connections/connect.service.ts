// Connect links: a short-lived, single-use URL that walks an end user through a platform's own consent and
// lands them back on the client's `redirect_url` with the new `connection_id` (or an `error` code). Driven
// generically through the adapter's `oauth` (authorize URL with state and PKCE, code exchange, account
// choice, per-instance app registration) or `passwordLogin` capability; no platform is named here. A link in a
// test workspace runs the same flow against the platform's simulator.
import { createHash, randomBytes } from 'node:crypto';
import { withTransaction, type Pool, type Queryable } from '../../db/pool.ts';
import type { ServiceContext } from '../../app/context.ts';
import { decrypt, encrypt, hmac } from '../../lib/crypto.ts';
import { appFor, ConnectFlowError, connectMethod, oauthContext, SANDBOX_APP } from './connect.platform.ts';
import { AppError, validationFailed } from '../../app/errors.ts';
import { newId } from '../../lib/ids.ts';
import { OutboundBlockedError } from '../../lib/ssrf.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import {
  isPlatformError,
  type ConnectableAccount,
  type OAuthApp,
  type PlatformAdapter,
} from '../../platforms/types.ts';
import { appendEvent } from '../events/outbox.ts';
import { findBrand } from '../workspaces/workspaces.repo.ts';
import * as links from './connect.repo.ts';
import type { ConnectLinkRow } from './connect.repo.ts';
import { insertConnection, type ConnectionRow } from './connections.repo.ts';
import { connectionJson } from './connections.service.ts';
import { sealCredentials, type PlatformAccess } from './platform-access.ts';

const SECRETS = 'connect-link';

export interface ConnectDeps {
  pool: Pool;
  access: PlatformAccess;
  ttlSeconds: number;
}

interface LinkSecrets {
  verifier: string | null;
  app: OAuthApp;
  accounts?: ConnectableAccount[];
}

/** States Herald issues are base64url; anything else (a NUL byte, 3 kB of junk) is refused before the database. */
const wellFormed = (value: string | undefined): value is string =>
  value !== undefined && /^[A-Za-z0-9_-]{16,128}$/.test(value);
const sha = (token: string) => createHash('sha256').update(token).digest();

function invalid(path: string, rule: string, message: string): AppError {
  return validationFailed([{ path, message, rule }]);
}

async function checkServer(access: PlatformAccess, raw: string): Promise<string> {
  try {
    return (await access.guard.checkUrl(raw)).origin;
  } catch (error) {
    if (error instanceof OutboundBlockedError)
      throw invalid('/server_url', 'address_blocked', `${raw}: ${error.message}`);
    throw error;
  }
}

export interface CreateLinkInput {
  platform: PlatformName;
  brand_id?: string;
  redirect_url?: string;
  server_url?: string;
}

/** POST /v1/connections/connect-links. */
export async function createConnectLink(
  ctx: ServiceContext,
  deps: ConnectDeps,
  input: CreateLinkInput,
): Promise<Record<string, unknown>> {
  if (ctx.brandFromHeader && input.brand_id !== undefined && input.brand_id !== ctx.brandId) {
    throw new AppError(
      'PUBLIC_API_BODY_INVALID',
      `brand_id ${input.brand_id} differs from the x-herald-brand-id header ${ctx.brandId}.`,
      { details: [{ path: '/brand_id', message: 'differs from the x-herald-brand-id header' }] },
    );
  }
  const brandId = input.brand_id ?? ctx.brandId;
  if (
    !brandId ||
    (ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(brandId)) ||
    !(await findBrand(ctx.db, ctx.workspaceId, brandId))
  ) {
    throw new AppError(
      'PUBLIC_API_BRAND_FORBIDDEN',
      'That brand is not in this workspace or not reachable by this key.',
    );
  }
  const mode = ctx.workspaceMode;
  const method = connectMethod(deps.access, input.platform, mode);
  if (!method.ok) throw invalid('/platform', 'platform_unavailable', method.reason);
  let redirectUrl: string | null = null;
  if (input.redirect_url !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(input.redirect_url);
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:'))
      throw invalid('/redirect_url', 'redirect_url_invalid', 'redirect_url must be an absolute http(s) URL.');
    redirectUrl = parsed.toString();
  }
  let serverUrl: string | null = null;
  if (input.server_url !== undefined) {
    const takesServer =
      mode === 'live' &&
      (method.adapter.oauth?.registerApp !== undefined || method.adapter.passwordLogin?.customServer === true);
    if (!takesServer)
      throw invalid(
        '/server_url',
        'server_url_unsupported',
        mode === 'test'
          ? 'A test workspace connects through the simulator; server_url is not taken.'
          : `${input.platform} has one host; server_url is not taken.`,
      );
    serverUrl = await checkServer(deps.access, input.server_url);
  }
  const token = randomBytes(32).toString('base64url');
  const row = await links.insertConnectLink(ctx.db, {
    id: newId('clink'),
    workspaceId: ctx.workspaceId,
    brandId,
    platform: input.platform,
    sandbox: mode === 'test',
    tokenHash: sha(token),
    redirectUrl,
    serverUrl,
    createdBy: ctx.userId || null,
    expiresAt: new Date(Date.now() + deps.ttlSeconds * 1000),
  });
  return {
    id: row.id,
    object: 'connect_link',
    url: `${deps.access.publicUrl}/connect/${token}`,
    platform: row.platform,
    brand_id: row.brand_id,
    sandbox: row.sandbox,
    redirect_url: row.redirect_url,
    server_url: row.server_url,
    expires_at: row.expires_at.toISOString(),
    created_at: row.created_at.toISOString(),
  };
}

function seal(access: PlatformAccess, secrets: LinkSecrets): Buffer {
  return encrypt(access.keyring, SECRETS, JSON.stringify(secrets));
}

function unseal(access: PlatformAccess, link: ConnectLinkRow): LinkSecrets {
  if (!link.secrets) throw new ConnectFlowError('link_used', 'This connect link was already used.', link);
  return JSON.parse(decrypt(access.keyring, SECRETS, link.secrets).toString('utf8')) as LinkSecrets;
}

/** The value of the cookie that ties a consent to the browser that started it (RFC 6749 §10.12). */
export function browserBinding(access: PlatformAccess, state: string): string {
  return hmac(access.keyring, 'connect-browser', state);
}

export type LandingStep =
  | { kind: 'redirect'; location: string; binding: string }
  | { kind: 'server'; link: ConnectLinkRow }
  | { kind: 'password'; link: ConnectLinkRow; labels: { identifier: string; password: string; server: boolean } }
  | { kind: 'choose'; link: ConnectLinkRow; accounts: ConnectableAccount[]; state: string };

async function usableLink(deps: ConnectDeps, db: Queryable, token: string): Promise<ConnectLinkRow> {
  const link = await links.findLinkByToken(db, sha(token));
  if (!link)
    throw new ConnectFlowError(
      'link_invalid',
      'This connect link is not valid. Ask the app that sent you here for a new one.',
    );
  if (link.status === 'completed' || link.status === 'failed' || (link.used_at && link.status !== 'choosing'))
    throw new ConnectFlowError(
      'link_used',
      'This connect link was already used. Ask the app that sent you here for a new one.',
      link,
    );
  if (link.expires_at.getTime() <= Date.now()) {
    await links.finishLink(deps.pool, link.workspace_id, link.id, { connectionId: null, errorCode: 'link_expired' });
    throw new ConnectFlowError(
      'link_expired',
      'This connect link has expired. Ask the app that sent you here for a new one.',
      link,
    );
  }
  return link;
}

async function startConsent(deps: ConnectDeps, adapter: PlatformAdapter, link: ConnectLinkRow): Promise<LandingStep> {
  const oauth = adapter.oauth!;
  let app: OAuthApp;
  try {
    app = await appFor(deps, adapter, link);
  } catch (error) {
    if (isPlatformError(error))
      throw new ConnectFlowError('platform_error', `The platform refused to register Herald: ${error.message}`, link);
    if (error instanceof ConnectFlowError) throw new ConnectFlowError(error.code, error.message, link);
    throw error;
  }
  const verifier = oauth.pkce ? randomBytes(48).toString('base64url') : null;
  const state = randomBytes(32).toString('base64url');
  await links.beginConsent(deps.pool, link.workspace_id, link.id, {
    state,
    secrets: seal(deps.access, { verifier, app }),
    serverUrl: link.server_url,
  });
  const location = oauth.authorizeUrl(oauthContext(deps.access, link, app), {
    state,
    codeChallenge: verifier ? createHash('sha256').update(verifier).digest('base64url') : null,
  });
  return { kind: 'redirect', location, binding: browserBinding(deps.access, state) };
}

/** GET /connect/{token}: where the link leads next. */
export async function openLink(deps: ConnectDeps, token: string): Promise<LandingStep> {
  const link = await usableLink(deps, deps.pool, token);
  const method = connectMethod(deps.access, link.platform, link.sandbox ? 'test' : 'live');
  if (!method.ok) throw new ConnectFlowError('platform_unavailable', method.reason, link);
  if (link.status === 'choosing')
    return { kind: 'choose', link, accounts: unseal(deps.access, link).accounts ?? [], state: link.state ?? '' };
  if (method.method === 'password') {
    const p = method.adapter.passwordLogin!;
    return {
      kind: 'password',
      link,
      labels: { identifier: p.identifierLabel, password: p.passwordLabel, server: p.customServer && !link.sandbox },
    };
  }
  if (method.adapter.oauth!.registerApp && !link.sandbox && !link.server_url) return { kind: 'server', link };
  return startConsent(deps, method.adapter, link);
}

/** POST /connect/{token}: the instance the user typed, or their identifier and app password. */
export async function submitLinkForm(
  deps: ConnectDeps,
  token: string,
  form: { server_url?: string; identifier?: string; password?: string },
): Promise<LandingStep | { kind: 'done'; link: ConnectLinkRow; connection: ConnectionRow }> {
  const link = await usableLink(deps, deps.pool, token);
  const method = connectMethod(deps.access, link.platform, link.sandbox ? 'test' : 'live');
  if (!method.ok) throw new ConnectFlowError('platform_unavailable', method.reason, link);
  if (method.method === 'oauth') {
    if (link.sandbox || !method.adapter.oauth!.registerApp) return startConsent(deps, method.adapter, link);
    if (!form.server_url?.trim())
      throw new ConnectFlowError('server_required', 'Type the address of your server.', link);
    const server = await checkServer(
      deps.access,
      /^https?:\/\//i.test(form.server_url.trim()) ? form.server_url.trim() : `https://${form.server_url.trim()}`,
    ).catch((error: unknown) => {
      throw new ConnectFlowError(
        'server_blocked',
        error instanceof AppError ? error.message : 'That server cannot be reached.',
        link,
      );
    });
    return startConsent(deps, method.adapter, { ...link, server_url: server });
  }
  const login = method.adapter.passwordLogin!;
  if (!form.identifier?.trim() || !form.password)
    throw new ConnectFlowError('credentials_required', 'Both fields are required.', link);
  let server = link.server_url;
  if (!link.sandbox && login.customServer && form.server_url?.trim())
    server = await checkServer(deps.access, form.server_url.trim()).catch(() => {
      throw new ConnectFlowError('server_blocked', 'That server cannot be reached.', link);
    });
  const target = {
    ...link,
    server_url: link.sandbox ? null : (server ?? deps.access.platformUrls[link.platform] ?? null),
  };
  let account: ConnectableAccount;
  try {
    account = await login.login(oauthContext(deps.access, target, SANDBOX_APP).http, {
      identifier: form.identifier.trim(),
      password: form.password,
    });
  } catch (error) {
    if (isPlatformError(error))
      throw new ConnectFlowError('login_failed', `The platform refused the sign-in: ${error.message}`, link);
    throw error;
  }
  return { kind: 'done', link, connection: await complete(deps, target, account) };
}

/** GET /connect/callback: the platform sends the browser back with a code (or an error) and the state. */
export async function handleCallback(
  deps: ConnectDeps,
  query: Record<string, string | undefined>,
  binding: string | undefined,
): Promise<{ kind: 'done'; link: ConnectLinkRow; connection: ConnectionRow } | LandingStep> {
  const state = query.state;
  const found = wellFormed(state) ? await links.findLinkByState(deps.pool, state) : undefined;
  if (!state || !found)
    throw new ConnectFlowError(
      'invalid_state',
      'This sign-in does not match a connect link in progress (state mismatch). Start again from the app that sent you here.',
    );
  // Claim the callback: only one request per consent gets past this line.
  const { rows } = await deps.pool.query<{ id: string }>(
    `UPDATE connect_links SET used_at = now() WHERE id = $1 AND state = $2 AND status = 'authorizing' AND used_at IS NULL RETURNING id`,
    [found.id, state],
  );
  if (!rows[0]) throw new ConnectFlowError('link_used', 'This sign-in was already completed.', found);
  const fail = async (code: string, message: string): Promise<never> => {
    await links.finishLink(deps.pool, found.workspace_id, found.id, { connectionId: null, errorCode: code });
    throw new ConnectFlowError(code, message, found);
  };
  if (!binding || binding !== browserBinding(deps.access, state))
    return fail(
      'invalid_state',
      'This sign-in was started in another browser. Start again from the app that sent you here.',
    );
  if (found.expires_at.getTime() <= Date.now())
    return fail(
      'link_expired',
      'This connect link expired during the sign-in. Ask the app that sent you here for a new one.',
    );
  // A refusal: RFC 6749's access_denied, or LinkedIn's own user_cancelled_authorize / user_cancelled_login.
  const declined = query.error === 'access_denied' || query.error?.startsWith('user_cancelled_');
  if (query.error)
    return fail(
      declined ? 'access_denied' : 'platform_error',
      declined
        ? 'You declined to connect the account.'
        : `The platform answered: ${query.error_description ?? query.error}`,
    );
  if (!query.code) return fail('invalid_request', 'The platform sent no authorization code.');
  const adapter = deps.access.registry.get(found.platform);
  if (!adapter?.oauth) return fail('platform_unavailable', `${found.platform} cannot be connected here.`);
  const secrets = unseal(deps.access, found);
  const ctx = oauthContext(deps.access, found, secrets.app);
  let accounts: ConnectableAccount[];
  try {
    const credentials = await adapter.oauth.exchangeCode(ctx, { code: query.code, codeVerifier: secrets.verifier });
    accounts = await adapter.oauth.accounts(ctx, credentials);
  } catch (error) {
    if (isPlatformError(error)) return fail('exchange_failed', `The platform refused the sign-in: ${error.message}`);
    throw error;
  }
  if (accounts.length === 0) return fail('no_accounts', 'The sign-in gave access to no account Herald can publish as.');
  if (accounts.length === 1)
    return { kind: 'done', link: found, connection: await complete(deps, found, accounts[0]!) };
  await links.awaitChoice(deps.pool, found.workspace_id, found.id, seal(deps.access, { ...secrets, accounts }));
  return { kind: 'choose', link: found, accounts, state };
}

/** POST /connect/choose: the account picked on the choice page (Facebook Pages, Instagram business accounts). */
export async function chooseAccount(
  deps: ConnectDeps,
  state: string | undefined,
  accountId: string | undefined,
  binding: string | undefined,
): Promise<{ kind: 'done'; link: ConnectLinkRow; connection: ConnectionRow }> {
  const link = wellFormed(state) ? await links.findLinkByState(deps.pool, state) : undefined;
  if (!state || !link || link.status !== 'choosing' || binding !== browserBinding(deps.access, state))
    throw new ConnectFlowError('invalid_state', 'This choice does not match a connect link in progress.', link);
  const account = unseal(deps.access, link).accounts?.find((a) => a.account.accountId === accountId);
  if (!account) throw new ConnectFlowError('account_required', 'Choose one of the accounts listed.', link);
  return { kind: 'done', link, connection: await complete(deps, link, account) };
}

/** Stores the connection (or renews the brand's existing one for that account) and ends the link, in one transaction. */
async function complete(deps: ConnectDeps, link: ConnectLinkRow, chosen: ConnectableAccount): Promise<ConnectionRow> {
  return withTransaction(deps.pool, async (tx) => {
    const locked = await tx.query<{ status: string }>('SELECT status FROM connect_links WHERE id = $1 FOR UPDATE', [
      link.id,
    ]);
    if (locked.rows[0]?.status === 'completed' || locked.rows[0]?.status === 'failed')
      throw new ConnectFlowError('link_used', 'This connect link was already used.', link);
    const { account, credentials } = chosen;
    const sealed = sealCredentials(deps.access.keyring, credentials);
    const expiresAt = credentials.expiresAt ? new Date(credentials.expiresAt) : null;
    const serverUrl = link.sandbox ? null : link.server_url;
    const { rows } = await tx.query<ConnectionRow>(
      `UPDATE connections SET credentials = $5, token_expires_at = $6, handle = $7, display_name = $8, settings = $9, avatar_url = $11, status = 'active', last_error = NULL, updated_at = now()
        WHERE workspace_id = $1 AND brand_id = $2 AND platform = $3 AND coalesce(server_url, '') = coalesce($10, '') AND account_id = $4 AND status <> 'disconnected'
        RETURNING *`,
      [
        link.workspace_id,
        link.brand_id,
        link.platform,
        account.accountId,
        sealed,
        expiresAt,
        account.handle,
        account.displayName,
        JSON.stringify(account.settings ?? {}),
        serverUrl,
        account.avatarUrl ?? null,
      ],
    );
    const row =
      rows[0] ??
      (await insertConnection(tx, {
        id: newId('conn'),
        workspaceId: link.workspace_id,
        brandId: link.brand_id,
        platform: link.platform,
        sandbox: link.sandbox,
        accountId: account.accountId,
        handle: account.handle,
        displayName: account.displayName,
        avatarUrl: account.avatarUrl ?? null,
        serverUrl,
        credentials: sealed,
        tokenExpiresAt: expiresAt,
        settings: account.settings ?? {},
      }));
    await links.finishLink(tx, link.workspace_id, link.id, { connectionId: row.id, errorCode: null });
    await appendEvent(tx, link.workspace_id, 'connection.connected', connectionJson(row));
    return row;
  });
}

/** Where the browser goes at the end: the client's redirect_url with the outcome, or nowhere (a Herald page). */
export function returnUrl(
  link: ConnectLinkRow | undefined,
  outcome: { connectionId: string } | { error: string; description: string },
): string | undefined {
  if (!link?.redirect_url) return undefined;
  const url = new URL(link.redirect_url);
  if ('connectionId' in outcome) url.searchParams.set('connection_id', outcome.connectionId);
  else {
    url.searchParams.set('error', outcome.error);
    url.searchParams.set('error_description', outcome.description);
  }
  url.searchParams.set('connect_link_id', link.id);
  return url.toString();
}
