// The exactly-once audit shared by the crash test and the reliability suite: compares what Herald recorded for
// each target with what the simulators actually hold. A duplicate is a part posted more than once; a lost post is
// one a simulator holds that no target accounts for (an unknown outcome wrongly marked failed), or an accepted
// post with no targets at all.
import type { Pool } from '../../src/db/pool.ts';
import type { PlatformName } from '../../src/platforms/limits.ts';
import type { RunningSandbox } from '../../src/sandbox/server.ts';

export interface ExactlyOnceAudit {
  targets: number;
  parts: number;
  published: number;
  failed: number;
  duplicates: number;
  lost: number;
  /** Human-readable findings; empty when everything holds. */
  problems: string[];
}

/** Targets not yet published or failed (0 when the engine has settled), of the given posts or of all. */
export async function unsettledTargets(pool: Pool, postIds?: string[]): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM post_targets WHERE status NOT IN ('published', 'failed') AND ($1::text[] IS NULL OR post_id = ANY($1))`,
    [postIds ?? null],
  );
  return rows[0]!.n;
}

/**
 * `texts`: for every accepted post id (the posts audited; other posts in the database are ignored), the text of
 * each of its parts, in order. `threaded`: whether a platform gets every part (else only the first).
 */
export async function auditExactlyOnce(
  pool: Pool,
  sandbox: RunningSandbox,
  texts: Map<string, string[]>,
  platforms: PlatformName[],
  threaded: (platform: PlatformName) => boolean = () => true,
): Promise<ExactlyOnceAudit> {
  const { rows: targets } = await pool.query<{
    id: string;
    post_id: string;
    platform: PlatformName;
    status: string;
    error: { code: string; message: string } | null;
    account: string;
  }>(
    `SELECT t.id, t.post_id, t.platform, t.status, t.error, c.account_id AS account FROM post_targets t JOIN connections c ON c.id = t.connection_id WHERE t.post_id = ANY($1)`,
    [[...texts.keys()]],
  );
  const { rows: partRows } = await pool.query<{ target_id: string; position: number; platform_post_id: string | null }>(
    'SELECT target_id, position, platform_post_id FROM target_parts',
  );
  const audit: ExactlyOnceAudit = {
    targets: targets.length,
    parts: partRows.length,
    published: 0,
    failed: 0,
    duplicates: 0,
    lost: 0,
    problems: [],
  };
  const claimedIds = new Set<string>();
  const postsWithTargets = new Set<string>();
  for (const target of targets) {
    postsWithTargets.add(target.post_id);
    const held = (await sandbox.simulator(target.platform).posts()).filter(
      (p) => p.account === target.account && !p.deleted,
    );
    for (const [position, text] of (texts.get(target.post_id) ?? [])
      .slice(0, threaded(target.platform) ? undefined : 1)
      .entries()) {
      const copies = held.filter((p) => p.text === text);
      if (copies.length > 1) {
        audit.duplicates += copies.length - 1;
        audit.problems.push(`${target.platform} ${text}: ${copies.length} copies`);
      }
      const recorded = partRows.find((p) => p.target_id === target.id && p.position === position)?.platform_post_id;
      if (recorded) claimedIds.add(`${target.platform}:${recorded}`);
      if (target.status === 'published' && (copies.length !== 1 || copies[0]!.id !== recorded))
        audit.problems.push(
          `${target.platform} ${text}: published but the platform holds ${copies.length} (recorded ${recorded})`,
        );
    }
    if (target.status === 'published') audit.published++;
    if (target.status === 'failed') {
      audit.failed++;
      if (!target.error?.code || !target.error.message) audit.problems.push(`${target.id} failed without a reason`);
    }
  }
  for (const platform of platforms) {
    for (const post of await sandbox.simulator(platform).posts()) {
      if (!claimedIds.has(`${platform}:${post.id}`)) {
        audit.lost++;
        audit.problems.push(`${platform} holds ${post.text} (${post.id}) but no target records it`);
      }
    }
  }
  for (const postId of texts.keys()) {
    if (!postsWithTargets.has(postId)) {
      audit.lost++;
      audit.problems.push(`accepted post ${postId} has no targets`);
    }
  }
  return audit;
}
