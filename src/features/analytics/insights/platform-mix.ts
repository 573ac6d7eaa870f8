// platform_mix: the platform whose posts earn the most engagements per post, when it clearly beats the median
// platform of the brand: where more of the brand's posting would pay off.
import { groupBy, mean, median, round2 } from './stats.ts';
import { THRESHOLDS } from './thresholds.ts';
import { windowOf, type Rule } from './types.ts';

export const platformMix: Rule = ({ samples, period }) => {
  const platforms = [...groupBy(samples, (s) => s.platform)]
    .filter(([, group]) => group.length >= THRESHOLDS.mixMinPerPlatform)
    .map(([platform, group]) => ({ platform, posts: group.length, perPost: mean(group.map((s) => s.engagements)) }))
    .sort((a, b) => b.perPost - a.perPost || a.platform.localeCompare(b.platform));
  if (platforms.length < 2) return [];
  const best = platforms[0]!;
  const baseline = median(platforms.map((p) => p.perPost));
  if (baseline <= 0 || best.perPost < baseline * THRESHOLDS.mixMinLift) return [];
  const size = platforms.reduce((n, p) => n + p.posts, 0);
  return [
    {
      kind: 'platform_mix',
      severity: 'info',
      title: `${best.platform} earns you the most per post`,
      body: `Your ${best.posts} ${best.platform} posts averaged ${round2(best.perPost)} engagements each, ${round2(best.perPost / baseline)}× the median of your ${platforms.length} platforms (${round2(baseline)}).`,
      evidence: {
        metric: 'engagements_per_post',
        value: round2(best.perPost),
        baseline: round2(baseline),
        sample_size: size,
        window: windowOf(period),
      },
      recommendation: { action: 'shift_platform_mix', params: { platform: best.platform } },
      subject: best.platform,
    },
  ];
};
