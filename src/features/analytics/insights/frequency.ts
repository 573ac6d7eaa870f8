// frequency: how many posts a week earn the most engagements per post, per platform (Zernio's posting-frequency
// bands). Weeks are ISO weeks (Monday 00:00 UTC); a band is compared once it covers enough weeks.
import { groupBy, mean, median, round2 } from './stats.ts';
import { FREQUENCY_BANDS, THRESHOLDS } from './thresholds.ts';
import { windowOf, type InsightDraft, type Rule, type Sample } from './types.ts';

/** The Monday (UTC) that starts the week of `date`, as `YYYY-MM-DD`. */
export function weekOf(date: Date): string {
  const day = (date.getUTCDay() + 6) % 7;
  const monday = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() - day));
  return monday.toISOString().slice(0, 10);
}

function bandOf(postsPerWeek: number): (typeof FREQUENCY_BANDS)[number] {
  return FREQUENCY_BANDS.find((b) => postsPerWeek >= b.min && postsPerWeek <= b.max)!;
}

export const frequency: Rule = ({ samples, period }) => {
  const drafts: InsightDraft[] = [];
  for (const [platform, group] of groupBy(samples, (s) => s.platform)) {
    const weeks = [...groupBy(group, (s) => weekOf(s.publishedAt)).values()];
    if (weeks.length < THRESHOLDS.frequencyMinWeeks) continue;
    const byBand = groupBy(weeks, (posts) => bandOf(posts.length).label);
    const usual = bandOf(median(weeks.map((w) => w.length))).label;
    const bands = [...byBand]
      .filter(([, ws]) => ws.length >= THRESHOLDS.bandMinWeeks)
      .map(([label, ws]) => ({ label, weeks: ws.length, perPost: mean(ws.flat().map((s: Sample) => s.engagements)) }))
      .sort((a, b) => b.perPost - a.perPost || a.label.localeCompare(b.label));
    const best = bands[0];
    const current = bands.find((b) => b.label === usual);
    if (!best || !current || best.label === usual || current.perPost <= 0) continue;
    if (best.perPost < current.perPost * THRESHOLDS.frequencyMinLift) continue;
    const band = FREQUENCY_BANDS.find((b) => b.label === best.label)!;
    drafts.push({
      kind: 'frequency',
      severity: 'tip',
      title: `Post ${best.label} times a week on ${platform}`,
      body: `In the ${best.weeks} weeks you posted ${best.label} times on ${platform}, posts averaged ${round2(best.perPost)} engagements, against ${round2(current.perPost)} in your usual ${usual} posts a week (${weeks.length} weeks with posts).`,
      evidence: {
        metric: 'engagements_per_post',
        value: round2(best.perPost),
        baseline: round2(current.perPost),
        sample_size: weeks.length,
        window: windowOf(period),
      },
      recommendation: {
        action: 'set_posting_frequency',
        params: {
          platform,
          posts_per_week_min: band.min,
          posts_per_week_max: Number.isFinite(band.max) ? band.max : null,
        },
      },
      subject: platform,
    });
  }
  return drafts;
};
