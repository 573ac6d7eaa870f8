// A PDS's XRPC errors → PlatformError kinds (docs/platforms/bluesky.md "Errors"). Token problems are 400s with the
// names ExpiredToken / InvalidToken, not 401s; a second create at the same record key is a 500 (checked
// against a real PDS) — the adapter looks the record up rather than trusting that status.
import type { ErrorRule } from '../classify.ts';

export const BLUESKY_ERRORS: ErrorRule[] = [
  { status: 400, body: /"error":"(ExpiredToken|InvalidToken)"/, kind: 'auth_expired' },
  { status: 401, kind: 'auth_expired' },
  { status: 400, body: /"error":"(BlobNotFound|BlobTooLarge|InvalidMimeType)"/, kind: 'media_rejected' },
  {
    status: 400,
    body: /"error":"(AccountTakedown|AccountDeactivated|RepoDeactivated|RepoTakendown)"/,
    kind: 'permanent',
    code: 'PLATFORM_PERMISSION_DENIED',
  },
  { status: 400, kind: 'invalid_content' },
  { status: 403, kind: 'permanent', code: 'PLATFORM_PERMISSION_DENIED' },
  { status: 413, kind: 'media_rejected' },
  { status: 429, kind: 'rate_limited' },
  { status: [500, 599], kind: 'transient' },
];
