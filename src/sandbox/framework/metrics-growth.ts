// How the metrics of a simulated post grow, shared by every simulator that answers a metrics endpoint.
//
// Usage (in a simulator's insights/metrics route):
//
//   import { growMetrics } from '../framework/metrics-growth.ts';
//   const m = growMetrics(post.id, Date.parse(post.createdAt), sim.kit.now(), { audience: 800 });
//   // m.impressions, m.reach, m.likes, m.comments, m.shares, m.quotes, m.saves, m.clicks, m.video_views
//   // Answer only the ones the platform gives, in its own shape; add real activity the simulator holds
//   // (replies made through the API) on top: `comments: m.comments + replies.length`.
//
// The counts are a pure function of (post id, published time, now, profile): the same post read at the same
// simulator time always shows the same numbers (restarts and API nodes included), and they never go down as
// the clock moves on. Views come first and saturate within hours; likes follow, then comments, then shares and
// saves, each starting later and on a slower curve, so a post's engagement lags its reach as on a real feed. The post id seeds the
// size of its audience (a long-tailed spread around `audience`) and its rates (±40 %), so posts differ.
import { createHash } from 'node:crypto';

/** What a post's growth aims at; every field optional (`growMetrics(id, at, now, { audience: 5000 })`). */
export interface GrowthProfile {
  /** The median number of views a post of this account ends with. Default 1000. */
  audience: number;
  /** Fractions of the views that end as each interaction (before the per-post spread). */
  reachRate: number;
  likeRate: number;
  commentRate: number;
  shareRate: number;
  quoteRate: number;
  saveRate: number;
  clickRate: number;
  /** Fraction of the views that are video plays (0 for a post without video). */
  videoRate: number;
}

export const DEFAULT_GROWTH: GrowthProfile = {
  audience: 1000,
  reachRate: 0.7,
  likeRate: 0.04,
  commentRate: 0.006,
  shareRate: 0.004,
  quoteRate: 0.001,
  saveRate: 0.003,
  clickRate: 0.01,
  videoRate: 0,
};

/** Every count the simulators may report; each platform answers the subset it gives. */
export interface GrownMetrics {
  impressions: number;
  reach: number;
  likes: number;
  comments: number;
  shares: number;
  quotes: number;
  saves: number;
  clicks: number;
  video_views: number;
}

const HOUR = 3_600_000;

// Time constants of each curve (value = total × (1 − e^(−t/τ))): views first, interactions later.
const TAU = {
  impressions: 1.5 * HOUR,
  reach: 1.5 * HOUR,
  video_views: 2 * HOUR,
  clicks: 2 * HOUR,
  likes: 3 * HOUR,
  comments: 5 * HOUR,
  shares: 6 * HOUR,
  quotes: 6 * HOUR,
  saves: 8 * HOUR,
} satisfies Record<keyof GrownMetrics, number>;

const MINUTE = 60_000;

// How long after publishing each count starts to move: views at once, interactions once people have seen the post.
// (Tests that count replies they made themselves read the real count for the first minutes.)
const LAG = {
  impressions: 0,
  reach: 0,
  video_views: 0,
  clicks: MINUTE,
  likes: 2 * MINUTE,
  comments: 10 * MINUTE,
  shares: 15 * MINUTE,
  quotes: 15 * MINUTE,
  saves: 15 * MINUTE,
} satisfies Record<keyof GrownMetrics, number>;

/** Uniform numbers in [0, 1) derived from the post id (stable across processes). */
function seeds(postId: string): number[] {
  const digest = createHash('sha256').update(`herald-metrics:${postId}`).digest();
  const out: number[] = [];
  for (let i = 0; i + 4 <= digest.length; i += 4) out.push(digest.readUInt32BE(i) / 0x1_0000_0000);
  return out;
}

/** The counts of post `postId`, published at `publishedAtMs`, as read at `nowMs` (0 before publishing). */
export function growMetrics(
  postId: string,
  publishedAtMs: number,
  nowMs: number,
  profile: Partial<GrowthProfile> = {},
): GrownMetrics {
  const p = { ...DEFAULT_GROWTH, ...profile };
  const s = seeds(postId);
  const age = Math.max(0, nowMs - publishedAtMs);
  // Audience: log-uniform from a quarter to four times the median, with one post in ten a breakout (×6).
  const breakout = s[0]! < 0.1 ? 6 : 1;
  const views = p.audience * Math.pow(4, 2 * s[1]! - 1) * breakout;
  const spread = (i: number) => 0.6 + 0.8 * s[i]!;
  const total: GrownMetrics = {
    impressions: views,
    reach: views * Math.min(1, p.reachRate * spread(2)),
    video_views: views * Math.min(1, p.videoRate * spread(3)),
    clicks: views * p.clickRate * spread(4),
    likes: views * p.likeRate * spread(5),
    comments: views * p.commentRate * spread(6),
    shares: views * p.shareRate * spread(7),
    quotes: views * p.quoteRate * spread(7),
    saves: views * p.saveRate * spread(2),
  };
  const out = {} as GrownMetrics;
  for (const key of Object.keys(TAU) as Array<keyof GrownMetrics>) {
    const since = Math.max(0, age - LAG[key]);
    out[key] = Math.floor(total[key] * (1 - Math.exp(-since / TAU[key])));
  }
  return out;
}
