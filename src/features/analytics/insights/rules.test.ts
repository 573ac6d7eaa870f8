// Every insight rule on constructed samples with known answers, and each rule's minimum-sample threshold: one
// sample fewer and the rule says nothing.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bestTime } from './best-time.ts';
import { decay } from './decay.ts';
import { fingerprintOf, runRules } from './engine.ts';
import { format } from './format.ts';
import { frequency, weekOf } from './frequency.ts';
import { platformMix } from './platform-mix.ts';
import { mad, median, robustZ } from './stats.ts';
import { THRESHOLDS } from './thresholds.ts';
import { topPost } from './top-post.ts';
import type { RuleInput, Sample } from './types.ts';
import { underperformer } from './underperformer.ts';

const now = new Date('2026-12-01T00:00:00Z');
const period = { from: new Date('2026-09-02T00:00:00Z'), to: now };
const HOUR = 3_600_000;
let n = 0;

function sample(over: Partial<Sample> = {}): Sample {
  n++;
  return {
    targetId: `tgt_${String(n).padStart(4, '0')}`,
    postId: `post_${String(n).padStart(4, '0')}`,
    platform: 'x',
    connectionId: 'conn_a',
    publishedAt: new Date('2026-11-10T12:00:00Z'),
    engagements: 10,
    engagementsAt24h: null,
    hasMedia: false,
    ...over,
  };
}

const input = (samples: Sample[]): RuleInput => ({ brandId: 'brand_1', period, samples, now });
/** A Tuesday (2026-11-03) at `hour` UTC, `weeks` weeks later. */
const tuesday = (hour: number, weeks = 0) => new Date(Date.UTC(2026, 10, 3 + 7 * weeks, hour, 15));

describe('robust statistics', () => {
  test('median, MAD and the robust z-score of a known series', () => {
    const values = [9, 9, 10, 10, 10, 11, 11, 12, 12, 100];
    assert.equal(median(values), 10.5);
    assert.equal(mad(values), 1);
    assert.equal(Math.round(robustZ(values)!.at(-1)! * 100) / 100, 60.37); // 0.6745 × 89.5 / 1
  });

  test('when more than half the values are equal, the mean absolute deviation stands in; no spread: null', () => {
    const z = robustZ([10, 10, 10, 10, 10, 10, 10, 40])!;
    assert.equal(Math.round(z.at(-1)! * 100) / 100, 6.38); // 30 / (1.2533 × 3.75)
    assert.equal(robustZ([5, 5, 5]), null);
  });
});

describe('best_time', () => {
  const slots = () => [
    ...[0, 1, 2].map((w) => sample({ publishedAt: tuesday(9, w), engagements: 100 })),
    ...[0, 1, 2].map((w) => sample({ publishedAt: tuesday(15, w), engagements: 10 })),
    ...[0, 1, 2].map((w) => sample({ publishedAt: tuesday(18, w), engagements: 10 })),
    ...[0, 1, 2].map((w) => sample({ publishedAt: tuesday(20, w), engagements: 10 })),
  ];

  test('the slot with the highest average, against the platform average', () => {
    const [insight, ...rest] = bestTime(input(slots()));
    assert.equal(rest.length, 0);
    assert.equal(insight!.kind, 'best_time');
    assert.deepEqual(insight!.recommendation, {
      action: 'schedule_at_slot',
      params: { platform: 'x', day_of_week: 2, hour_utc: 9 },
    });
    assert.deepEqual(
      [insight!.evidence.value, insight!.evidence.baseline, insight!.evidence.sample_size],
      [100, 32.5, 3], // (3 × 100 + 9 × 10) / 12
    );
  });

  test(`says nothing under ${THRESHOLDS.bestTimeMinPosts} posts, or when no slot has ${THRESHOLDS.slotMinPosts}`, () => {
    assert.deepEqual(bestTime(input(slots().slice(1))), []);
    const spread = Array.from({ length: 12 }, (_, i) => sample({ publishedAt: tuesday(i), engagements: i * 10 }));
    assert.deepEqual(bestTime(input(spread)), []);
  });

  test('a best slot within 25 % of the average is no advice', () => {
    const flat = slots().map((s) => ({ ...s, engagements: s.engagements === 100 ? 12 : 10 }));
    assert.deepEqual(bestTime(input(flat)), []);
  });
});

describe('top_post and underperformer', () => {
  test('a post far above its account median is a top post, with the median as baseline', () => {
    const values = [9, 9, 10, 10, 10, 11, 11, 12, 12, 100];
    const samples = values.map((engagements) => sample({ engagements }));
    const found = topPost(input(samples));
    assert.equal(found.length, 1);
    assert.equal(found[0]!.subject, samples.at(-1)!.targetId);
    assert.equal(found[0]!.severity, 'positive');
    assert.deepEqual(
      [found[0]!.evidence.value, found[0]!.evidence.baseline, found[0]!.evidence.sample_size],
      [100, 10.5, 10],
    );
    assert.deepEqual(underperformer(input(samples)), []);
  });

  test('a post far below its account median is an underperformer', () => {
    const samples = [50, 52, 48, 51, 49, 50, 53, 47, 5].map((engagements) => sample({ engagements }));
    const found = underperformer(input(samples));
    assert.equal(found.length, 1);
    assert.equal(found[0]!.evidence.value, 5);
    assert.equal(found[0]!.evidence.baseline, 50);
    assert.equal(found[0]!.severity, 'critical');
    assert.equal(found[0]!.recommendation.action, 'review_post');
  });

  test(`each account is judged against itself, and not under ${THRESHOLDS.outlierMinPosts} posts`, () => {
    const big = [1000, 1100, 900, 1000, 1050, 950, 1000, 1100].map((e) =>
      sample({ engagements: e, connectionId: 'big' }),
    );
    const small = [9, 10, 11, 10, 10, 9, 11, 60].map((e) => sample({ engagements: e, connectionId: 'small' }));
    const found = topPost(input([...big, ...small]));
    assert.deepEqual(
      found.map((f) => f.evidence.value),
      [60],
    );
    assert.deepEqual(topPost(input(small.slice(1))), [], 'seven posts are too few');
    // Pooled, the small account's posts would all sit far below the big one's median.
    assert.deepEqual(underperformer(input([...big, ...small])), []);
  });
});

describe('frequency', () => {
  const weeks = () => [
    ...[0, 1].flatMap((w) => [0, 1].map((d) => sample({ publishedAt: tuesday(9 + d, w), engagements: 100 }))),
    ...[2, 3, 4].flatMap((w) =>
      [0, 1, 2, 3, 4].map((d) => sample({ publishedAt: tuesday(9 + d, w), engagements: 20 })),
    ),
  ];

  test('recommends the band whose posts earned most per post over the usual band', () => {
    const [insight, ...rest] = frequency(input(weeks()));
    assert.equal(rest.length, 0);
    assert.equal(insight!.title, 'Post 1-2 times a week on x');
    assert.deepEqual(
      [insight!.evidence.value, insight!.evidence.baseline, insight!.evidence.sample_size],
      [100, 20, 5],
    );
    assert.deepEqual(insight!.recommendation.params, { platform: 'x', posts_per_week_min: 1, posts_per_week_max: 2 });
  });

  test(`says nothing under ${THRESHOLDS.frequencyMinWeeks} weeks with posts`, () => {
    const three = weeks().filter((s) => weekOf(s.publishedAt) < weekOf(tuesday(0, 3)));
    assert.deepEqual(frequency(input(three)), []);
  });

  test('weeks start on Monday, UTC', () => {
    assert.equal(weekOf(new Date('2026-11-08T23:59:00Z')), '2026-11-02'); // a Sunday
    assert.equal(weekOf(new Date('2026-11-09T00:00:00Z')), '2026-11-09');
  });
});

describe('format', () => {
  const posts = (textCount: number) => [
    ...[100, 120, 80, 90, 110].map((e) => sample({ engagements: e, hasMedia: true })),
    ...[40, 50, 60, 30, 45].slice(0, textCount).map((e) => sample({ engagements: e })),
  ];

  test('media against text by median engagements', () => {
    const [insight] = format(input(posts(5)));
    assert.equal(insight!.recommendation.action, 'add_media');
    assert.deepEqual(
      [insight!.evidence.value, insight!.evidence.baseline, insight!.evidence.sample_size],
      [100, 45, 10],
    );
  });

  test(`says nothing with fewer than ${THRESHOLDS.formatMinPerGroup} posts of either kind`, () => {
    assert.deepEqual(format(input(posts(4))), []);
  });
});

describe('platform_mix', () => {
  const of = (platform: string, e: number, count = 5) =>
    Array.from({ length: count }, () => sample({ platform, engagements: e }));

  test('the platform earning most per post, against the median platform', () => {
    const [insight] = platformMix(input([...of('x', 100), ...of('linkedin', 20), ...of('bluesky', 30)]));
    assert.equal(insight!.recommendation.params.platform, 'x');
    assert.deepEqual(
      [insight!.evidence.value, insight!.evidence.baseline, insight!.evidence.sample_size],
      [100, 30, 15],
    );
  });

  test('needs two platforms with enough posts each', () => {
    assert.deepEqual(platformMix(input([...of('x', 100), ...of('linkedin', 20, 4)])), []);
  });
});

describe('decay', () => {
  const old = (at24: number, count: number) =>
    Array.from({ length: count }, () =>
      sample({ publishedAt: new Date(now.getTime() - 10 * 24 * HOUR), engagements: 100, engagementsAt24h: at24 }),
    );

  test('the median share of engagements reached in the first day', () => {
    const [insight] = decay(input(old(90, 5)));
    assert.equal(insight!.evidence.value, 0.9);
    assert.equal(insight!.recommendation.action, 'follow_up_within_24h');
    const [slow] = decay(input(old(30, 5)));
    assert.equal(slow!.recommendation.action, 'reshare_later');
  });

  test('counts only settled posts with a first-day reading', () => {
    const young = sample({
      publishedAt: new Date(now.getTime() - 2 * 24 * HOUR),
      engagements: 100,
      engagementsAt24h: 90,
    });
    const unread = sample({ publishedAt: new Date(now.getTime() - 10 * 24 * HOUR), engagements: 100 });
    assert.deepEqual(decay(input([...old(90, 4), young, unread])), []);
  });
});

describe('the engine', () => {
  test('the same finding keeps its fingerprint when its numbers change; another brand gets another one', () => {
    const a = fingerprintOf('brand_1', { kind: 'best_time', subject: 'x:2:9' });
    assert.equal(a, fingerprintOf('brand_1', { kind: 'best_time', subject: 'x:2:9' }));
    assert.notEqual(a, fingerprintOf('brand_2', { kind: 'best_time', subject: 'x:2:9' }));
    assert.notEqual(a, fingerprintOf('brand_1', { kind: 'best_time', subject: 'x:2:10' }));
  });

  test('is deterministic: the order of the samples does not change the answer', () => {
    const samples = [
      ...[9, 9, 10, 10, 10, 11, 11, 12, 12, 100].map((e, i) =>
        sample({ engagements: e, publishedAt: tuesday(9, i % 3), hasMedia: i % 2 === 0 }),
      ),
      ...[1, 2, 3, 4, 5].map((e) => sample({ platform: 'linkedin', connectionId: 'conn_b', engagements: e })),
    ];
    const forward = runRules(input(samples));
    const backward = runRules(input([...samples].reverse()));
    assert.ok(forward.length > 0);
    assert.deepEqual(backward, forward);
  });

  test('no samples, no insights', () => {
    assert.deepEqual(runRules(input([])), []);
  });
});
