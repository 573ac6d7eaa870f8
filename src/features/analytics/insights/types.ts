// The rules engine's vocabulary (docs/analytics.md "Insights").
//
// Glossary
// - sample: one published target (a post on one account of one platform) with its latest metrics, as the rollup
//   keeps them. Rules count samples, never snapshots, so a total re-synced twice is still one value.
// - engagements: likes + comments + shares + quotes + saves of a sample, summing the metrics its platform gives;
//   null when it gives none of them (then the sample is left out of every rule, never counted as 0).
// - account: one connection; outliers are judged against the account's own median, so a large account does not
//   make a small one's posts look poor.
// - draft: what a rule finds, before it is stored: its fingerprint names the finding without its numbers, so a
//   regeneration updates the stored insight instead of adding a second one.
import type { PlatformName } from '../../../platforms/limits.ts';

export const INSIGHT_KINDS = [
  'best_time',
  'top_post',
  'underperformer',
  'frequency',
  'format',
  'platform_mix',
  'decay',
  'inbox_response',
] as const;
export type InsightKind = (typeof INSIGHT_KINDS)[number];

export const INSIGHT_SEVERITIES = ['critical', 'positive', 'tip', 'info'] as const;
export type InsightSeverity = (typeof INSIGHT_SEVERITIES)[number];

export const INSIGHT_STATUSES = ['new', 'viewed', 'dismissed', 'acted_upon'] as const;
export type InsightStatus = (typeof INSIGHT_STATUSES)[number];

export interface Sample {
  targetId: string;
  postId: string;
  platform: PlatformName | string;
  /** The account it was published as; null for targets whose connection is gone. */
  connectionId: string | null;
  publishedAt: Date;
  engagements: number;
  /** Engagements at the last reading within 24 h of publication; null when no reading was taken that early. */
  engagementsAt24h: number | null;
  /** Whether the post carried media (images, video, documents). */
  hasMedia: boolean;
}

export interface Period {
  from: Date;
  to: Date;
}

export interface RuleInput {
  brandId: string;
  period: Period;
  /** Samples published within the period whose engagements are known. */
  samples: readonly Sample[];
  now: Date;
}

export interface Evidence {
  metric: string;
  value: number;
  baseline: number;
  sample_size: number;
  window: { from: string; to: string };
}

/** What an insight says, as a rule finds it and the `insights` table stores it. */
export interface InsightFinding {
  kind: InsightKind;
  severity: InsightSeverity;
  title: string;
  body: string;
  evidence: Evidence;
  recommendation: { action: string; params: Record<string, unknown> };
}

export interface InsightDraft extends InsightFinding {
  /** What the finding is about, without its numbers: hashed with kind and brand into the fingerprint. */
  subject: string;
}

export type Rule = (input: RuleInput) => InsightDraft[];

export function windowOf(period: Period): Evidence['window'] {
  return { from: period.from.toISOString(), to: period.to.toISOString() };
}
