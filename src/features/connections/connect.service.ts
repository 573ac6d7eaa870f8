// Connect links, starting the flow: a short-lived, single-use URL that walks an end user through a platform's
// own consent (authorize URL with state and PKCE, per-instance app registration) or `passwordLogin` form; the
// end of an OAuth flow, back from the platform, is connect.complete.ts. Driven generically through the adapter's
// capabilities; no platform is named here. A link in a test workspace runs the same flow against the simulator.
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/pool.ts';
import type { ServiceContext } from '../../app/context.ts';
import {
  appFor,
  ConnectFlowError,
  connectMethod,
  oauthContext,
  SANDBOX_APP,
  signSandboxAuthorize,
} from './connect.platform.ts';
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
import { findBrand } from '../workspaces/workspaces.repo.ts';
import { completeLink } from './connect.complete.ts';
import {
  browserBinding,
  seal,
  sha,
  unseal,
  type ConnectDeps,
  type DoneStep,
  type LandingStep,
} from './connect.flow.ts';
import * as links from './connect.repo.ts';
import type { ConnectLinkRow } from './connect.repo.ts';
import type { PlatformAccess } from './platform-access.ts';

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
  const authorize = oauth.authorizeUrl(oauthContext(deps.access, link, app), {
    state,
    codeChallenge: verifier ? createHash('sha256').update(verifier).digest('base64url') : null,
  });
  const location = link.sandbox
    ? signSandboxAuthorize(deps.access, link.platform, authorize, link.workspace_id)
    : authorize;
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
): Promise<LandingStep | DoneStep> {
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
  return { kind: 'done', link, connection: await completeLink(deps, target, account) };
}
