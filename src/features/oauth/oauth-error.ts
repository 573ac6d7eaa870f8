// OAuth errors as RFC 6749 §5.2 / RFC 7591 §3.2.2 / RFC 7009 define them: a code and the status it calls for.
// The authorization server's rules throw them; src/mcp/oauth/errors.ts sends them as `{ error, error_description }`.

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'unsupported_token_type'
  | 'server_error'
  | 'temporarily_unavailable'
  | 'too_many_requests';

const STATUS: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  access_denied: 403,
  unsupported_response_type: 400,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  unsupported_token_type: 400,
  server_error: 500,
  temporarily_unavailable: 503,
  too_many_requests: 429,
};

export class OAuthError extends Error {
  readonly code: OAuthErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(code: OAuthErrorCode, description: string, headers: Record<string, string> = {}) {
    super(description);
    this.name = 'OAuthError';
    this.code = code;
    this.status = STATUS[code];
    this.headers = headers;
  }
}
