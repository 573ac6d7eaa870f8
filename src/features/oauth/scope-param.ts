// The OAuth `scope` parameter: space-separated Herald scopes (the same names as API keys and REST use).
import { isScope, type Scope } from '../keys/scopes.ts';

// OpenID's "give me a refresh token" scope: some clients always ask for it; Herald issues refresh tokens to
// every client registered for the refresh_token grant, so it is accepted and means nothing more.
const IGNORED = new Set(['offline_access']);

export function parseScopeParam(value: string): { scopes: Scope[] } | { unknown: string[] } {
  const names = [...new Set(value.split(' ').filter((s) => s !== '' && !IGNORED.has(s)))];
  const unknown = names.filter((n) => !isScope(n));
  if (unknown.length > 0) return { unknown };
  return { scopes: names as Scope[] };
}

export function formatScopes(scopes: readonly string[]): string {
  return scopes.join(' ');
}
