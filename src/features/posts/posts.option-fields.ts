// The fields several platforms' options share (the text override, thread parts, alt texts, language, image fitting,
// a local date) and the shape of one platform's options, for posts.platform-options.ts.
import { Type } from 'typebox';
import { named, StringEnum } from '../../app/envelope.ts';
import { MEDIA_FIT_MODES } from '../media/fit/plan.ts';

export const ContentOverride = Type.String({
  maxLength: 100_000,
  description: "Replaces the post's `content` on this platform.",
});
export const ThreadParts = Type.Array(Type.String({ maxLength: 100_000 }), {
  maxItems: 50,
  description: 'Further parts of a thread, published as replies after the first post (whose text is `content`).',
});
/**
 * A comment made right after the post (docs/api.md "First comments"): a comment on the post, or a reply to its last
 * part on the platforms where replies are posts. Its rules (length, whether the platform can) are checked at creation.
 */
const FIRST_COMMENT_DESCRIPTION =
  'A comment made right after the post, as its last part (`kind` `first_comment`): a comment on it (Instagram, Facebook, LinkedIn, YouTube) or a reply to its last part (X, Bluesky, Threads, Mastodon); elsewhere a 422.';
export const FirstComment = Type.Object(
  {
    text: Type.String({
      minLength: 1,
      maxLength: 10_000,
      description: "The comment's text, within the platform's own limits for it.",
    }),
    media_ids: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        uniqueItems: true,
        maxItems: 20,
        description:
          "Media sent with the comment, where the platform's comments take media (X, Bluesky, Threads, Mastodon: a reply's media rules; Facebook: one image); elsewhere a 422.",
      }),
    ),
  },
  { additionalProperties: false, description: FIRST_COMMENT_DESCRIPTION },
);
named('FirstComment', FirstComment, { text: 'The full changelog is at https://example.com/changelog' });
/** What every platform's options start with: the text override and the first comment. */
export const TextFields = {
  content: Type.Optional(ContentOverride),
  first_comment: Type.Optional(FirstComment),
};
/** Alt texts of the post's media on one platform: `items` at most (4 by default), `max` characters each. */
export const AltTexts = (max: number, items = 4) =>
  Type.Array(Type.String({ maxLength: max }), {
    maxItems: items,
    description: `Alt text of each media item on this platform, in \`media_ids\` order (at most ${max} characters each); an entry replaces the item's own alt text.`,
  });
export const Language = Type.String({
  pattern: '^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$',
  maxLength: 35,
  description: 'BCP 47 language tag, e.g. `en` or `pt-BR`.',
});
// How images are fitted to the platform (docs/api.md "Images fitted to each platform"; src/features/media/fit/plan.ts).
export const MediaFitFields = {
  media_fit: Type.Optional(
    StringEnum(MEDIA_FIT_MODES, {
      description:
        "An image outside the platform's aspect-ratio range: `reject` (default, 422 naming the rule), `pad` (white borders) or `crop` (centred).",
    }),
  ),
  keep_metadata: Type.Optional(
    Type.Boolean({
      description:
        "Keep the images' metadata (EXIF, including the GPS position) on this platform; by default Herald strips it.",
    }),
  ),
};

/** A date or date and time in the location's own time zone, as Google reads an event's schedule. */
export const GbpLocalTime = (what: string) =>
  Type.String({
    pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2})?$',
    maxLength: 16,
    description: `${what}, in the location's local time: \`YYYY-MM-DD\` (the whole day) or \`YYYY-MM-DDTHH:MM\`.`,
    examples: ['2026-12-01T18:30'],
  });

export const options = <T extends Record<string, ReturnType<typeof Type.Optional>>>(fields: T, description: string) =>
  Type.Optional(Type.Object(fields, { additionalProperties: false, description }));
