// Connect links, completing the flow: the platform's callback (code or refusal, checked against the consent's
// state and browser), the account chosen when the consent covers several, and storing the connection with the
// link ended in one transaction; then where the browser goes. Starting the flow is connect.service.ts.
import { timingSafeEqual } from 'node:crypto';
import { withTransaction } from '../../db/pool.ts';
import { newId } from '../../lib/ids.ts';
import { isPlatformError, type ConnectableAccount } from '../../platforms/types.ts';
import { appendEvent } from '../events/outbox.ts';
import { ConnectFlowError, oauthContext } from './connect.platform.ts';
import {
  browserBinding,
  seal,
  unseal,
  wellFormed,
  type ConnectDeps,
  type DoneStep,
  type LandingStep,
} from './connect.flow.ts';
import * as links from './connect.repo.ts';
import type { ConnectLinkRow } from './connect.repo.ts';
import { insertConnection, renewConnectedAccount, type ConnectionRow } from './connections.repo.ts';
import { connectionJson } from './connections.service.ts';
import { sealCredentials } from './platform-access.ts';

/** The browser's binding cookie against the one the state calls for, in constant time. */
function sameBinding(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** GET /connect/callback: the platform sends the browser back with a code (or an error) and the state. */
export async function handleCallback(
  deps: ConnectDeps,
  query: Record<string, string | undefined>,
  binding: string | undefined,
): Promise<DoneStep | LandingStep> {
  const state = query.state;
  const found = wellFormed(state) ? await links.findLinkByState(deps.pool, state) : undefined;
  if (!state || !found)
    throw new ConnectFlowError(
      'invalid_state',
      'This sign-in does not match a connect link in progress (state mismatch). Start again from the app that sent you here.',
    );
  // The browser first, before the claim: a callback replayed from another browser (the URL leaked, or an
  // attacker's) must not spend the link, and is not an ending the client hears of (no link on the error, so a
  // Herald page rather than the redirect_url): the real browser's callback can still complete.
  if (!sameBinding(binding, browserBinding(deps.access, state)))
    throw new ConnectFlowError(
      'invalid_state',
      'This sign-in was started in another browser. Start again from the app that sent you here.',
    );
  // Claim the callback: only one request per consent gets past this line.
  if (!(await links.claimCallback(deps.pool, found.workspace_id, found.id, state)))
    throw new ConnectFlowError('link_used', 'This sign-in was already completed.', found);
  const fail = async (code: string, message: string): Promise<never> => {
    await links.finishLink(deps.pool, found.workspace_id, found.id, { connectionId: null, errorCode: code });
    throw new ConnectFlowError(code, message, found);
  };
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
    return { kind: 'done', link: found, connection: await completeLink(deps, found, accounts[0]!) };
  await links.awaitChoice(deps.pool, found.workspace_id, found.id, seal(deps.access, { ...secrets, accounts }));
  return { kind: 'choose', link: found, accounts, state };
}

/** POST /connect/choose: the account picked on the choice page (Facebook Pages, Instagram business accounts). */
export async function chooseAccount(
  deps: ConnectDeps,
  state: string | undefined,
  accountId: string | undefined,
  binding: string | undefined,
): Promise<DoneStep> {
  const link = wellFormed(state) ? await links.findLinkByState(deps.pool, state) : undefined;
  if (!state || !link || link.status !== 'choosing' || !sameBinding(binding, browserBinding(deps.access, state)))
    throw new ConnectFlowError('invalid_state', 'This choice does not match a connect link in progress.', link);
  const account = unseal(deps.access, link).accounts?.find((a) => a.account.accountId === accountId);
  if (!account) throw new ConnectFlowError('account_required', 'Choose one of the accounts listed.', link);
  return { kind: 'done', link, connection: await completeLink(deps, link, account) };
}

/**
 * Stores the connection (or renews the brand's existing one for that account) and ends the link, in one transaction.
 */
export async function completeLink(
  deps: ConnectDeps,
  link: ConnectLinkRow,
  chosen: ConnectableAccount,
): Promise<ConnectionRow> {
  return withTransaction(deps.pool, async (tx) => {
    const status = await links.lockLinkStatus(tx, link.workspace_id, link.id);
    if (status === 'completed' || status === 'failed')
      throw new ConnectFlowError('link_used', 'This connect link was already used.', link);
    const { account, credentials } = chosen;
    const sealed = sealCredentials(deps.access.keyring, credentials);
    const expiresAt = credentials.expiresAt ? new Date(credentials.expiresAt) : null;
    const serverUrl = link.sandbox ? null : link.server_url;
    const renewed = await renewConnectedAccount(tx, link.workspace_id, {
      brandId: link.brand_id,
      platform: link.platform,
      accountId: account.accountId,
      serverUrl,
      credentials: sealed,
      tokenExpiresAt: expiresAt,
      handle: account.handle,
      displayName: account.displayName,
      settings: account.settings ?? {},
      avatarUrl: account.avatarUrl ?? null,
    });
    const row =
      renewed ??
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
