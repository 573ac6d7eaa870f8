// Mastodon's error answers → PlatformError kinds (docs/platforms/mastodon.md "Errors"): `{"error": "…"}` bodies; 401 is
// a revoked token (Mastodon tokens do not expire, so there is nothing to refresh); 422 is a validation
// failure of the status or of an attachment; 404 a reply target that is gone.
import type { ErrorRule } from '../classify.ts';

export const MASTODON_ERRORS: ErrorRule[] = [
  { status: 401, kind: 'auth_expired' },
  { status: 403, kind: 'permanent', code: 'PLATFORM_PERMISSION_DENIED' },
  { status: 422, body: /file|media|attach|processing/i, kind: 'media_rejected' },
  { status: 422, kind: 'invalid_content' },
  { status: 413, kind: 'media_rejected' },
  { status: 404, kind: 'permanent' },
  { status: 429, kind: 'rate_limited' },
  { status: 400, kind: 'invalid_content' },
  { status: [500, 599], kind: 'transient' },
];
