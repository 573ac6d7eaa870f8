// TikTok's error answers → PlatformError kinds (docs/platforms/tiktok.md "Errors"). Every v2 answer is
// `{ data, error: { code, message, log_id } }`; the `code` string decides, not only the HTTP status (TikTok's error
// handling guide: check `error.code`), so the rows match the code in the body first, whatever the status.
import type { ErrorRule } from '../classify.ts';

/** A row for TikTok's `error.code` (any status: an answer of 200 with a code other than "ok" is an error too). */
const code = (name: string, rule: Omit<ErrorRule, 'status' | 'body'>): ErrorRule => ({
  status: [200, 599],
  body: new RegExp(`"code"\\s*:\\s*"${name}"`),
  ...rule,
});

export const TIKTOK_ERRORS: ErrorRule[] = [
  code('access_token_invalid', { kind: 'auth_expired' }),
  code('scope_not_authorized', { kind: 'permanent', code: 'PLATFORM_PERMISSION_DENIED' }),
  code('scope_permission_missed', { kind: 'permanent', code: 'PLATFORM_PERMISSION_DENIED' }),
  code('rate_limit_exceeded', { kind: 'rate_limited' }),
  // The unaudited-client rules and the posting caps: nothing to retry soon, the user or operator must act.
  code('unaudited_client_can_only_post_to_private_accounts', {
    kind: 'permanent',
    code: 'PLATFORM_PERMISSION_DENIED',
  }),
  code('reached_active_user_cap', { kind: 'permanent', code: 'PLATFORM_QUOTA_EXHAUSTED' }),
  code('spam_risk_too_many_posts', { kind: 'permanent', code: 'PLATFORM_QUOTA_EXHAUSTED' }),
  code('spam_risk_too_many_pending_share', { kind: 'permanent', code: 'PLATFORM_QUOTA_EXHAUSTED' }),
  code('spam_risk_user_banned_from_posting', { kind: 'permanent', code: 'PLATFORM_PERMISSION_DENIED' }),
  code('spam_risk', { kind: 'invalid_content' }),
  code('privacy_level_option_mismatch', { kind: 'invalid_content' }),
  code('url_ownership_unverified', { kind: 'media_rejected' }),
  code('invalid_file_upload', { kind: 'media_rejected' }),
  code('file_format_check_failed', { kind: 'media_rejected' }),
  code('duration_check_failed', { kind: 'media_rejected' }),
  code('invalid_params', { kind: 'invalid_content' }),
  code('internal_error', { kind: 'transient' }),
  { status: 401, kind: 'auth_expired' },
  { status: 403, kind: 'permanent', code: 'PLATFORM_PERMISSION_DENIED' },
  { status: 404, kind: 'permanent' },
  { status: 429, kind: 'rate_limited' },
  { status: [400, 499], kind: 'invalid_content' },
  { status: [500, 599], kind: 'transient' },
];

/** What Herald adds to TikTok's own words for the codes a user must act on. */
export const ERROR_HINTS: Record<string, string> = {
  unaudited_client_can_only_post_to_private_accounts:
    ' The TikTok app Herald uses is not audited yet: it may only post SELF_ONLY (set platform_options.tiktok.privacy_level to SELF_ONLY, or have the app audited by TikTok).',
  reached_active_user_cap:
    ' The TikTok app Herald uses is not audited yet, and TikTok caps how many users may post through it in 24 hours; try again tomorrow, or have the app audited.',
  spam_risk_too_many_posts: ' TikTok caps how many posts a creator makes through the API in a day; try again tomorrow.',
  privacy_level_option_mismatch:
    " Choose one of the creator's privacy levels (GET /v1/connections/{id} lists them under options.privacy_levels).",
  url_ownership_unverified:
    " TikTok pulls media only from a domain or URL prefix verified in the TikTok app's settings: verify Herald's media URL there, or set platform_options.tiktok.video_source to file_upload.",
};

/**
 * What a FAILED publish's `fail_reason` means (content-posting-api-reference-get-video-status). ⚠ unverified: the
 * list is the reference page's at the time of writing; an unknown reason is a permanent refusal.
 */
export const FAIL_REASONS: Record<
  string,
  {
    kind: 'media_rejected' | 'invalid_content' | 'permanent' | 'transient' | 'auth_expired';
    code?: 'PLATFORM_PERMISSION_DENIED' | 'PLATFORM_QUOTA_EXHAUSTED';
  }
> = {
  file_format_check_failed: { kind: 'media_rejected' },
  duration_check_failed: { kind: 'media_rejected' },
  frame_rate_check_failed: { kind: 'media_rejected' },
  picture_size_check_failed: { kind: 'media_rejected' },
  video_pull_failed: { kind: 'media_rejected' },
  photo_pull_failed: { kind: 'media_rejected' },
  internal: { kind: 'transient' },
  publish_cancelled: { kind: 'permanent' },
  auth_removed: { kind: 'auth_expired' },
  spam_risk_too_many_posts: { kind: 'permanent', code: 'PLATFORM_QUOTA_EXHAUSTED' },
  spam_risk_user_banned_from_posting: { kind: 'permanent', code: 'PLATFORM_PERMISSION_DENIED' },
  spam_risk_text: { kind: 'invalid_content' },
  spam_risk: { kind: 'invalid_content' },
};
