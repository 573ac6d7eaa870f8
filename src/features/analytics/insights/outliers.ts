// top_post and underperformer: posts whose engagements lie beyond ±2 robust z-scores of their account's median
// (median absolute deviation, see stats.ts), so one viral post neither hides the others nor drags the baseline.
import { groupBy, median, robustZ, round2 } from './stats.ts';
import { THRESHOLDS } from './thresholds.ts';
import { windowOf, type InsightDraft, type Rule, type Sample } from './types.ts';

interface Scored {
  sample: Sample;
  z: number;
}

function scoreAccounts(samples: readonly Sample[]): Array<{ scored: Scored[]; baseline: number; size: number }> {
  const accounts = groupBy(
    samples.filter((s) => s.connectionId !== null),
    (s) => s.connectionId!,
  );
  const out = [];
  for (const group of accounts.values()) {
    if (group.length < THRESHOLDS.outlierMinPosts) continue;
    const values = group.map((s) => s.engagements);
    const z = robustZ(values);
    if (!z) continue;
    out.push({
      scored: group.map((sample, i) => ({ sample, z: z[i]! })),
      baseline: median(values),
      size: group.length,
    });
  }
  return out;
}

function draft(
  kind: 'top_post' | 'underperformer',
  s: Scored,
  baseline: number,
  size: number,
  input: Parameters<Rule>[0],
): InsightDraft {
  const { sample } = s;
  const above = kind === 'top_post';
  const ratio = baseline > 0 ? `${round2(sample.engagements / baseline)}× ` : '';
  return {
    kind,
    severity: above ? 'positive' : 'critical',
    title: above
      ? `A ${sample.platform} post far outperformed its account`
      : `A ${sample.platform} post fell well below its account's usual`,
    body: `Post ${sample.postId} earned ${sample.engagements} engagements on ${sample.platform}, ${ratio}the account's median of ${round2(baseline)} over ${size} posts (robust z-score ${round2(s.z)}).`,
    evidence: {
      metric: 'engagements',
      value: sample.engagements,
      baseline: round2(baseline),
      sample_size: size,
      window: windowOf(input.period),
    },
    recommendation: above
      ? { action: 'repurpose_post', params: { post_id: sample.postId, target_id: sample.targetId } }
      : { action: 'review_post', params: { post_id: sample.postId, target_id: sample.targetId } },
    subject: sample.targetId,
  };
}

/** The rule for one side: posts above +2 (top_post) or below −2 (underperformer). */
export function outliers(kind: 'top_post' | 'underperformer'): Rule {
  return (input) => {
    const found: Array<{ s: Scored; baseline: number; size: number }> = [];
    for (const account of scoreAccounts(input.samples))
      for (const s of account.scored)
        if (kind === 'top_post' ? s.z > THRESHOLDS.outlierZ : s.z < -THRESHOLDS.outlierZ)
          found.push({ s, baseline: account.baseline, size: account.size });
    return found
      .sort((a, b) => Math.abs(b.s.z) - Math.abs(a.s.z) || a.s.sample.targetId.localeCompare(b.s.sample.targetId))
      .slice(0, THRESHOLDS.outlierMaxPerKind)
      .map((f) => draft(kind, f.s, f.baseline, f.size, input));
  };
}
