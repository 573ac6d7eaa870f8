// LinkedIn's error answers → PlatformError kinds (docs/platforms/linkedin.md "Errors"): `{status, serviceErrorCode,
// code, message}` bodies. A retired or unknown LinkedIn-Version is its own code; 401 is an expired or revoked token;
// 403 a missing permission or role; 422 validation, with DUPLICATE_POST for repeated commentary and the media checks;
// 429 the daily limits (no rate-limit headers: the client computes the midnight-UTC reset).
import type { ErrorRule } from '../classify.ts';

export const LINKEDIN_ERRORS: ErrorRule[] = [
  { status: 426, kind: 'permanent', code: 'PLATFORM_API_VERSION_RETIRED' },
  {
    status: [400, 499],
    body: /NONEXISTENT_VERSION|INVALID_VERSION/,
    kind: 'permanent',
    code: 'PLATFORM_API_VERSION_RETIRED',
  },
  { status: 401, kind: 'auth_expired' },
  { status: 403, kind: 'permanent', code: 'PLATFORM_PERMISSION_DENIED' },
  { status: 422, body: /DUPLICATE_POST|is a duplicate of/, kind: 'invalid_content', code: 'PLATFORM_DUPLICATE' },
  { status: 422, body: /"fieldPath":"\/content|urn:li:(image|video|document):/, kind: 'media_rejected' },
  { status: 422, kind: 'invalid_content' },
  { status: 413, kind: 'media_rejected' },
  { status: 429, kind: 'rate_limited' },
  { status: 404, kind: 'permanent' },
  { status: 400, kind: 'invalid_content' },
  { status: [500, 599], kind: 'transient' },
];
