// Simulated metrics (metrics-growth.ts): the same post at the same moment always reads the same; counts never go
// down; nothing before publishing; views lead and interactions follow later; posts differ from one another.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { growMetrics, type GrownMetrics } from './metrics-growth.ts';

const T0 = Date.parse('2026-11-01T12:00:00Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('simulated metrics growth', () => {
  test('deterministic per post and moment, zero before publishing', () => {
    assert.deepEqual(growMetrics('post-1', T0, T0 + HOUR), growMetrics('post-1', T0, T0 + HOUR));
    assert.ok(Object.values(growMetrics('post-1', T0, T0 - HOUR)).every((v) => v === 0));
    assert.ok(Object.values(growMetrics('post-1', T0, T0)).every((v) => v === 0));
  });

  test('counts never go down and saturate: a day and a week later read the same order of magnitude', () => {
    let previous: GrownMetrics | undefined;
    for (const at of [1, 5, 15, 60, 180, 360, 1440, 10_080].map((m) => T0 + m * MINUTE)) {
      const now = growMetrics('post-2', T0, at);
      if (previous) for (const k of Object.keys(now) as Array<keyof GrownMetrics>) assert.ok(now[k] >= previous[k], k);
      previous = now;
    }
    const day = growMetrics('post-2', T0, T0 + 24 * HOUR).impressions;
    const week = growMetrics('post-2', T0, T0 + 7 * 24 * HOUR).impressions;
    assert.ok(week - day <= day * 0.01, 'views have stopped growing after a day');
  });

  test('views come first: minutes in there are views and no comments or shares yet', () => {
    const early = growMetrics('post-3', T0, T0 + 5 * MINUTE, { audience: 5000 });
    assert.ok(early.impressions > 0);
    assert.equal(early.comments, 0);
    assert.equal(early.shares, 0);
    const later = growMetrics('post-3', T0, T0 + 6 * HOUR, { audience: 5000 });
    assert.ok(later.likes > 0 && later.comments > 0 && later.shares > 0);
    assert.ok(later.impressions >= later.reach && later.reach > later.likes && later.likes > later.comments);
  });

  test('the profile sets the scale and posts spread around it; video plays only with a video rate', () => {
    const views = Array.from({ length: 40 }, (_, i) => growMetrics(`p${i}`, T0, T0 + 48 * HOUR).impressions);
    assert.ok(new Set(views).size > 30, 'posts differ');
    const median = [...views].sort((a, b) => a - b)[20]!;
    assert.ok(median > 250 && median < 4000, `median ${median} is near the default audience of 1000`);
    const big = growMetrics('p1', T0, T0 + 48 * HOUR, { audience: 100_000 }).impressions;
    assert.ok(big > views[1]! * 50);
    assert.equal(growMetrics('p1', T0, T0 + 48 * HOUR).video_views, 0);
    assert.ok(growMetrics('p1', T0, T0 + 48 * HOUR, { videoRate: 0.9 }).video_views > 0);
  });
});
