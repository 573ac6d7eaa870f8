// The templates of the other files of src/sandbox/<p>/ (the simulator's entry, its state, its HTTP test), and the
// simulator's file list. Tokens: __p__ name, __P__ Pascal, __PU__ upper, __D__ display.
import { SIM_AUTH, SIM_POSTS } from './simulator-route-templates.ts';

const SIM_INDEX = `// The __D__ simulator, scaffolded by scripts/new-platform.ts: a generic placeholder API (OAuth, media, posts)
// with __D__'s name on it, enough for the adapter to publish end to end and pass the shared contract.
// FILL IN: __D__'s API as docs/platforms/__p__.md describes it; it must reject what __D__ rejects. Mark what the
// notes mark ⚠ with "⚠ unverified" and list it in docs/platform-fidelity.md.
import type { FastifyReply } from 'fastify';
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import { register__P__Auth } from './auth.ts';
import { register__P__Posts } from './posts.ts';
import { create__P__State, type __P__State } from './state.ts';

/** FILL IN: __D__'s error body shape; \`{ error, message }\` is a placeholder. */
const CODES: Record<number, string> = {
  400: 'invalid_request',
  401: 'invalid_token',
  403: 'forbidden',
  404: 'not_found',
  429: 'rate_limited',
  503: 'unavailable',
};

export function __p__Simulator(kit: SimulatorKit): PlatformSimulator {
  let state = create__P__State();
  const errorReply = (reply: FastifyReply, status: number, message: string) => {
    // A message that starts with \`code: \` names its own error code (media_not_ready: …).
    const own = /^([a-z_]+): (.*)$/.exec(message);
    return reply
      .code(status)
      .send({ error: own?.[1] ?? CODES[status] ?? (status >= 500 ? 'server_error' : 'error'), message: own?.[2] ?? message });
  };
  return {
    errorReply,
    routes(app) {
      const live = new Proxy({} as __P__State, { get: (_t, key) => state[key as keyof __P__State] });
      const ctx = { kit, state: live, errorReply, prefix: app.prefix };
      register__P__Auth(app, ctx);
      register__P__Posts(app, ctx);
    },
    posts: () =>
      [...state.posts.values()].map((p) => ({
        id: p.id,
        account: p.accountId,
        text: p.text,
        replyTo: p.replyTo,
        media: p.mediaIds.length,
        createdAt: new Date(p.createdAt).toISOString(),
        deleted: p.deleted,
      })),
    reset() {
      state = create__P__State();
    },
  };
}
`;

const SIM_STATE = `// In-memory state of the __D__ simulator: accounts, posts, media, the Idempotency-Key memory, spent codes and
// revoked tokens; and the context every route handler is given.
// FILL IN: what __D__'s API keeps that Herald meets (containers, upload sessions, boards, locations …).
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';

export interface __P__Account {
  id: string;
  username: string;
  name: string;
}

export interface __P__Post {
  id: string;
  accountId: string;
  text: string;
  replyTo: string | null;
  mediaIds: string[];
  createdAt: number;
  deleted: boolean;
}

export interface __P__Media {
  id: string;
  accountId: string;
  contentType: string;
  size: number;
  readyAt: number;
  failed: boolean;
}

export interface __P__State {
  accounts: Map<string, __P__Account>;
  posts: Map<string, __P__Post>;
  media: Map<string, __P__Media>;
  /** \`\${accountId}:\${key}\` → post id. */
  idempotency: Map<string, string>;
  spentCodes: Set<string>;
  revoked: Set<string>;
}

export function create__P__State(): __P__State {
  return {
    accounts: new Map(),
    posts: new Map(),
    media: new Map(),
    idempotency: new Map(),
    spentCodes: new Set(),
    revoked: new Set(),
  };
}

/** What every route handler works with: the kit, the live state (reset swaps it) and __D__'s error body. */
export interface __P__Context {
  kit: SimulatorKit;
  state: __P__State;
  errorReply: PlatformSimulator['errorReply'];
  /** Where the simulator is mounted (\`/sandbox/__p__\` in Herald), for the URLs it hands out. */
  prefix: string;
}
`;

const SIM_TEST = `// The __D__ simulator over HTTP: the consent page, the sign-in, a post and its idempotent re-send, the refusals.
// FILL IN: the simulator's __D__-specific behaviour (validation, media protocol, error bodies) as it grows.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { startSandbox, type RunningSandbox } from '../server.ts';

let sandbox: RunningSandbox;
let base: string;
const redirect = 'http://127.0.0.1/callback';

before(async () => {
  sandbox = await startSandbox({ platforms: ['__p__'] });
  base = sandbox.baseUrl('__p__');
});
after(() => sandbox.close());

async function signIn(username: string): Promise<string> {
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'test-client',
    redirect_uri: redirect,
    scope: 'posts.write',
    state: 's1',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    sandbox_username: username,
  });
  const authorize = await fetch(\`\${base}/oauth/authorize?\${query}\`, { redirect: 'manual' });
  assert.equal(authorize.status, 302);
  const code = new URL(authorize.headers.get('location')!).searchParams.get('code')!;
  const token = await fetch(\`\${base}/oauth/token\`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirect,
      client_id: 'test-client',
      code_verifier: verifier,
    }),
  });
  assert.equal(token.status, 200);
  return ((await token.json()) as { access_token: string }).access_token;
}

const post = (token: string, body: unknown, key: string) =>
  fetch(\`\${base}/v1/posts\`, {
    method: 'POST',
    headers: { authorization: \`Bearer \${token}\`, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
  });

test('authorize without a sandbox username shows the consent page', async () => {
  const res = await fetch(\`\${base}/oauth/authorize?response_type=code&client_id=c&redirect_uri=\${encodeURIComponent(redirect)}\`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\\/html/);
  assert.ok((await res.text()).includes('__D__ sandbox: authorize this app?'));
});

test('a signed-in account posts once per idempotency key, and the post is held', async () => {
  const token = await signIn('sim_poster');
  const me = (await (await fetch(\`\${base}/v1/me\`, { headers: { authorization: \`Bearer \${token}\` } })).json()) as {
    id: string;
  };
  const first = await post(token, { text: 'hello from the simulator test' }, 'key-1');
  assert.equal(first.status, 201);
  const created = (await first.json()) as { id: string; url: string };
  const again = (await (await post(token, { text: 'hello from the simulator test' }, 'key-1')).json()) as { id: string };
  assert.equal(again.id, created.id);
  const held = sandbox.simulator('__p__').posts().filter((p) => p.account === me.id);
  assert.deepEqual(
    held.map((p) => p.text),
    ['hello from the simulator test'],
  );
  assert.equal((await fetch(created.url)).status, 200);
});

test('too long a text, an unknown token and a missing body are refused', async () => {
  const token = await signIn('sim_refused');
  assert.equal((await post(token, { text: 'x'.repeat(100_000) }, 'key-long')).status, 400);
  assert.equal((await post('not-a-token', { text: 'hi' }, 'key-bad')).status, 401);
  assert.equal((await post(token, {}, 'key-empty')).status, 400);
});
`;

/** The files of src/sandbox/<p>/, path → template (not yet filled). */
export function simulatorFiles(p: string): Record<string, string> {
  return {
    [`src/sandbox/${p}/index.ts`]: SIM_INDEX,
    [`src/sandbox/${p}/state.ts`]: SIM_STATE,
    [`src/sandbox/${p}/auth.ts`]: SIM_AUTH,
    [`src/sandbox/${p}/posts.ts`]: SIM_POSTS,
    [`src/sandbox/${p}/${p}-simulator.test.ts`]: SIM_TEST,
  };
}
