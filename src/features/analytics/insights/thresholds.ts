// The minimum samples and margins every rule needs before it speaks (docs/analytics.md "Insights"). Below them a
// rule says nothing: an insight drawn from three posts is noise presented as advice.

export const THRESHOLDS = {
  /** best_time: posts in a weekday × hour slot before the slot counts, as ContentCal's slot average needs. */
  slotMinPosts: 3,
  /** best_time: posts on the platform in the period before any slot is compared. */
  bestTimeMinPosts: 12,
  /** best_time: the best slot's average must beat the platform's average by this factor to be worth moving to. */
  bestTimeMinLift: 1.25,
  /** top_post / underperformer: posts of the account in the period before its median means anything. */
  outlierMinPosts: 8,
  /** top_post / underperformer: |robust z| beyond which a post is an outlier (the usual cut is 2 to 3.5). */
  outlierZ: 2,
  /** top_post / underperformer: at most this many of each per generation, the strongest first. */
  outlierMaxPerKind: 3,
  /** frequency: weeks with posts on the platform before bands are compared. */
  frequencyMinWeeks: 4,
  /** frequency: weeks a band needs to be compared with the others. */
  bandMinWeeks: 2,
  /** frequency: the best band's engagements per post must beat the usual band's by this factor. */
  frequencyMinLift: 1.2,
  /** format: posts with media and posts without, each, before they are compared. */
  formatMinPerGroup: 5,
  /** format: the better format's median must beat the other's by this factor. */
  formatMinLift: 1.3,
  /** platform_mix: posts a platform needs to be compared; at least two platforms must qualify. */
  mixMinPerPlatform: 5,
  /** platform_mix: the best platform's engagements per post against the median platform's. */
  mixMinLift: 1.5,
  /** decay: posts old enough to have settled, with a reading in their first day. */
  decayMinPosts: 5,
  /** decay: a post counts as settled this many hours after publication. */
  decaySettledHours: 7 * 24,
} as const;

/** Posts per week, in bands (lower bound inclusive), as Zernio's posting-frequency report groups them. */
export const FREQUENCY_BANDS = [
  { label: '1-2', min: 1, max: 2 },
  { label: '3-4', min: 3, max: 4 },
  { label: '5-7', min: 5, max: 7 },
  { label: '8+', min: 8, max: Infinity },
] as const;
