// The first start of an installation: the owner account, the Sandbox workspace with its default brand, a sandbox
// connection per platform (sandbox-seed.ts), the owner's generated password and a first API key, shown once.
// `herald serve --role all` runs it on every start (it is idempotent); `herald init` runs the same code, so a
// fleet of `--role api` and `--role worker` processes (which never set anything up) gets the same first workspace.
import type { Config } from './config.ts';
import type { Pool } from './db/pool.ts';
import type { PlatformAccess } from './features/connections/platform-access.ts';
import { seedSandboxConnections } from './features/connections/sandbox-seed.ts';
import { createKey } from './features/keys/keys.service.ts';
import { ALL_SCOPES } from './features/keys/scopes.ts';
import { ensurePassword } from './features/users/users.service.ts';
import { ensureOwnerAndSandbox } from './features/workspaces/workspaces.service.ts';
import type { Logger } from './lib/logger.ts';
import { PLATFORM_LIMITS } from './platforms/catalogue.ts';
import type { PlatformName } from './platforms/limits.ts';
import type { SandboxSimulators } from './sandbox/simulators.ts';

export interface FirstStartDeps {
  pool: Pool;
  config: Pick<Config, 'ownerEmail' | 'publicUrl'>;
  logger: Pick<Logger, 'info'>;
  platformAccess: PlatformAccess;
  simulators: SandboxSimulators;
}

export interface FirstStart {
  /** True when this call created the Sandbox workspace (the key and the Try lines are shown then only). */
  created: boolean;
  userId: string;
  email: string;
  workspaceId: string;
  brandId: string;
  /** Sandbox connections made by this call, as `platform:@handle`. */
  connections: string[];
  /** The owner's generated password, when the owner had none. */
  password: string | null;
  /** The first API key (all scopes, the Sandbox workspace), when the workspace was just created. */
  apiKey: string | null;
  /** What to show the person who ran it (empty when nothing is new). */
  text: string;
}

/**
 * What a platform needs beyond the Try post's text (media of a kind, options such as a Pinterest board), from its
 * limits; null when the text alone publishes there.
 */
function tryBlocker(platform: PlatformName): string | null {
  const limits = PLATFORM_LIMITS[platform];
  const needs: string[] = [];
  if (limits.media.required) {
    const kinds = Object.keys(limits.media.kinds);
    needs.push(
      kinds.every((k) => k === 'video') ? 'a video' : kinds.includes('video') ? 'an image or video' : 'an image',
    );
  }
  const issues = limits.checkOptions?.({}, limits.media.required ? 1 : 0) ?? [];
  if (issues.length > 0) needs.push(`options (${issues.map((i) => i.rule).join(', ')})`);
  return needs.length > 0 ? needs.join(' and ') : null;
}

const orList = (names: string[]) =>
  names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}` : names.join('');

/** "a video on tiktok and youtube; an image on instagram": the platforms grouped by what they need. */
function blockers(platforms: PlatformName[]): string {
  const byNeed = new Map<string, PlatformName[]>();
  for (const p of platforms) byNeed.set(tryBlocker(p)!, [...(byNeed.get(tryBlocker(p)!) ?? []), p]);
  return [...byNeed].map(([need, names]) => `${need} on ${names.join(' and ')}`).join('; ');
}

/** Idempotent: a second call (or a concurrent one) finds everything in place and creates nothing. */
export async function firstStart(deps: FirstStartDeps, email = deps.config.ownerEmail): Promise<FirstStart> {
  const { pool, config, logger } = deps;
  const boot = await ensureOwnerAndSandbox(pool, email);
  const seeded = await seedSandboxConnections({
    pool,
    access: deps.platformAccess,
    simulators: deps.simulators,
    workspaceId: boot.workspaceId,
    brandId: boot.brandId,
  });
  const connections = seeded.map((c) => `${c.platform}:@${c.handle}`);
  if (seeded.length > 0) logger.info({ connections }, 'sandbox connections created');
  const password = await ensurePassword(pool, boot.userId);
  const result = { ...boot, connections, password: password ?? null, apiKey: null, text: '' };
  const passwordLine = password
    ? [
        `  Password      ${password}   (sign-in for connecting assistants; change it with \`herald users set-password ${boot.email}\`)`,
      ]
    : [];
  if (!boot.created) {
    if (password)
      result.text = [
        '',
        `The owner account ${boot.email} had no password. This is shown once:`,
        ...passwordLine,
        '',
      ].join('\n');
    return result;
  }
  // The Try command must work when pasted, so it names only the platforms a text post with no options can go to; a
  // platform that needs media or options (Instagram an image, TikTok and YouTube a video, Pinterest an image and a
  // board) is named on the line after it instead, with why (docs/decisions.md, "The first-start Try").
  const textReady = seeded.filter((c) => tryBlocker(c.platform) === null).map((c) => c.platform);
  const needMedia = seeded.filter((c) => tryBlocker(c.platform) !== null).map((c) => c.platform);
  const { key } = await createKey(pool, {
    userId: boot.userId,
    name: 'First-start key',
    scopes: [...ALL_SCOPES],
    workspaceIds: [boot.workspaceId],
    expiresAt: null,
  });
  const text = [
    '',
    'Herald is set up. This is shown once:',
    `  URL           ${config.publicUrl}`,
    `  Owner         ${boot.email}`,
    ...passwordLine,
    `  Workspace     ${boot.workspaceId}  (Sandbox, test mode)`,
    `  Brand         ${boot.brandId}`,
    `  Connections   ${seeded.map((c) => `${c.platform} @${c.handle}`).join(', ') || '(none: HERALD_SANDBOX=off)'}  (simulated)`,
    `  API key       ${key}`,
    '',
    ...(textReady.length > 0
      ? [
          `Try: curl -H "Authorization: Bearer ${key}" -H "Idempotency-Key: first-post" -H "Content-Type: application/json" \\`,
          `       -d '{"content":"Hello from Herald","platforms":[${textReady.map((p) => `"${p}"`).join(',')}],"publish_now":true}' ${config.publicUrl}/v1/posts`,
        ]
      : []),
    ...(needMedia.length > 0
      ? [
          `     (Not ${orList(needMedia)}: a post there needs ${blockers(needMedia)}. "Attach an image" in the README shows how.)`,
        ]
      : []),
    `MCP: ${config.publicUrl}/mcp  (assistants sign in with the owner email and password above)`,
    '',
  ].join('\n');
  return { ...result, apiKey: key, text };
}
