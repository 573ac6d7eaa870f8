// X's error answers → PlatformError kinds (docs/platforms/x.md "Errors"). Problem JSON bodies; duplicate text is a
// 403 whose detail says so; usage caps are 429 `usage-capped`; 401 means the token is no longer accepted.
import type { ErrorRule } from '../classify.ts';

export const X_ERRORS: ErrorRule[] = [
  { status: 401, kind: 'auth_expired' },
  { status: 403, body: /duplicate content/i, kind: 'invalid_content', code: 'PLATFORM_DUPLICATE' },
  {
    status: 403,
    body: /too long|invalid characters|not permitted to perform this action with media/i,
    kind: 'invalid_content',
  },
  {
    status: 403,
    body: /reply to this conversation is not allowed/i,
    kind: 'permanent',
    code: 'PLATFORM_REPLY_WINDOW_CLOSED',
  },
  {
    status: 400,
    body: /replying to does not exist or was deleted/i,
    kind: 'permanent',
    code: 'PLATFORM_ITEM_DELETED',
  },
  {
    status: 403,
    body: /suspended|client-forbidden|not allowed|not authorized|missing scopes/i,
    kind: 'permanent',
    code: 'PLATFORM_PERMISSION_DENIED',
  },
  { status: 429, body: /usage-capped/i, kind: 'permanent', code: 'PLATFORM_QUOTA_EXHAUSTED' },
  { status: 429, kind: 'rate_limited' },
  { status: 400, body: /media/i, kind: 'media_rejected' },
  { status: 400, kind: 'invalid_content' },
  { status: 410, kind: 'permanent', code: 'PLATFORM_API_VERSION_RETIRED' },
  { status: [500, 599], kind: 'transient' },
];
