// The OAuth `scope` parameter: space-separated Herald scopes (the same names as API keys and REST use).
// `keys:manage` and `members:manage` are not offered over OAuth (docs/decisions.md): an assistant never gets power
// over a person's keys or the workspace's people; a request naming them is refused like an unknown scope.
import { ADMINISTRATIVE_SCOPES, isScope, SCOPES, type Scope } from '../keys/scopes.ts';

// OpenID's "give me a refresh token" scope: some clients always ask for it; Herald issues refresh tokens to
// every client registered for the refresh_token grant, so it is accepted and means nothing more.
const IGNORED = new Set(['offline_access']);

/** The scopes an OAuth client may ask for (and `scopes_supported` lists): all but the administrative ones. */
export const OAUTH_SCOPES: readonly Scope[] = SCOPES.filter((s) => !ADMINISTRATIVE_SCOPES.includes(s));

export function isOAuthScope(value: string): value is Scope {
  return isScope(value) && !ADMINISTRATIVE_SCOPES.includes(value);
}

export function parseScopeParam(value: string): { scopes: Scope[] } | { unknown: string[] } {
  const names = [...new Set(value.split(' ').filter((s) => s !== '' && !IGNORED.has(s)))];
  const unknown = names.filter((n) => !isOAuthScope(n));
  if (unknown.length > 0) return { unknown };
  return { scopes: names as Scope[] };
}

export function formatScopes(scopes: readonly string[]): string {
  return scopes.join(' ');
}
