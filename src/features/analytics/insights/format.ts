// format: posts with media against text-only posts, by median engagements (a median, so one viral post of either
// kind does not decide it).
import { median, round2 } from './stats.ts';
import { THRESHOLDS } from './thresholds.ts';
import { windowOf, type Rule } from './types.ts';

export const format: Rule = ({ samples, period }) => {
  const media = samples.filter((s) => s.hasMedia).map((s) => s.engagements);
  const text = samples.filter((s) => !s.hasMedia).map((s) => s.engagements);
  if (media.length < THRESHOLDS.formatMinPerGroup || text.length < THRESHOLDS.formatMinPerGroup) return [];
  const m = median(media);
  const t = median(text);
  const mediaWins = m >= t;
  const [winner, loser] = mediaWins ? [m, t] : [t, m];
  if (winner < loser * THRESHOLDS.formatMinLift || winner === 0) return [];
  const lift = loser > 0 ? `${round2(winner / loser)}× ` : '';
  return [
    {
      kind: 'format',
      severity: 'tip',
      title: mediaWins ? 'Posts with media do better' : 'Text-only posts do better',
      body: `${mediaWins ? 'Posts with media' : 'Text-only posts'} earned a median of ${round2(winner)} engagements, ${lift}the ${round2(loser)} of ${mediaWins ? 'text-only posts' : 'posts with media'} (${media.length} with media, ${text.length} without).`,
      evidence: {
        metric: 'median_engagements',
        value: round2(winner),
        baseline: round2(loser),
        sample_size: media.length + text.length,
        window: windowOf(period),
      },
      recommendation: { action: mediaWins ? 'add_media' : 'try_text_posts', params: {} },
      subject: 'media_vs_text',
    },
  ];
};
