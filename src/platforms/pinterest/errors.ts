// Pinterest's error answers → PlatformError kinds (docs/platforms/pinterest.md "Errors"). Bodies are the OpenAPI's
// `Error`, `{ "code": <int>, "message": "…" }`; the table goes by status and, where one status means several things,
// by the message. Upload errors come from S3 (XML) and are read by status alone.
import type { ErrorRule } from '../classify.ts';

export const PINTEREST_ERRORS: ErrorRule[] = [
  { status: 401, kind: 'auth_expired' },
  { status: 403, kind: 'permanent', code: 'PLATFORM_PERMISSION_DENIED' },
  // The post's board (platform_options.pinterest.board_id) is not one of the account's: the post must change.
  { status: 404, body: /Board (section )?not found/i, kind: 'invalid_content', code: 'PLATFORM_CONTENT_REJECTED' },
  { status: 404, kind: 'permanent' },
  { status: 413, kind: 'media_rejected' },
  { status: 429, kind: 'rate_limited' },
  // ⚠ unverified wording: what Pinterest says of an image it cannot fetch or read, or a video upload not usable.
  {
    status: 400,
    body: /fetch the image|image is not|media upload|media_id|cover|multiple_image_urls|EntityTooLarge/i,
    kind: 'media_rejected',
  },
  { status: 400, kind: 'invalid_content' },
  { status: [500, 599], kind: 'transient' },
];
