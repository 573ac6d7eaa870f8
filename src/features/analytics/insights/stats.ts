// Robust statistics the rules share: medians, the median absolute deviation and the robust z-score built on it
// (Iglewicz and Hoaglin: z = 0.6745 (x - median) / MAD), which one viral post cannot drag the way it drags a mean.

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of nothing');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) throw new Error('mean of nothing');
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** The median of the absolute deviations from the median. */
export function mad(values: readonly number[]): number {
  const m = median(values);
  return median(values.map((v) => Math.abs(v - m)));
}

/** 0.6745 is the 75th percentile of the standard normal: it makes MAD comparable to a standard deviation. */
const MAD_SCALE = 0.6745;
/**
 * When more than half the values are equal, MAD is 0; the mean absolute deviation stands in, scaled by 1.2533
 * (sqrt(pi/2), its ratio to the standard deviation for normal data), as IBM's and Iglewicz and Hoaglin's
 * modified z-score does.
 */
const MEAN_AD_SCALE = 1.2533;

/** Robust z-scores of every value against the group; null when the group has no spread at all. */
export function robustZ(values: readonly number[]): number[] | null {
  const m = median(values);
  const spread = mad(values);
  if (spread > 0) return values.map((v) => (MAD_SCALE * (v - m)) / spread);
  const meanAd = mean(values.map((v) => Math.abs(v - m)));
  if (meanAd === 0) return null;
  return values.map((v) => (v - m) / (MEAN_AD_SCALE * meanAd));
}

/** Rounds for display and evidence: two decimals, so stored evidence does not carry float noise. */
export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
