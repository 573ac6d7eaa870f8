// decay: the median share of a post's engagements reached within its first 24 hours (Zernio's content decay), over
// posts old enough to have settled. Fast decay argues for follow-ups within the day; slow decay for resharing.
import { median, round2 } from './stats.ts';
import { THRESHOLDS } from './thresholds.ts';
import { windowOf, type Rule } from './types.ts';

/** At or above this share in the first day, a brand's posts are "fast"; at or below FAST/2, "slow". */
const FAST_SHARE = 0.8;

export const decay: Rule = ({ samples, period, now }) => {
  const settled = samples.filter(
    (s) =>
      s.engagementsAt24h !== null &&
      s.engagements > 0 &&
      now.getTime() - s.publishedAt.getTime() >= THRESHOLDS.decaySettledHours * 3_600_000,
  );
  if (settled.length < THRESHOLDS.decayMinPosts) return [];
  const shares = settled.map((s) => Math.min(1, s.engagementsAt24h! / s.engagements));
  const share = median(shares);
  const pct = Math.round(share * 100);
  const fast = share >= FAST_SHARE;
  const slow = share <= FAST_SHARE / 2;
  return [
    {
      kind: 'decay',
      severity: 'info',
      title: `Your posts get ${pct}% of their engagement in the first 24 hours`,
      body: `Across ${settled.length} posts at least ${THRESHOLDS.decaySettledHours / 24} days old, the median post had ${pct}% of its engagements by the end of its first day.${fast ? ' Attention fades fast: follow up or reply within the day.' : slow ? ' Posts keep earning for days: reshare the good ones later.' : ''}`,
      evidence: {
        metric: 'share_of_engagements_at_24h',
        value: round2(share),
        baseline: FAST_SHARE,
        sample_size: settled.length,
        window: windowOf(period),
      },
      recommendation: fast
        ? { action: 'follow_up_within_24h', params: {} }
        : slow
          ? { action: 'reshare_later', params: { after_hours: 72 } }
          : { action: 'none', params: {} },
      subject: 'all',
    },
  ];
};
