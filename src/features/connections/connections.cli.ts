// The `herald connections …` commands: connect sandbox accounts (each platform's own sign-in, run against its
// simulator in-process), real Bluesky accounts (app password) and Mastodon accounts (access token), and list
// them. Real hosts go through the SSRF guard; no token is ever printed.
import type { Command, Io, Option, Values } from '../../cli/command.ts';
import { json, print, required, UsageError, withDatabase, workspaceArg } from '../../cli/command.ts';
import { createConfiguredSimulators, createPlatformAccess } from '../../container.ts';
import { createLogger } from '../../lib/logger.ts';
import { resolveKeyring } from '../../lib/secrets.ts';
import { createOutboundGuard } from '../../lib/ssrf.ts';
import { isPlatformName, PLATFORM_NAMES, type PlatformName } from '../../platforms/limits.ts';
import type { ServiceContext } from '../../app/context.ts';
import { AppError } from '../../app/errors.ts';
import { findWorkspace } from '../workspaces/workspaces.repo.ts';
import { createConnectLink } from './connect.service.ts';
import { resealCredentials } from './lifecycle.ts';
import { isPlatformError } from '../../platforms/types.ts';
import { inProcessTransport } from '../../sandbox/inprocess.ts';
import { listConnections, type ConnectionRow } from './connections.repo.ts';
import {
  addSandboxConnections,
  connectBluesky,
  ConnectionInputError,
  connectionJson,
  connectMastodon,
} from './connections.service.ts';
import type { Config } from '../../config.ts';
import type { Pool } from '../../db/pool.ts';
import type { PlatformAccess } from './platform-access.ts';

function brandArg(values: Values): string | undefined {
  return typeof values.brand === 'string' && values.brand.trim() ? values.brand.trim() : undefined;
}

function line(c: ConnectionRow): string {
  return `${c.id}  ${c.platform.padEnd(8)} ${c.sandbox ? 'sandbox' : 'live   '}  ${c.status.padEnd(7)} ${c.is_default ? 'default' : '       '}  @${c.handle}`;
}

/** --mastodon-instance, or its former name --server. */
function mastodonInstance(values: Values): string | undefined {
  const given = values['mastodon-instance'] ?? values.server;
  return typeof given === 'string' && given.trim() ? given.trim() : undefined;
}

/** Runs `fn` with the platform access of this installation; platform refusals become one readable line. */
async function withAccess<T>(
  io: Io,
  fn: (pool: Pool, access: PlatformAccess, config: Config) => Promise<T>,
): Promise<T> {
  return withDatabase(io, async (pool, config) => {
    const keyring = await resolveKeyring(config, createLogger('silent'));
    const access = createPlatformAccess(config, keyring, createOutboundGuard({ allowlist: config.outboundAllowlist }));
    try {
      return await fn(pool, access, config);
    } catch (error) {
      if (error instanceof ConnectionInputError) throw new UsageError(error.message);
      if (isPlatformError(error))
        throw new Error(`the platform refused: ${error.message} (${error.code})`, { cause: error });
      throw error;
    }
  });
}

const WORKSPACE_FLAG: Option = {
  type: 'string',
  value: 'uuid',
  description: 'The workspace (its UUID, as `herald workspaces list` shows).',
};
const BRAND_FLAG: Option = {
  type: 'string',
  value: 'id',
  description: "The brand (its id); the workspace's default brand when omitted.",
};

export function connectionCommands(): Record<string, Command> {
  return {
    'connections add-sandbox': {
      usage:
        'herald connections add-sandbox --workspace <uuid> [--brand <id>] [--platform <p>[,<p>…] | --all] [--json]',
      summary:
        "Connect simulated accounts (test workspaces only), through each platform's own sign-in against its simulator.",
      options: {
        workspace: WORKSPACE_FLAG,
        brand: BRAND_FLAG,
        platform: {
          type: 'string',
          value: 'p,…',
          description: 'The platforms to connect, comma-separated.',
        },
        all: { type: 'boolean', description: 'Connect every platform with a simulator.' },
        ...json,
      },
      async run(values, _p, io) {
        const workspaceId = workspaceArg(values);
        if (values.all && values.platform) throw new UsageError('give --platform or --all, not both');
        if (!values.all && typeof values.platform !== 'string') throw new UsageError('--platform or --all is required');
        await withAccess(io, async (pool, access, config) => {
          const simulators = createConfiguredSimulators(config, access.keyring, pool);
          if (simulators.platforms.length === 0) throw new UsageError('the sandbox is off (HERALD_SANDBOX=off)');
          const available = access.registry.available().filter((p) => simulators.platforms.includes(p));
          const platforms = values.all
            ? available
            : String(values.platform)
                .split(',')
                .map((p) => p.trim());
          const unknown = platforms.filter((p) => !isPlatformName(p) || !available.includes(p as PlatformName));
          if (unknown.length > 0)
            throw new UsageError(
              `cannot add sandbox connections for ${unknown.join(', ')}; available: ${available.join(', ')}`,
            );
          const { transport, close } = await inProcessTransport(simulators, access.sandboxUrl);
          try {
            const made = await addSandboxConnections(
              { db: pool, access, sandboxTransport: transport },
              { workspaceId, brandId: brandArg(values), platforms: platforms as PlatformName[] },
            );
            print(io, values, made.map(connectionJson), made.map(line).join('\n'));
          } finally {
            await close();
          }
        });
      },
    },
    'connections add bluesky': {
      usage:
        'herald connections add bluesky --workspace <uuid> [--brand <id>] [--service <url>] --handle <handle> --app-password <password> [--json]',
      summary:
        'Connect a real Bluesky account (live workspaces) with an app password; the service defaults to HERALD_BLUESKY_SERVICE_URL.',
      options: {
        workspace: WORKSPACE_FLAG,
        brand: BRAND_FLAG,
        service: { type: 'string', value: 'url', description: 'The Bluesky PDS (default HERALD_BLUESKY_SERVICE_URL).' },
        handle: { type: 'string', value: 'handle', description: 'The account handle, e.g. alice.bsky.social.' },
        'app-password': {
          type: 'string',
          value: 'password',
          description: 'An app password created in the Bluesky settings (not the account password).',
        },
        ...json,
      },
      async run(values, _p, io) {
        const workspaceId = workspaceArg(values);
        const handle = required(values, 'handle').replace(/^@/, '');
        const appPassword = required(values, 'app-password');
        await withAccess(io, async (pool, access, config) => {
          const row = await connectBluesky(pool, access, {
            workspaceId,
            brandId: brandArg(values),
            service: typeof values.service === 'string' ? values.service : config.platforms.bluesky.serviceUrl,
            handle,
            appPassword,
          });
          print(io, values, connectionJson(row), line(row));
        });
      },
    },
    'connections add mastodon': {
      usage:
        'herald connections add mastodon --workspace <uuid> [--brand <id>] --instance <url> --access-token <token> [--json]',
      summary:
        'Connect a real Mastodon account (live workspaces) with an access token (scopes write:statuses write:media read), verified with the instance.',
      options: {
        workspace: WORKSPACE_FLAG,
        brand: BRAND_FLAG,
        instance: { type: 'string', value: 'url', description: 'The Mastodon instance, e.g. https://mastodon.social.' },
        'access-token': {
          type: 'string',
          value: 'token',
          description: 'An access token from the instance (Preferences → Development).',
        },
        ...json,
      },
      async run(values, _p, io) {
        const workspaceId = workspaceArg(values);
        const instance = required(values, 'instance');
        const accessToken = required(values, 'access-token');
        await withAccess(io, async (pool, access) => {
          const row = await connectMastodon(pool, access, {
            workspaceId,
            brandId: brandArg(values),
            instance,
            accessToken,
          });
          print(io, values, connectionJson(row), line(row));
        });
      },
    },
    'connections connect': {
      usage:
        'herald connections connect <platform> --workspace <uuid> [--brand <id>] [--redirect-url <url>] [--mastodon-instance <url>] [--json]',
      summary:
        "Print a connect link: a single-use URL that walks someone through the platform's consent and adds the account to the workspace (test workspaces: through the simulator).",
      positionals: ['platform'],
      options: {
        workspace: WORKSPACE_FLAG,
        brand: BRAND_FLAG,
        'redirect-url': {
          type: 'string',
          value: 'url',
          description: 'Where the browser goes once the account is connected (or the attempt failed).',
        },
        'mastodon-instance': {
          type: 'string',
          value: 'url',
          description: 'Mastodon only: the instance the account lives on (the person chooses when omitted).',
        },
        server: { type: 'string', value: 'url', description: 'Former name of --mastodon-instance, still accepted.' },
        ...json,
      },
      async run(values, positionals, io) {
        const workspaceId = workspaceArg(values);
        const platform = positionals[0];
        if (!platform || !isPlatformName(platform))
          throw new UsageError(`give the platform to connect, one of: ${PLATFORM_NAMES.join(', ')}`);
        await withAccess(io, async (pool, access, config) => {
          const workspace = await findWorkspace(pool, workspaceId);
          if (!workspace) throw new UsageError(`no workspace ${workspaceId}`);
          const ctx: ServiceContext = {
            db: pool,
            workspaceId,
            workspaceMode: workspace.mode,
            brandId: brandArg(values) ?? workspace.default_brand_id,
            brandFromHeader: false,
            allowedBrandIds: null,
            userId: '',
            via: 'api',
          };
          try {
            const link = await createConnectLink(
              ctx,
              { pool, access, ttlSeconds: config.connectLinkTtlSeconds },
              {
                platform,
                redirect_url: typeof values['redirect-url'] === 'string' ? values['redirect-url'] : undefined,
                server_url: mastodonInstance(values),
              },
            );
            print(io, values, link, `${String(link.url)}\n(single use; expires ${String(link.expires_at)})`);
          } catch (error) {
            if (error instanceof AppError) throw new UsageError(error.message);
            throw error;
          }
        });
      },
    },
    'connections reseal': {
      usage: 'herald connections reseal [--json]',
      summary:
        "After rotating HERALD_SECRET_KEY (old key in HERALD_SECRET_KEYS_PREVIOUS): encrypt every connection's tokens again with the new key, so the old one can be dropped.",
      options: { ...json },
      async run(values, _p, io) {
        await withAccess(io, async (pool, access) => {
          const count = await resealCredentials(pool, access);
          print(io, values, { resealed: count }, `${count} connection(s) re-encrypted with the current key`);
        });
      },
    },
    'connections list': {
      usage: 'herald connections list --workspace <uuid> [--json]',
      summary: 'List the connections of a workspace (never their tokens).',
      options: {
        workspace: WORKSPACE_FLAG,
        ...json,
      },
      async run(values, _p, io) {
        const workspaceId = workspaceArg(values);
        await withDatabase(io, async (pool) => {
          const rows = await listConnections(pool, workspaceId, {}, undefined, 100);
          print(io, values, rows.map(connectionJson), rows.map(line).join('\n') || '(no connections)');
        });
      },
    },
  };
}
