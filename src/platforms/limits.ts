// What each platform accepts, as data: text counting rules and media rules. Pure functions only;
// post validation, `GET /v1/platforms` and (later) the simulators all read these same values.

/** The platforms Herald knows. The order is the order `GET /v1/platforms` lists them in. */
export const PLATFORM_NAMES = [
  'x',
  'linkedin',
  'instagram',
  'facebook',
  'threads',
  'bluesky',
  'mastodon',
  'tiktok',
  'youtube',
  'pinterest',
  'googlebusiness',
] as const;
export type PlatformName = (typeof PLATFORM_NAMES)[number];

export function isPlatformName(value: string): value is PlatformName {
  return (PLATFORM_NAMES as readonly string[]).includes(value);
}

/** One broken rule, phrased for an API client. `rule` is a stable snake_case identifier. */
export interface LimitIssue {
  rule: string;
  message: string;
}

/** How a platform counts and caps post text. */
export interface TextLimits {
  /** Largest accepted value of `measure(text)`. */
  maxLength: number;
  /** What `measure` counts, in words an API client understands (e.g. "weighted characters"). */
  unit: string;
  /** The platform's own counting rule (X weights, Bluesky graphemes, Threads emoji bytes, …). */
  measure(text: string): number;
  /** Every text rule the platform enforces (length included), as issues; empty when the text is accepted. */
  check(text: string): LimitIssue[];
  /** Extra caps shown in the capabilities document, e.g. `{ hashtags: 30, mentions: 20 }`. */
  caps?: Record<string, number>;
}

/** Media kinds Herald distinguishes; a media item's kind comes from its sniffed content type. */
export type MediaKind = 'image' | 'gif' | 'video' | 'document';

export interface MediaKindRule {
  /** Accepted content types (lower-case type/subtype). */
  contentTypes: string[];
  maxBytes: number;
  /** Most items of this kind in one post. */
  maxCount: number;
  minDurationMs?: number;
  maxDurationMs?: number;
}

/**
 * How Herald fits an image to the platform (docs/api.md "Images fitted to each platform"): an image of a type the platform does not
 * take (`kinds`) becomes JPEG; one over these bounds is scaled down and recompressed; one outside the aspect range is
 * refused, padded or cropped as the post's `media_fit` says. The fitting engine reads only these values.
 */
export interface ImageFitRules {
  /** Largest image file the platform takes, in bytes (what the variant is recompressed to). */
  maxBytes: number;
  maxWidth?: number;
  maxHeight?: number;
  /** Most pixels (width × height). */
  maxPixels?: number;
  /** Aspect ratio range, width / height (Instagram's feed: 0.8 to 1.91). */
  minAspect?: number;
  maxAspect?: number;
}

/**
 * What a platform takes of a video beyond `kinds.video` (type, bytes, duration): checked at validate and create
 * time against what the probe read (docs/api.md "Video rules"). A value Herald could not read is not guessed: a
 * rule that needs it is reported as unknown. Codec names are ffprobe's (h264, hevc, aac …).
 */
export interface VideoRules {
  /** Containers taken: mp4, mov, webm. */
  containers?: string[];
  videoCodecs?: string[];
  /** Sound codecs taken; a video without sound passes. */
  audioCodecs?: string[];
  /** The picture must fit in this box, either way round (1280×1024 takes a 1024×1280 portrait video too). */
  maxLongSide?: number;
  maxShortSide?: number;
  minSide?: number;
  minFrameRate?: number;
  maxFrameRate?: number;
  /** Width / height range. */
  minAspect?: number;
  maxAspect?: number;
}

export interface MediaRules {
  /** Video rules beyond type, size and duration; absent: none. */
  videoRules?: VideoRules;
  /** Images are fitted to these rules before they go out; absent: images go as uploaded, checked against `kinds`. */
  imageFit?: ImageFitRules;
  /** Most media items in one post, all kinds together; 0 when the platform takes no media. */
  maxItems: number;
  /** Whether a post needs at least one media item (Instagram). */
  required: boolean;
  /** Rules per kind; a kind that is absent is not accepted. */
  kinds: Partial<Record<MediaKind, MediaKindRule>>;
  /** Whether images and videos may be combined in one post. */
  mixKinds: boolean;
}

/**
 * How a platform takes a first comment on the account's own post. `reply`: a reply post to the post's last part,
 * checked against the post's own text and media rules (a thread's next part). `comment`: a comment on the post, made
 * through the adapter's `ownComments`, at most `maxLength` characters (Unicode code points), with at most
 * `media.maxItems` media of `media.kinds` where the platform's comments take media (none where `media` is absent).
 */
export type FirstCommentRules =
  { via: 'reply' } | { via: 'comment'; maxLength: number; media?: { maxItems: number; kinds: MediaKind[] } };

export interface PlatformLimits {
  platform: PlatformName;
  /** Display name, e.g. "X", "LinkedIn". */
  displayName: string;
  text: TextLimits;
  media: MediaRules;
  /** Threads as chained posts (`platform_options.<p>.thread`): most parts, 0 when unsupported. */
  maxThreadParts: number;
  /**
   * Set where the platform refuses a post whose text repeats one of the account's own (recycling refuses a rule
   * that would repeat a text there: docs/queues.md "Recycling"): how, in words for an API client.
   */
  duplicateText?: string;
  /** First comments (`platform_options.<p>.first_comment`); absent where the platform's API cannot make one. */
  firstComment?: FirstCommentRules;
  /**
   * Rules tying the platform's own options to the post (an Instagram story is one item; a YouTube video needs a
   * title from its options or its text), checked at creation. `text` is the post's text on this platform.
   */
  checkOptions?(options: Record<string, unknown>, mediaCount: number, text?: string): LimitIssue[];
}
