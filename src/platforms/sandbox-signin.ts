// The authorize step of a sandbox sign-in (an adapter's `connectSandbox`): the platform's own authorize call against
// its simulator, which consents at once as `sandbox_username` and redirects with a code. PKCE S256 is always sent
// (a simulator checks it when sent); the code comes back only when the redirect carries the state sent.
import { createHash, randomBytes } from 'node:crypto';
import type { PlatformHttp } from './http-contract.ts';
import { PlatformError } from './types.ts';

/** The redirect URI every sandbox sign-in names (nothing listens there: the 302 is read, not followed). */
export const SANDBOX_REDIRECT = 'http://127.0.0.1/herald/oauth/callback';

export interface SandboxAuthorize {
  /** The platform's name in messages ("TikTok"). */
  display: string;
  /** The authorize path on the simulator. */
  path: string;
  /** The platform's own authorize parameters, without state, PKCE, redirect and the sandbox ones. */
  query: Record<string, string>;
  /** The simulator account to sign in as (`sandbox_username`), and its workspace. */
  username: string;
  workspace?: string;
}

/** Runs the authorize call; answers the code and the PKCE verifier for the platform's code exchange. */
export async function sandboxAuthorize(
  http: PlatformHttp,
  o: SandboxAuthorize,
): Promise<{ code: string; verifier: string; redirect: string }> {
  const verifier = randomBytes(48).toString('base64url');
  const state = randomBytes(12).toString('base64url');
  const authorize = await http.request({
    method: 'GET',
    path: o.path,
    query: {
      ...o.query,
      redirect_uri: SANDBOX_REDIRECT,
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      sandbox_username: o.username,
      ...(o.workspace ? { sandbox_ws: o.workspace } : {}),
    },
  });
  const location = typeof authorize.headers.location === 'string' ? new URL(authorize.headers.location) : undefined;
  const code = location?.searchParams.get('code');
  if (authorize.status !== 302 || !code || location?.searchParams.get('state') !== state)
    throw new PlatformError(
      'permanent',
      'PLATFORM_REJECTED',
      `The ${o.display} sandbox did not authorize (${authorize.status}: ${authorize.text().slice(0, 200)}).`,
    );
  return { code, verifier, redirect: SANDBOX_REDIRECT };
}
