// Google Business Profile's error answers → PlatformError kinds (docs/platforms/googlebusiness.md "Errors"). Google's
// JSON error body is `{ error: { code, message, status, details } }` with google.rpc status names; the OAuth endpoint
// answers `{ error, error_description }` (a refused refresh token is `invalid_grant`, turned into a reconnect by the
// adapter). 401 UNAUTHENTICATED is an expired or revoked token; 403 PERMISSION_DENIED a location the user no longer
// manages or an app without Business Profile API access; 400 INVALID_ARGUMENT a refused post, a media refusal when
// its validation detail names the media field (⚠ unverified: the detail's shape); 429 RESOURCE_EXHAUSTED the
// per-minute quota, except a quota of 0 (an app Google has not approved: ⚠ unverified wording) which waiting never fixes.
import type { ErrorRule } from '../classify.ts';

export const GOOGLEBUSINESS_ERRORS: ErrorRule[] = [
  { status: 401, kind: 'auth_expired' },
  { status: 403, kind: 'permanent', code: 'PLATFORM_PERMISSION_DENIED' },
  { status: 404, kind: 'permanent' },
  {
    status: 429,
    body: /"quota_limit_value"\s*:\s*"0"|limit: 0\b/,
    kind: 'permanent',
    code: 'PLATFORM_PERMISSION_DENIED',
  },
  { status: 429, kind: 'rate_limited' },
  { status: 400, body: /"field"\s*:\s*"media|sourceUrl|source_url/, kind: 'media_rejected' },
  { status: 400, kind: 'invalid_content' },
  { status: 409, kind: 'permanent' },
  { status: [500, 599], kind: 'transient' },
];
