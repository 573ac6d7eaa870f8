// Connections: platform accounts Herald publishes as. Sandbox connections are made by running each platform's
// own sign-in against its simulator (in-process, so it works whether or not a server is listening); real
// Bluesky and Mastodon accounts by app password or access token, checked against the platform. Test
// workspaces hold only sandbox connections, live ones only real ones (docs/api.md "Test mode").
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { withTransaction, type Queryable } from '../../db/pool.ts';
import type { ServiceContext } from '../../app/context.ts';
import { brandScope } from '../../app/brand-scope.ts';
import { decodeCursor, keysetPage } from '../../app/cursor.ts';
import { notFound } from '../../app/errors.ts';
import { newId } from '../../lib/ids.ts';
import { OutboundBlockedError } from '../../lib/ssrf.ts';
import { loginWithAppPassword } from '../../platforms/bluesky/index.ts';
import { createPlatformHttp, type Transport } from '../../platforms/http.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import type { AccountInfo, Credentials } from '../../platforms/types.ts';
import { appendEvent } from '../events/outbox.ts';
import { findBrand, findWorkspace } from '../workspaces/workspaces.repo.ts';
import { sandboxWorkspaceTag } from './connect.platform.ts';
import { connectionOptions } from './connection-options.ts';
import * as repo from './connections.repo.ts';
import type { ConnectionRow, ConnectionStatus } from './connections.repo.ts';
import { httpFor, sealCredentials, type PlatformAccess } from './platform-access.ts';

/** Why a connection could not be made; the CLI prints the message. */
export class ConnectionInputError extends Error {}

export function connectionJson(c: ConnectionRow): Record<string, unknown> {
  const options = connectionOptions(c.settings ?? {});
  return {
    id: c.id,
    object: 'connection',
    workspace_id: c.workspace_id,
    brand_id: c.brand_id,
    platform: c.platform,
    account_id: c.account_id,
    handle: c.handle,
    display_name: c.display_name,
    avatar_url: c.avatar_url ?? null,
    server_url: c.server_url,
    is_default: c.is_default,
    status: c.status,
    sandbox: c.sandbox,
    token_expires_at: c.token_expires_at?.toISOString() ?? null,
    ...(options && { options }),
    created_at: c.created_at.toISOString(),
    updated_at: c.updated_at.toISOString(),
  };
}

async function brandOf(
  db: Queryable,
  workspaceId: string,
  brandId: string | undefined,
  mode: 'live' | 'test',
): Promise<string> {
  const workspace = await findWorkspace(db, workspaceId);
  if (!workspace) throw new ConnectionInputError(`no workspace ${workspaceId}`);
  if (workspace.mode !== mode) {
    throw new ConnectionInputError(
      mode === 'test'
        ? 'sandbox connections belong in test workspaces; this workspace is live'
        : 'real accounts belong in live workspaces; this workspace is in test mode (it holds only sandbox connections)',
    );
  }
  const id = brandId ?? workspace.default_brand_id;
  if (!id || !(await findBrand(db, workspaceId, id)))
    throw new ConnectionInputError(`no brand ${brandId ?? '(default)'} in workspace ${workspaceId}`);
  return id;
}

/**
 * Stores the connection with its `connection.connected` event (and webhook deliveries), as the hosted connect
 * flow does: in one transaction, the caller's when `db` is a client inside one, else a transaction of its own.
 */
async function store(
  db: Queryable,
  access: PlatformAccess,
  input: {
    workspaceId: string;
    brandId: string;
    platform: PlatformName;
    sandbox: boolean;
    serverUrl: string | null;
    account: AccountInfo;
    credentials: Credentials;
  },
): Promise<ConnectionRow> {
  const write = async (tx: Queryable) => {
    const row = await repo.insertConnection(tx, {
      id: newId('conn'),
      workspaceId: input.workspaceId,
      brandId: input.brandId,
      platform: input.platform,
      sandbox: input.sandbox,
      accountId: input.account.accountId,
      handle: input.account.handle,
      displayName: input.account.displayName,
      avatarUrl: input.account.avatarUrl ?? null,
      serverUrl: input.serverUrl,
      credentials: sealCredentials(access.keyring, input.credentials),
      tokenExpiresAt: input.credentials.expiresAt ? new Date(input.credentials.expiresAt) : null,
      settings: input.account.settings ?? {},
    });
    await appendEvent(tx, input.workspaceId, 'connection.connected', connectionJson(row));
    return row;
  };
  try {
    return db instanceof pg.Pool ? await withTransaction(db, write) : await write(db);
  } catch (error) {
    if ((error as { code?: string }).code === '23505')
      throw new ConnectionInputError(`${input.account.handle} on ${input.platform} is already connected to this brand`);
    throw error;
  }
}

/** A URL a user typed for an instance or PDS: https (unless allow-listed), public address, no path. */
async function checkServerUrl(access: PlatformAccess, raw: string): Promise<string> {
  try {
    const url = await access.guard.checkUrl(raw);
    return url.origin;
  } catch (error) {
    if (error instanceof OutboundBlockedError) throw new ConnectionInputError(`${raw}: ${error.message}`);
    throw error;
  }
}

export interface SandboxConnectDeps {
  db: Queryable;
  access: PlatformAccess;
  /** Reaches the simulators without a network: Herald's own, in this process. */
  sandboxTransport: Transport;
}

/** One sandbox connection per platform, each made through the platform's own sign-in against its simulator. */
export async function addSandboxConnections(
  deps: SandboxConnectDeps,
  input: { workspaceId: string; brandId?: string; platforms: PlatformName[] },
): Promise<ConnectionRow[]> {
  const brandId = await brandOf(deps.db, input.workspaceId, input.brandId, 'test');
  const made: ConnectionRow[] = [];
  for (const platform of input.platforms) {
    const adapter = deps.access.registry.get(platform);
    if (!adapter) throw new ConnectionInputError(`Herald cannot publish to ${platform} yet (no adapter)`);
    const http = createPlatformHttp({
      baseUrl: `${deps.access.sandboxUrl}/${platform}`,
      transport: deps.sandboxTransport,
      timeoutMs: deps.access.timeoutMs,
    });
    const { account, credentials } = await adapter.connectSandbox(http, {
      username: `hs_${randomBytes(6).toString('hex').slice(0, 8)}`,
      // The account becomes this workspace's: no other workspace's sign-in may name it later.
      workspace: sandboxWorkspaceTag(deps.access, input.workspaceId),
    });
    made.push(
      await store(deps.db, deps.access, {
        workspaceId: input.workspaceId,
        brandId,
        platform,
        sandbox: true,
        serverUrl: null,
        account,
        credentials,
      }),
    );
  }
  return made;
}

export async function connectBluesky(
  db: Queryable,
  access: PlatformAccess,
  input: { workspaceId: string; brandId?: string; service: string; handle: string; appPassword: string },
): Promise<ConnectionRow> {
  const brandId = await brandOf(db, input.workspaceId, input.brandId, 'live');
  const serverUrl = await checkServerUrl(access, input.service);
  const http = httpFor(access, { sandbox: false, platform: 'bluesky', server_url: serverUrl });
  const login = await loginWithAppPassword(http, input.handle, input.appPassword);
  const account = { accountId: login.accountId, handle: login.handle, displayName: null };
  return store(db, access, {
    workspaceId: input.workspaceId,
    brandId,
    platform: 'bluesky',
    sandbox: false,
    serverUrl,
    account,
    credentials: login.credentials,
  });
}

export async function connectMastodon(
  db: Queryable,
  access: PlatformAccess,
  input: { workspaceId: string; brandId?: string; instance: string; accessToken: string },
): Promise<ConnectionRow> {
  const brandId = await brandOf(db, input.workspaceId, input.brandId, 'live');
  const serverUrl = await checkServerUrl(access, input.instance);
  const row = { sandbox: false, platform: 'mastodon' as const, server_url: serverUrl };
  const credentials: Credentials = { accessToken: input.accessToken };
  const session = {
    connection: { id: '', accountId: '', handle: '', baseUrl: serverUrl, settings: {}, sandbox: false },
    credentials,
    http: httpFor(access, row),
    clock: access.clock,
  };
  const account = await access.registry.get('mastodon')!.verifyAccount(session);
  return store(db, access, {
    workspaceId: input.workspaceId,
    brandId,
    platform: 'mastodon',
    sandbox: false,
    serverUrl,
    account,
    credentials,
  });
}

export async function getConnection(
  db: Queryable,
  workspaceId: string,
  id: string,
  allowedBrandIds: readonly string[] | null,
): Promise<ConnectionRow> {
  const row = await repo.findConnection(db, workspaceId, id);
  if (!row || (allowedBrandIds && !allowedBrandIds.includes(row.brand_id))) throw notFound('connection');
  return row;
}

/** One page of the workspace's connections (of the header's brand, or of the key's brands), newest first. */
export async function listConnectionsFor(
  ctx: ServiceContext,
  q: { platform?: PlatformName; brand_id?: string; status?: ConnectionStatus; limit?: number; cursor?: string },
): Promise<{ items: Record<string, unknown>[]; next_cursor: string | null; has_more: boolean }> {
  const filters = {
    platform: q.platform,
    brandIds: brandScope(ctx, q.brand_id) ?? undefined,
    status: q.status,
  };
  const limit = q.limit ?? 20;
  const after = q.cursor ? decodeCursor(q.cursor, filters) : undefined;
  const rows = await repo.listConnections(
    ctx.db,
    ctx.workspaceId,
    filters,
    after?.value ? { createdAt: new Date(after.value), id: after.id } : undefined,
    limit + 1,
  );
  const { page, ...more } = keysetPage(rows, limit, filters, (row) => row.created_at);
  return { items: page.map(connectionJson), ...more };
}
