// best_time: the weekday and hour (UTC) whose posts earn the most engagements on average, per platform, when it
// beats the platform's own average clearly (total engagements in a slot ÷ posts in it, as ContentCal does).
import { groupBy, mean, round2 } from './stats.ts';
import { THRESHOLDS } from './thresholds.ts';
import { windowOf, type InsightDraft, type Rule } from './types.ts';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

export const bestTime: Rule = ({ samples, period }) => {
  const drafts: InsightDraft[] = [];
  for (const [platform, group] of groupBy(samples, (s) => s.platform)) {
    if (group.length < THRESHOLDS.bestTimeMinPosts) continue;
    const overall = mean(group.map((s) => s.engagements));
    const slots = [...groupBy(group, (s) => `${s.publishedAt.getUTCDay()}:${s.publishedAt.getUTCHours()}`)]
      .filter(([, posts]) => posts.length >= THRESHOLDS.slotMinPosts)
      .map(([slot, posts]) => ({ slot, posts, avg: mean(posts.map((s) => s.engagements)) }))
      // Ties go to the earlier slot of the week, so the answer does not depend on the order rows came in.
      .sort((a, b) => b.avg - a.avg || a.slot.localeCompare(b.slot, 'en', { numeric: true }));
    const best = slots[0];
    if (!best || overall <= 0 || best.avg < overall * THRESHOLDS.bestTimeMinLift) continue;
    const [day, hour] = best.slot.split(':').map(Number) as [number, number];
    const lift = best.avg / overall;
    drafts.push({
      kind: 'best_time',
      severity: 'tip',
      title: `Post on ${platform} on ${DAYS[day]} at ${String(hour).padStart(2, '0')}:00 UTC`,
      body: `Your ${best.posts.length} ${platform} posts published on ${DAYS[day]} between ${hour}:00 and ${hour}:59 UTC averaged ${round2(best.avg)} engagements, ${round2(lift)}× your ${platform} average of ${round2(overall)} over ${group.length} posts.`,
      evidence: {
        metric: 'engagements_per_post',
        value: round2(best.avg),
        baseline: round2(overall),
        sample_size: best.posts.length,
        window: windowOf(period),
      },
      recommendation: { action: 'schedule_at_slot', params: { platform, day_of_week: day, hour_utc: hour } },
      subject: `${platform}:${day}:${hour}`,
    });
  }
  return drafts;
};
