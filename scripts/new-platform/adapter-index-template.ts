// The template of src/platforms/<p>/index.ts: the adapter itself (OAuth, media, publish, look-up, delete) against
// the simulator's generic placeholder API. Tokens: __p__ name, __P__ Pascal, __PU__ upper, __D__ display.

export const ADAPTER_INDEX = `// The __D__ adapter, scaffolded by scripts/new-platform.ts against a generic placeholder API that the simulator
// (src/sandbox/__p__/) speaks: OAuth 2.0 authorization code with PKCE and refresh tokens, media uploaded as bytes
// and polled until processed, posts created with an Idempotency-Key and found again by it. Works end to end with
// the sandbox as generated.
// FILL IN: __D__'s real protocol (docs/platforms/__p__.md): auth, calls, media, idempotency or the look-up that
// replaces it, reply chains, web URLs. Every placeholder below is marked; \`grep -rn "FILL IN:" src docs\`.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { sleep } from '../classify.ts';
import type { PlatformHttp } from '../http-contract.ts';
import {
  PlatformError,
  type AdapterConfig,
  type Credentials,
  type OAuthCapability,
  type PlatformAdapter,
  type PlatformSession,
  type PreparedMedia,
} from '../types.ts';
import * as client from './client.ts';
import { limits } from './limits.ts';

/** FILL IN: __D__'s API host for real connections (src/container.ts \`platformUrls\`). */
export const __PU___API_URL = 'https://api.__p__.example';

/** FILL IN: the scopes Herald asks for: publishing, and reading the account (and metrics, comments, when added). */
const SCOPES = ['posts.write', 'profile.read'];
/** The client id a sandbox sign-in uses when no app is configured (the simulator takes any). */
const SANDBOX_CLIENT = { id: 'herald-sandbox', secret: 'herald-sandbox-secret' };
const PROCESSING_DEADLINE_MS = 10 * 60_000;
const POLL_MS = 500;

/** The token answer as credentials; \`expires_in\` becomes an absolute time. */
function credentialsFrom(answer: client.TokenAnswer, now: Date): Credentials {
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token ?? null,
    expiresAt: answer.expires_in ? new Date(now.getTime() + answer.expires_in * 1000).toISOString() : null,
  };
}

/** A refused code or refresh token (a 4xx other than 429) means the user must sign in again. */
function refused(error: unknown, what: string): unknown {
  return error instanceof PlatformError &&
    error.platformStatus !== undefined &&
    error.platformStatus < 500 &&
    error.platformStatus !== 429
    ? new PlatformError('auth_expired', 'PLATFORM_RECONNECT_REQUIRED', \`__D__ refused the \${what}: \${error.message}\`, {
        platformStatus: error.platformStatus,
        platformBody: error.platformBody,
      })
    : error;
}

async function account(http: PlatformHttp, token: string) {
  const me = await client.me(http, token);
  return { accountId: me.id, handle: me.username, displayName: me.name || null, avatarUrl: me.avatar_url ?? null };
}

/** FILL IN: __D__'s OAuth (authorize URL, token endpoint, PKCE or not, how the client authenticates, revocation). */
function __p__OAuth(): OAuthCapability {
  return {
    pkce: true,
    scopes: SCOPES,
    authorizeUrl(ctx, { state, codeChallenge }) {
      const url = new URL(\`\${ctx.webUrl}/oauth/authorize\`);
      const params: Record<string, string> = {
        response_type: 'code',
        client_id: ctx.app.clientId,
        redirect_uri: ctx.redirectUri,
        scope: SCOPES.join(' '),
        state,
      };
      if (codeChallenge) Object.assign(params, { code_challenge: codeChallenge, code_challenge_method: 'S256' });
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      return url.toString();
    },
    async exchangeCode(ctx, { code, codeVerifier }) {
      const form: Record<string, string> = {
        grant_type: 'authorization_code',
        code,
        redirect_uri: ctx.redirectUri,
        client_id: ctx.app.clientId,
        client_secret: ctx.app.clientSecret ?? '',
      };
      if (codeVerifier) form.code_verifier = codeVerifier;
      try {
        return credentialsFrom(await client.token(ctx.http, form), new Date());
      } catch (error) {
        throw refused(error, 'authorization code');
      }
    },
    async accounts(ctx, credentials) {
      return [{ account: await account(ctx.http, credentials.accessToken), credentials }];
    },
    async revoke(ctx, credentials) {
      await client.revoke(ctx.http, {
        token: credentials.accessToken,
        client_id: ctx.app.clientId,
        client_secret: ctx.app.clientSecret ?? '',
      });
    },
  };
}

export function create__P__Adapter(config: AdapterConfig): PlatformAdapter {
  const app = { id: config.clientId ?? SANDBOX_CLIENT.id, secret: config.clientSecret ?? SANDBOX_CLIENT.secret };
  return {
    platform: '__p__',
    limits,
    limitsFor: () => limits,
    // FILL IN: what a part key is on __D__ (an idempotency key it honours, a record key, or a look-up marker).
    newPartKey: () => randomUUID(),

    // FILL IN: __D__'s media protocol (one request, chunked upload, or a URL it pulls via media.signedUrl()).
    async prepareMedia(session, media) {
      const token = session.credentials.accessToken;
      const out: PreparedMedia[] = [];
      for (const item of media) {
        let state = await client.uploadMedia(session.http, token, {
          data: await item.open(),
          contentType: item.contentType,
          size: item.sizeBytes,
        });
        const deadline = Date.now() + PROCESSING_DEADLINE_MS;
        while (state.status === 'processing') {
          if (Date.now() > deadline)
            throw new PlatformError(
              'transient',
              'PLATFORM_UNAVAILABLE',
              \`__D__ was still processing media \${state.id} after \${PROCESSING_DEADLINE_MS / 60_000} minutes.\`,
            );
          await sleep(POLL_MS);
          state = await client.mediaStatus(session.http, token, state.id);
        }
        if (state.status !== 'ready')
          throw new PlatformError(
            'media_rejected',
            'PLATFORM_MEDIA_REJECTED',
            \`__D__ could not process media \${state.id}: \${state.error ?? state.status}\`,
          );
        out.push({ platformRef: state.id, kind: item.kind, altText: item.altText, width: item.width, height: item.height });
      }
      return out;
    },

    async publish(session, part) {
      const body: Record<string, unknown> = { text: part.text };
      if (part.media.length > 0)
        body.media = part.media.map((m) => ({ id: m.platformRef, alt_text: m.altText ?? undefined }));
      if (part.parent) body.reply_to = part.parent.id;
      // FILL IN: __D__'s own options (\`platform_options.__p__\`, declared in src/features/posts/posts.platform-options.ts).
      const post = await client.createPost(session.http, session.credentials.accessToken, part.key, body);
      return { id: post.id, url: post.url };
    },

    // FILL IN: without a key the platform honours, look the part up (recent posts, text, reply target).
    async findPublished(session, part) {
      const post = await client.findPostByKey(session.http, session.credentials.accessToken, part.key);
      return post ? { id: post.id, url: post.url } : null;
    },

    async deletePost(session, post) {
      await client.deletePost(session.http, session.credentials.accessToken, post.id);
    },

    // FILL IN: how __D__ refreshes (rotating refresh tokens? a fixed lifetime?), and what a refusal looks like.
    async refreshCredentials(session: PlatformSession) {
      const { refreshToken } = session.credentials;
      if (!refreshToken)
        throw new PlatformError('auth_expired', 'PLATFORM_RECONNECT_REQUIRED', '__D__ gave no refresh token; reconnect.');
      try {
        const answer = await client.token(session.http, {
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: app.id,
          client_secret: app.secret,
        });
        return credentialsFrom(answer, session.clock.now());
      } catch (error) {
        throw refused(error, 'refresh token');
      }
    },

    async verifyAccount(session) {
      return account(session.http, session.credentials.accessToken);
    },

    oauth: __p__OAuth(),

    /** The platform's own sign-in against the simulator: authorize as \`sandbox_username\`, then the code exchange. */
    async connectSandbox(http, { username, workspace }) {
      const verifier = randomBytes(48).toString('base64url');
      const state = randomBytes(12).toString('base64url');
      const redirect = 'http://127.0.0.1/herald/oauth/callback';
      const authorize = await http.request({
        method: 'GET',
        path: '/oauth/authorize',
        query: {
          response_type: 'code',
          client_id: app.id,
          redirect_uri: redirect,
          scope: SCOPES.join(' '),
          state,
          code_challenge: createHash('sha256').update(verifier).digest('base64url'),
          code_challenge_method: 'S256',
          sandbox_username: username,
          ...(workspace ? { sandbox_ws: workspace } : {}),
        },
      });
      const location = typeof authorize.headers.location === 'string' ? new URL(authorize.headers.location) : undefined;
      const code = location?.searchParams.get('code');
      if (authorize.status !== 302 || !code || location?.searchParams.get('state') !== state)
        throw new PlatformError(
          'permanent',
          'PLATFORM_REJECTED',
          \`The __D__ sandbox did not authorize (\${authorize.status}: \${authorize.text().slice(0, 200)}).\`,
        );
      const credentials = credentialsFrom(
        await client.token(http, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirect,
          code_verifier: verifier,
          client_id: app.id,
          client_secret: app.secret,
        }),
        new Date(),
      );
      return { account: await account(http, credentials.accessToken), credentials };
    },
  };
}
`;
