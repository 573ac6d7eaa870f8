// YouTube's error answers → PlatformError kinds (docs/platforms/youtube.md "Errors"): Google's body
// `{ error: { code, message, errors: [{ message, domain, reason }] } }`, told apart by `reason`. 401 is an expired or
// revoked token; 403 quotaExceeded is the daily quota (rate_limited until midnight Pacific: the client sets the wait);
// 400 uploadLimitExceeded is the channel's own daily upload cap; the metadata reasons are content refusals.
import type { ErrorRule } from '../classify.ts';

const reason = (names: string) => new RegExp(`"reason":\\s*"(?:${names})"`);

export const YOUTUBE_ERRORS: ErrorRule[] = [
  { status: 401, kind: 'auth_expired' },
  { status: 403, body: reason('quotaExceeded'), kind: 'rate_limited', code: 'PLATFORM_RATE_LIMITED' },
  { status: 403, body: reason('rateLimitExceeded|userRateLimitExceeded'), kind: 'rate_limited' },
  { status: 400, body: reason('uploadLimitExceeded'), kind: 'permanent', code: 'PLATFORM_QUOTA_EXHAUSTED' },
  {
    status: 400,
    body: reason(
      'invalidTitle|invalidDescription|invalidTags|invalidCategoryId|invalidVideoMetadata|mediaBodyRequired',
    ),
    kind: 'invalid_content',
  },
  { status: 403, kind: 'permanent', code: 'PLATFORM_PERMISSION_DENIED' },
  { status: 404, kind: 'permanent' },
  { status: 413, kind: 'media_rejected' },
  { status: 429, kind: 'rate_limited' },
  { status: 400, kind: 'permanent' },
  { status: [500, 599], kind: 'transient' },
];
