// Which connection each target of a post publishes through (docs/api.md "Posts"): every id in `connection_ids`
// gets its own target (so one post can go to two X accounts); each listed platform without one uses the
// brand's default connection. A post that will publish (scheduled or publish-now) must have a usable
// connection for every platform — else 422 naming platform and rule; a draft may wait for one. The chosen
// connections also decide the limits the text is checked against (a Mastodon instance's own).
import type { Queryable } from '../../db/pool.ts';
import { PLATFORM_LIMITS } from '../../platforms/catalogue.ts';
import type { PlatformLimits, PlatformName } from '../../platforms/limits.ts';
import type { PlatformRegistry } from '../../platforms/registry.ts';
import { findConnections, findDefaults, type ConnectionRow } from '../connections/connections.repo.ts';
import type { RuleIssue } from './posts.rules.ts';

export interface TargetPlan {
  platform: PlatformName;
  connectionId: string | null;
}

export interface Resolution {
  targets: TargetPlan[];
  issues: RuleIssue[];
  /** The limits to check each platform's text against: the strictest of its connections', else the stock ones. */
  limitsOf(platform: PlatformName): PlatformLimits;
}

export interface ResolveInput {
  workspaceId: string;
  brandId: string;
  platforms: PlatformName[];
  connectionIds: string[];
  /** True when the post will publish: every platform then needs a usable connection. */
  required: boolean;
  /** The brand's default connections of `platforms`, when the caller has just read them (readCreateContext). */
  defaults?: ConnectionRow[];
}

export async function resolveConnections(
  db: Queryable,
  registry: PlatformRegistry,
  input: ResolveInput,
): Promise<Resolution> {
  const issues: RuleIssue[] = [];
  const explicit =
    input.connectionIds.length > 0 ? await findConnections(db, input.workspaceId, input.connectionIds) : [];
  const chosen = new Map<PlatformName, ConnectionRow[]>();
  input.connectionIds.forEach((id, i) => {
    const path = `/connection_ids/${i}`;
    const c = explicit.find((row) => row.id === id);
    if (!c)
      return issues.push({
        platform: null,
        rule: 'connection_not_found',
        message: `No connection ${id} in this workspace.`,
        path,
      });
    if (c.brand_id !== input.brandId)
      return issues.push({
        platform: c.platform,
        rule: 'connection_other_brand',
        message: `Connection ${id} belongs to brand ${c.brand_id}, not to this post's brand ${input.brandId}.`,
        path,
      });
    if (!input.platforms.includes(c.platform))
      return issues.push({
        platform: c.platform,
        rule: 'connection_platform_not_listed',
        message: `Connection ${id} is a ${c.platform} account but ${c.platform} is not in platforms.`,
        path,
      });
    if (c.status === 'disconnected')
      return issues.push({
        platform: c.platform,
        rule: 'connection_disconnected',
        message: `Connection ${id} was disconnected.`,
        path,
      });
    chosen.set(c.platform, [...(chosen.get(c.platform) ?? []), c]);
  });
  const missing = input.platforms.filter((p) => !chosen.has(p));
  const defaults =
    missing.length === 0
      ? []
      : input.defaults
        ? input.defaults.filter((d) => missing.includes(d.platform))
        : await findDefaults(db, input.workspaceId, input.brandId, missing);
  for (const d of defaults) chosen.set(d.platform, [d]);

  const targets: TargetPlan[] = [];
  input.platforms.forEach((platform, i) => {
    const rows = chosen.get(platform) ?? [];
    if (rows.length === 0) {
      if (input.required) {
        const name = PLATFORM_LIMITS[platform].displayName;
        issues.push(
          registry.get(platform)
            ? {
                platform,
                rule: 'connection_required',
                message: `This brand has no ${name} connection: connect an account or name one in connection_ids.`,
                path: `/platforms/${i}`,
              }
            : {
                platform,
                rule: 'platform_unavailable',
                message: `Herald cannot publish to ${name} yet; keep the post as a draft or remove ${platform}.`,
                path: `/platforms/${i}`,
              },
        );
      }
      targets.push({ platform, connectionId: null });
      return;
    }
    for (const row of rows) {
      if (input.required && row.status === 'expired') {
        issues.push({
          platform,
          rule: 'connection_expired',
          message: `The ${PLATFORM_LIMITS[platform].displayName} account ${row.handle} must be reconnected (the platform stopped accepting its token).`,
          path: `/platforms/${i}`,
        });
      }
      targets.push({ platform, connectionId: row.id });
    }
  });

  return {
    targets,
    issues,
    limitsOf(platform) {
      const adapter = registry.get(platform);
      const own = (chosen.get(platform) ?? []).map((row) => adapter?.limitsFor(row) ?? PLATFORM_LIMITS[platform]);
      return own.reduce((a, b) => (b.text.maxLength < a.text.maxLength ? b : a), own[0] ?? PLATFORM_LIMITS[platform]);
    },
  };
}
