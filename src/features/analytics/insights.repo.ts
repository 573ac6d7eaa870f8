// The insights tables' SQL (migration 0023): the one writer of `insights` and `insight_runs`, and the read of the
// samples the rules engine works on. Every function takes the workspace id.
import type { CursorPosition } from '../../app/cursor.ts';
import type { Queryable } from '../../db/pool.ts';
import type { GeneratedBy } from '../ai/ai.types.ts';
import type { InsightFinding, InsightStatus, Sample } from './insights/types.ts';
import { ENGAGEMENT_METRICS } from './metrics.ts';
import { ENGAGEMENTS_SQL } from './summary.repo.ts';

export interface InsightRow extends InsightFinding {
  id: string;
  workspace_id: string;
  brand_id: string;
  status: InsightStatus;
  fingerprint: string;
  generated_by: GeneratedBy;
  period_from: Date;
  period_to: Date;
  created_at: Date;
  updated_at: Date;
  expires_at: Date;
}

const COLUMNS = `id, workspace_id, brand_id, kind, severity, title, body, evidence, recommendation, status, fingerprint,
  generated_by, period_from, period_to, created_at, updated_at, expires_at`;

/**
 * The brand's published targets in the period with known engagements: the rules' samples. `engagementsAt24h` is
 * the sum of each engagement metric's last `ok` reading within 24 h of publication.
 */
export async function insightSamples(
  db: Queryable,
  workspaceId: string,
  scope: { brandId: string; from: Date; to: Date; platforms: readonly string[] | null },
): Promise<Sample[]> {
  const { rows } = await db.query<{
    target_id: string;
    post_id: string;
    platform: string;
    connection_id: string | null;
    published_at: Date;
    engagements: string;
    at24h: string | null;
    has_media: boolean;
  }>(
    `SELECT m.target_id, m.post_id, m.platform, m.connection_id, m.published_at, m.engagements,
            cardinality(p.media_ids) > 0 AS has_media,
            (SELECT sum(first_day.value)
               FROM (SELECT DISTINCT ON (s.metric) s.value
                       FROM metric_snapshots s
                      WHERE s.target_id = m.target_id AND s.metric = ANY($6::text[]) AND s.status = 'ok'
                        AND s.captured_at <= m.published_at + interval '24 hours'
                      ORDER BY s.metric, s.captured_at DESC) AS first_day) AS at24h
       FROM (SELECT target_id, post_id, platform, connection_id, published_at, ${ENGAGEMENTS_SQL} AS engagements
               FROM target_metrics
              WHERE workspace_id = $1 AND brand_id = $2 AND published_at >= $3 AND published_at < $4
                AND ($5::text[] IS NULL OR platform = ANY($5::text[]))) AS m
       JOIN posts p ON p.id = m.post_id AND p.workspace_id = $1
      WHERE m.engagements IS NOT NULL
      ORDER BY m.published_at, m.target_id`,
    [workspaceId, scope.brandId, scope.from, scope.to, scope.platforms, ENGAGEMENT_METRICS],
  );
  return rows.map((r) => ({
    targetId: r.target_id,
    postId: r.post_id,
    platform: r.platform,
    connectionId: r.connection_id,
    publishedAt: r.published_at,
    engagements: Number(r.engagements),
    engagementsAt24h: r.at24h === null ? null : Number(r.at24h),
    hasMedia: r.has_media,
  }));
}

export interface InsightWrite extends InsightFinding {
  id: string;
  brandId: string;
  fingerprint: string;
  generatedBy: GeneratedBy;
  periodFrom: Date;
  periodTo: Date;
  now: Date;
  expiresAt: Date;
}

/**
 * Stores a finding, or refreshes the stored one with the same fingerprint: new numbers and wording, its status
 * kept (a dismissed insight stays dismissed). Returns the stored row.
 */
export async function upsertInsight(db: Queryable, workspaceId: string, w: InsightWrite): Promise<InsightRow> {
  const { rows } = await db.query<InsightRow>(
    `INSERT INTO insights (id, workspace_id, brand_id, kind, severity, title, body, evidence, recommendation,
                           fingerprint, generated_by, period_from, period_to, created_at, updated_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14, $15)
     ON CONFLICT (workspace_id, fingerprint) DO UPDATE
        SET severity = excluded.severity, title = excluded.title, body = excluded.body,
            evidence = excluded.evidence, recommendation = excluded.recommendation,
            generated_by = excluded.generated_by, period_from = excluded.period_from,
            period_to = excluded.period_to, updated_at = excluded.updated_at, expires_at = excluded.expires_at
     RETURNING ${COLUMNS}`,
    [
      w.id,
      workspaceId,
      w.brandId,
      w.kind,
      w.severity,
      w.title,
      w.body,
      JSON.stringify(w.evidence),
      JSON.stringify(w.recommendation),
      w.fingerprint,
      JSON.stringify(w.generatedBy),
      w.periodFrom,
      w.periodTo,
      w.now,
      w.expiresAt,
    ],
  );
  return rows[0]!;
}

export interface InsightRun {
  period_from: Date;
  period_to: Date;
  insight_ids: string[];
  generated_at: Date;
}

/** The brand's last generation for this scope, while it has not expired. */
export async function freshRun(
  db: Queryable,
  workspaceId: string,
  brandId: string,
  scopeKey: string,
  now: Date,
): Promise<InsightRun | undefined> {
  const { rows } = await db.query<InsightRun>(
    `SELECT period_from, period_to, insight_ids, generated_at FROM insight_runs
      WHERE workspace_id = $1 AND brand_id = $2 AND scope_key = $3 AND expires_at > $4`,
    [workspaceId, brandId, scopeKey, now],
  );
  return rows[0];
}

export async function saveRun(
  db: Queryable,
  workspaceId: string,
  run: InsightRun & { brandId: string; scopeKey: string; expiresAt: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO insight_runs (workspace_id, brand_id, scope_key, period_from, period_to, insight_ids, generated_at,
                               expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (workspace_id, brand_id, scope_key) DO UPDATE
        SET period_from = excluded.period_from, period_to = excluded.period_to, insight_ids = excluded.insight_ids,
            generated_at = excluded.generated_at, expires_at = excluded.expires_at`,
    [
      workspaceId,
      run.brandId,
      run.scopeKey,
      run.period_from,
      run.period_to,
      run.insight_ids,
      run.generated_at,
      run.expiresAt,
    ],
  );
}

export async function insightsByIds(db: Queryable, workspaceId: string, ids: readonly string[]): Promise<InsightRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<InsightRow>(
    `SELECT ${COLUMNS} FROM insights WHERE workspace_id = $1 AND id = ANY($2::text[])`,
    [workspaceId, ids],
  );
  return rows;
}

export interface InsightFilters {
  brandIds: readonly string[] | null;
  /** Only insights still current at this time (`expires_at` after it). */
  currentAt: Date;
  statuses?: readonly string[];
  kinds?: readonly string[];
  severities?: readonly string[];
}

/** One page, newest first; the caller asks for one more row than it shows. */
export async function listInsights(
  db: Queryable,
  workspaceId: string,
  filters: InsightFilters,
  after: CursorPosition | undefined,
  limit: number,
): Promise<InsightRow[]> {
  const values: unknown[] = [workspaceId];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const where = ['workspace_id = $1', `expires_at > ${param(filters.currentAt)}`];
  if (filters.brandIds) where.push(`brand_id = ANY(${param(filters.brandIds)}::text[])`);
  if (filters.statuses) where.push(`status = ANY(${param(filters.statuses)}::text[])`);
  if (filters.kinds) where.push(`kind = ANY(${param(filters.kinds)}::text[])`);
  if (filters.severities) where.push(`severity = ANY(${param(filters.severities)}::text[])`);
  if (after) where.push(`(created_at, id) < (${param(after.value)}::timestamptz, ${param(after.id)})`);
  const { rows } = await db.query<InsightRow>(
    `SELECT ${COLUMNS} FROM insights WHERE ${where.join(' AND ')}
      ORDER BY created_at DESC, id DESC LIMIT ${param(limit)}`,
    values,
  );
  return rows;
}

export async function findInsight(db: Queryable, workspaceId: string, id: string): Promise<InsightRow | undefined> {
  const { rows } = await db.query<InsightRow>(`SELECT ${COLUMNS} FROM insights WHERE workspace_id = $1 AND id = $2`, [
    workspaceId,
    id,
  ]);
  return rows[0];
}

export async function setInsightStatus(
  db: Queryable,
  workspaceId: string,
  id: string,
  status: InsightStatus,
  now: Date,
): Promise<InsightRow | undefined> {
  const { rows } = await db.query<InsightRow>(
    `UPDATE insights SET status = $3, updated_at = $4 WHERE workspace_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [workspaceId, id, status, now],
  );
  return rows[0];
}
