// The per-platform options of a post (`platform_options`), each platform's own fields with the values the API tables
// list (docs/api.md), validated by schema (400) before each platform's rules check them (posts.rules.ts, 422).
// Split from posts.schemas.ts, which re-exports them.
import { Type, type Static } from 'typebox';
import { StringEnum } from '../../app/envelope.ts';
import {
  PRIVACY_LEVELS as TIKTOK_PRIVACY_LEVELS,
  VIDEO_SOURCES as TIKTOK_VIDEO_SOURCES,
} from '../../platforms/tiktok/map.ts';
import {
  AltTexts,
  FirstComment,
  GbpLocalTime,
  Language,
  MediaFitFields,
  options,
  TextFields,
  ThreadParts,
} from './posts.option-fields.ts';
import { YOUTUBE_PRIVACY_STATUSES as YOUTUBE_PRIVACY } from '../../platforms/youtube/map.ts';
import {
  ACTION_TYPES as GBP_ACTIONS,
  MAX_EVENT_TITLE,
  TOPIC_TYPES as GBP_TOPICS,
} from '../../platforms/googlebusiness/limits.ts';

// The values of the enumerations below, exported for the API tables (docs/api.md); the post's own in
// posts.view.schemas.ts.
export const MASTODON_VISIBILITIES = ['public', 'unlisted', 'private', 'direct'] as const;
export const THREADS_REPLY_CONTROLS = [
  'everyone',
  'accounts_you_follow',
  'mentioned_only',
  'parent_post_author_only',
  'followers_only',
] as const;
export const LINKEDIN_VISIBILITIES = ['PUBLIC', 'CONNECTIONS'] as const;
export const INSTAGRAM_POST_TYPES = ['feed', 'reel', 'story'] as const;
export const YOUTUBE_PRIVACY_STATUSES = YOUTUBE_PRIVACY;
export {
  PRIVACY_LEVELS as TIKTOK_PRIVACY_LEVELS,
  VIDEO_SOURCES as TIKTOK_VIDEO_SOURCES,
} from '../../platforms/tiktok/map.ts';
export const GOOGLEBUSINESS_TOPIC_TYPES = GBP_TOPICS;
export const GOOGLEBUSINESS_ACTION_TYPES = GBP_ACTIONS;

export const PlatformOptions = Type.Object(
  {
    x: options(
      {
        ...TextFields,
        ...MediaFitFields,
        thread: Type.Optional(ThreadParts),
        alt_texts: Type.Optional(AltTexts(1000)),
      },
      'Options for X.',
    ),
    bluesky: options(
      {
        ...TextFields,
        ...MediaFitFields,
        thread: Type.Optional(ThreadParts),
        languages: Type.Optional(Type.Array(Language, { maxItems: 3 })),
        alt_texts: Type.Optional(AltTexts(2000)),
      },
      'Options for Bluesky.',
    ),
    mastodon: options(
      {
        ...TextFields,
        ...MediaFitFields,
        thread: Type.Optional(ThreadParts),
        alt_texts: Type.Optional(AltTexts(1500)),
        visibility: Type.Optional(StringEnum(MASTODON_VISIBILITIES)),
        spoiler_text: Type.Optional(
          Type.String({ maxLength: 1000, description: 'Content warning shown before the text.' }),
        ),
        sensitive: Type.Optional(Type.Boolean({ description: 'Marks the media as sensitive.' })),
        language: Type.Optional(Language),
      },
      'Options for Mastodon.',
    ),
    threads: options(
      {
        ...TextFields,
        ...MediaFitFields,
        thread: Type.Optional(ThreadParts),
        alt_texts: Type.Optional(AltTexts(1000, 20)),
        reply_control: Type.Optional(
          StringEnum(THREADS_REPLY_CONTROLS, {
            description: 'Who may reply to the post (Threads `reply_control`); default `everyone`.',
          }),
        ),
      },
      'Options for Threads.',
    ),
    linkedin: options(
      {
        ...TextFields,
        ...MediaFitFields,
        visibility: Type.Optional(
          StringEnum(LINKEDIN_VISIBILITIES, {
            description: 'Who sees the post; default `PUBLIC`. `CONNECTIONS` applies to member posts only.',
          }),
        ),
        alt_texts: Type.Optional(
          Type.Array(Type.String({ maxLength: 4086 }), {
            maxItems: 20,
            description:
              "Alt text of each image, in `media_ids` order (at most 4,086 characters each); an entry replaces the item's own alt text.",
          }),
        ),
        organization: Type.Optional(
          Type.String({
            pattern: '^urn:li:organization:[0-9]+$',
            maxLength: 100,
            description:
              "Publish as this company page (`urn:li:organization:<id>`), which the connected member must administer; default: the connection's own account.",
          }),
        ),
        document_title: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 400,
            description: 'Title shown on a PDF document post; default `Document`.',
          }),
        ),
        disable_reshare: Type.Optional(Type.Boolean({ description: 'Stops others from resharing the post.' })),
      },
      'Options for LinkedIn.',
    ),
    instagram: options(
      {
        ...TextFields,
        ...MediaFitFields,
        type: Type.Optional(StringEnum(INSTAGRAM_POST_TYPES, { description: 'What to publish; default `feed`.' })),
        first_comment: Type.Optional(
          Type.Union([FirstComment, Type.String({ minLength: 1, maxLength: 2200 })], {
            description: 'A first comment (`FirstComment`), or its text alone as a string (the earlier form).',
          }),
        ),
        alt_texts: Type.Optional(AltTexts(1000, 10)),
        share_to_feed: Type.Optional(
          Type.Boolean({ description: 'Reels only: also show the Reel in the main feed (default true).' }),
        ),
      },
      'Options for Instagram.',
    ),
    facebook: options(
      {
        ...TextFields,
        ...MediaFitFields,
        link: Type.Optional(
          Type.String({
            format: 'uri',
            maxLength: 2048,
            description:
              'A link shared with the post (Facebook shows its preview). Ignored when the post carries media.',
          }),
        ),
        alt_texts: Type.Optional(AltTexts(1000, 10)),
      },
      'Options for Facebook Pages.',
    ),
    // TikTok Direct Post (docs/platforms/tiktok.md): no threads and no alt text; checked against the creator's own
    // settings (creator_info) before each post, and against the media count at creation (tiktok/limits.ts).
    tiktok: options(
      {
        ...TextFields,
        ...MediaFitFields,
        privacy_level: Type.Optional(
          StringEnum(TIKTOK_PRIVACY_LEVELS, {
            description:
              "Who sees the post; it must be one of the creator's own levels (TikTok's creator info, read before each post). Default: the most private level the creator allows (`SELF_ONLY` where allowed). An unaudited TikTok app may post `SELF_ONLY` only.",
          }),
        ),
        disable_comment: Type.Optional(
          Type.Boolean({
            description:
              "Turns comments off. A creator who turned comments off in TikTok's settings cannot have them on (422 at publish).",
          }),
        ),
        disable_duet: Type.Optional(Type.Boolean({ description: 'Videos only: turns Duets off.' })),
        disable_stitch: Type.Optional(Type.Boolean({ description: 'Videos only: turns Stitches off.' })),
        video_cover_timestamp_ms: Type.Optional(
          Type.Integer({
            minimum: 0,
            maximum: 600_000,
            description: 'Videos only: the frame used as the cover, in ms from the start.',
          }),
        ),
        video_source: Type.Optional(
          StringEnum(TIKTOK_VIDEO_SOURCES, {
            description:
              "Videos only: `file_upload` (default: Herald sends the bytes in chunks) or `pull_from_url` (TikTok fetches Herald's signed media URL, whose domain must be verified in the TikTok app).",
          }),
        ),
        title: Type.Optional(
          Type.String({
            maxLength: 90,
            description: "Photo posts only: the post's title (at most 90 characters); the post's text is the caption.",
          }),
        ),
        photo_cover_index: Type.Optional(
          Type.Integer({
            minimum: 0,
            maximum: 34,
            description: 'Photo posts only: which image (0-based, in `media_ids` order) is the cover; default 0.',
          }),
        ),
        auto_add_music: Type.Optional(
          Type.Boolean({ description: 'Photo posts only: lets TikTok add recommended music.' }),
        ),
        brand_content_toggle: Type.Optional(
          Type.Boolean({ description: 'Paid partnership promoting another brand (cannot be `SELF_ONLY`).' }),
        ),
        brand_organic_toggle: Type.Optional(Type.Boolean({ description: "Promotes the creator's own business." })),
        is_aigc: Type.Optional(Type.Boolean({ description: 'Videos only: labels the video as AI-generated content.' })),
      },
      'Options for TikTok.',
    ),
    // docs/platforms/youtube.md "Calls": one video per post, the text its description; the title, tags, category,
    // privacy and the made-for-kids declaration go in the video resource. No alt text and no threads on YouTube.
    youtube: options(
      {
        ...TextFields,
        title: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 100,
            // Not blank either: YouTube refuses a title of spaces alone (invalidTitle).
            pattern: '^[^<>]*[^<>\\s][^<>]*$',
            description:
              "The video's title: 1 to 100 characters, not only spaces, no `<` or `>`. Default: the text's first line, cut to 100 characters.",
          }),
        ),
        tags: Type.Optional(
          Type.Array(Type.String({ minLength: 1, maxLength: 500, pattern: '^[^<>]*$' }), {
            maxItems: 500,
            description:
              'Keywords of the video: at most 500 characters together as YouTube counts them (each comma between tags counts, and a tag with a space counts 2 more for its quotes).',
          }),
        ),
        category_id: Type.Optional(
          Type.String({
            pattern: '^[0-9]{1,3}$',
            description: 'A YouTube video category id (videoCategories.list). Default `22` (People & Blogs).',
          }),
        ),
        privacy_status: Type.Optional(
          StringEnum(YOUTUBE_PRIVACY_STATUSES, {
            description:
              'Who may watch the video. Default `public`. YouTube makes every upload of an app it has not audited private.',
          }),
        ),
        made_for_kids: Type.Optional(
          Type.Boolean({
            description: 'Declares the video made for children (`selfDeclaredMadeForKids`). Default false.',
          }),
        ),
        notify_subscribers: Type.Optional(
          Type.Boolean({ description: "Tell the channel's subscribers about the new video. Default true." }),
        ),
      },
      'Options for YouTube (one video per post; the text is its description).',
    ),
    // docs/platforms/pinterest.md "Calls": a Pin goes to a board, with a title, a description (the post's text), a
    // link and one alt text; its media are one image, 2–5 images (a carousel) or one video.
    pinterest: options(
      {
        ...TextFields,
        ...MediaFitFields,
        board_id: Type.Optional(
          Type.String({
            pattern: '^\\d+$',
            maxLength: 40,
            description:
              "The board the Pin goes to, one of the connection's boards (`GET /v1/connections/{id}`, `options.boards`). Required unless `boards` names a board for every Pinterest connection of the post.",
            examples: ['549755885175'],
          }),
        ),
        boards: Type.Optional(
          Type.Record(
            Type.String({ pattern: '^conn_[A-Za-z0-9]+$' }),
            Type.String({ pattern: '^\\d+$', maxLength: 40 }),
            {
              additionalProperties: false,
              minProperties: 1,
              maxProperties: 50,
              description:
                'A board per Pinterest connection (connection id → board id), for a post to several Pinterest accounts: each account gets its Pin on its own board. A connection not named here uses `board_id`.',
              examples: [{ conn_01J9Z3K4ABCDEF: '549755885175' }],
            },
          ),
        ),
        title: Type.Optional(Type.String({ maxLength: 100, description: "The Pin's title (at most 100 characters)." })),
        link: Type.Optional(
          Type.String({
            format: 'uri',
            pattern: '^https?://',
            maxLength: 2048,
            description: 'Where the Pin leads when clicked (an http or https URL).',
          }),
        ),
        alt_text: Type.Optional(
          Type.String({
            maxLength: 500,
            description:
              "The Pin's alt text (at most 500 characters; one per Pin, carousels included). Default: the first media item's alt text.",
          }),
        ),
        cover_time_seconds: Type.Optional(
          Type.Integer({
            minimum: 0,
            maximum: 900,
            description: "Video Pins: the second of the video whose frame is the Pin's cover (default 0, the first).",
          }),
        ),
      },
      'Options for Pinterest.',
    ),
    // The local post (src/platforms/googlebusiness/limits.ts `checkOptions` ties topic, event, offer and action together).
    googlebusiness: options(
      {
        ...TextFields,
        ...MediaFitFields,
        topic_type: Type.Optional(
          StringEnum(GOOGLEBUSINESS_TOPIC_TYPES, {
            description:
              'The kind of local post: `STANDARD` (an update, default), `EVENT` (needs `event` with title, start and end) or `OFFER` (needs `event` with the offer title and its dates; takes `offer`).',
          }),
        ),
        language: Type.Optional(Language),
        call_to_action: Type.Optional(
          Type.Object(
            {
              action_type: StringEnum(GOOGLEBUSINESS_ACTION_TYPES, {
                description: "The button under the post. `CALL` dials the location's phone number and takes no `url`.",
              }),
              url: Type.Optional(
                Type.String({
                  format: 'uri',
                  maxLength: 2048,
                  description: 'Where the button leads (every action but `CALL`).',
                }),
              ),
            },
            { additionalProperties: false, description: 'A button on the post; not on `OFFER` posts.' },
          ),
        ),
        event: Type.Optional(
          Type.Object(
            {
              title: Type.Optional(
                Type.String({
                  minLength: 1,
                  maxLength: MAX_EVENT_TITLE,
                  description: "The event's (or offer's) title.",
                }),
              ),
              start: Type.Optional(GbpLocalTime('When it starts')),
              end: Type.Optional(GbpLocalTime('When it ends')),
            },
            { additionalProperties: false, description: 'The event or offer and when it runs (`EVENT` and `OFFER`).' },
          ),
        ),
        offer: Type.Optional(
          Type.Object(
            {
              coupon_code: Type.Optional(
                Type.String({
                  minLength: 1,
                  maxLength: 58,
                  description: 'The code to show at the till or enter online.',
                }),
              ),
              redeem_url: Type.Optional(
                Type.String({ format: 'uri', maxLength: 2048, description: 'Where the offer is redeemed online.' }),
              ),
              terms: Type.Optional(
                Type.String({ minLength: 1, maxLength: 5000, description: "The offer's terms and conditions." }),
              ),
            },
            { additionalProperties: false, description: 'The offer (`OFFER` posts only).' },
          ),
        ),
      },
      'Options for Google Business Profile: the local post on the location the connection chose.',
    ),
  },
  {
    additionalProperties: false,
    description: 'Per-platform options, keyed by platform name; each may only name a platform listed in `platforms`.',
  },
);
export type PlatformOptions = Static<typeof PlatformOptions>;
