// Seeds published posts with metric readings straight into the tables the metrics sync writes (metric_snapshots
// and the target_metrics rollup), so analytics tests choose their numbers instead of waiting for a sync.
import type { Queryable } from '../../src/db/pool.ts';
import { newId } from '../../src/lib/ids.ts';
import { METRIC_NAMES, type MetricName } from '../../src/platforms/types.ts';

export interface SeedTarget {
  platform: string;
  connectionId?: string | null;
  /** Readings, oldest first: each is a cumulative total per metric at `at`, as the platforms report them. */
  readings: Array<{ at: Date; metrics: Partial<Record<MetricName, number>> }>;
  /** Metrics the platform does not give (recorded once as `unavailable`). */
  unavailable?: MetricName[];
}

export interface SeedPost {
  workspaceId: string;
  brandId: string;
  publishedAt: Date;
  content?: string;
  mediaIds?: string[];
  targets: SeedTarget[];
}

export async function seedPublishedPost(
  db: Queryable,
  seed: SeedPost,
): Promise<{ postId: string; targetIds: string[] }> {
  const postId = newId('post');
  await db.query(
    `INSERT INTO posts (id, workspace_id, brand_id, content, platforms, media_ids, status, published_at, created_via,
                        created_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'published', $7, 'api', $7)`,
    [
      postId,
      seed.workspaceId,
      seed.brandId,
      seed.content ?? 'seeded post',
      [...new Set(seed.targets.map((t) => t.platform))],
      seed.mediaIds ?? [],
      seed.publishedAt,
    ],
  );
  const targetIds: string[] = [];
  for (const [position, t] of seed.targets.entries()) {
    const targetId = newId('tgt');
    targetIds.push(targetId);
    await db.query(
      `INSERT INTO post_targets (id, workspace_id, post_id, position, platform, connection_id, sandbox, status,
                                 platform_post_id, published_at)
       VALUES ($1, $2, $3, $4, $5, $6, true, 'published', $7, $8)`,
      [
        targetId,
        seed.workspaceId,
        postId,
        position,
        t.platform,
        t.connectionId ?? null,
        `pp_${targetId}`,
        seed.publishedAt,
      ],
    );
    const unavailable = t.unavailable ?? [];
    for (const [i, r] of t.readings.entries()) {
      for (const [metric, value] of Object.entries(r.metrics))
        await db.query(
          `INSERT INTO metric_snapshots (workspace_id, target_id, metric, value, status, captured_at, source)
           VALUES ($1, $2, $3, $4, 'ok', $5, 'sandbox')`,
          [seed.workspaceId, targetId, metric, value, r.at],
        );
      if (i === 0)
        for (const metric of unavailable)
          await db.query(
            `INSERT INTO metric_snapshots (workspace_id, target_id, metric, value, status, captured_at, source)
             VALUES ($1, $2, $3, NULL, 'unavailable', $4, 'sandbox')`,
            [seed.workspaceId, targetId, metric, r.at],
          );
    }
    const last = t.readings.at(-1);
    const latest = Object.fromEntries(
      METRIC_NAMES.flatMap((m) => (last?.metrics[m] !== undefined ? [[m, last.metrics[m]]] : [])),
    );
    await db.query(
      `INSERT INTO target_metrics (target_id, workspace_id, post_id, brand_id, connection_id, platform, sandbox,
                                   published_at, latest, unavailable, first_captured_at, last_captured_at, sync_count)
       VALUES ($1, $2, $3, $4, $5, $6, true, $7, $8, $9, $10, $11, $12)`,
      [
        targetId,
        seed.workspaceId,
        postId,
        seed.brandId,
        t.connectionId ?? null,
        t.platform,
        seed.publishedAt,
        JSON.stringify(latest),
        unavailable,
        t.readings[0]?.at ?? null,
        last?.at ?? null,
        t.readings.length,
      ],
    );
  }
  return { postId, targetIds };
}

/** A post on one platform with one final reading `hours` after publication. */
export function onePost(
  base: Pick<SeedPost, 'workspaceId' | 'brandId'>,
  platform: string,
  publishedAt: Date,
  metrics: Partial<Record<MetricName, number>>,
  options: { connectionId?: string | null; unavailable?: MetricName[]; mediaIds?: string[]; content?: string } = {},
): SeedPost {
  return {
    ...base,
    publishedAt,
    content: options.content,
    mediaIds: options.mediaIds,
    targets: [
      {
        platform,
        connectionId: options.connectionId,
        unavailable: options.unavailable,
        readings: [{ at: new Date(publishedAt.getTime() + 48 * 3_600_000), metrics }],
      },
    ],
  };
}
