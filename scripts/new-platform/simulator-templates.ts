// The templates of the other files of src/sandbox/<p>/ (the simulator's entry, its store documents, its HTTP test),
// and the simulator's file list. Tokens: __p__ name, __P__ Pascal, __PU__ upper, __D__ display.
import { SIM_AUTH } from './simulator-auth-template.ts';
import { SIM_POSTS } from './simulator-route-templates.ts';

const SIM_INDEX = `// The __D__ simulator, scaffolded by scripts/new-platform.ts: a generic placeholder API (OAuth, media, posts)
// with __D__'s name on it, enough for the adapter to publish end to end and pass the shared contract. Its state is
// in \`kit.store\` (state.ts), so it survives restarts and is shared by every API node.
// FILL IN: __D__'s API as docs/platforms/__p__.md describes it; it must reject what __D__ rejects. Mark what the
// notes mark ⚠ with "⚠ unverified" and list it in docs/platform-fidelity.md.
import type { FastifyReply } from 'fastify';
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import { register__P__Auth } from './auth.ts';
import { register__P__Posts } from './posts.ts';
import { KIND, type __P__Context, type __P__Post } from './state.ts';

/** FILL IN: __D__'s error body shape; \`{ error, message }\` is a placeholder. */
const CODES: Record<number, string> = {
  400: 'invalid_request',
  401: 'invalid_token',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  429: 'rate_limited',
  503: 'unavailable',
};

export function __p__Simulator(kit: SimulatorKit): PlatformSimulator {
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
      const ctx: __P__Context = { kit, errorReply, prefix: app.prefix };
      register__P__Auth(app, ctx);
      register__P__Posts(app, ctx);
    },
    posts: async () =>
      (await kit.store.list<__P__Post>(KIND.post, { ascending: true })).map((p) => ({
        id: p.id,
        account: p.accountId,
        text: p.text,
        replyTo: p.replyTo,
        media: p.mediaIds.length,
        createdAt: new Date(p.createdAt).toISOString(),
        deleted: p.deleted,
      })),
  };
}
`;

const SIM_STATE = `// The __D__ simulator's documents in the sandbox store (\`kit.store\`: PostgreSQL when Herald mounts it, memory in a
// standalone rig): accounts, posts, media (their bytes as blobs), Idempotency-Key claims, spent codes and revoked
// tokens; and the context every route handler is given. Nothing lives only in memory, so a restart keeps every post
// and its URL, ids are never handed out twice, and every API node of a deployment serves the same sandbox.
// FILL IN: what __D__'s API keeps that Herald meets (containers, upload sessions, boards, locations …): a kind each.
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

/** The store's kinds: one document per account, post, media item, Idempotency-Key, spent code and revoked token. */
export const KIND = {
  account: 'account',
  /** Owned by the account: \`list(KIND.post, { owner })\` finds an account's posts. */
  post: 'post',
  media: 'media',
  /** \`\${accountId}:\${key}\` → the post it created, claimed with \`insert\` so two nodes cannot both create it. */
  idempotency: 'idempotency',
  /** jti of authorization codes already exchanged (single use: \`insert\`). */
  spentCode: 'spent-code',
  /** jti of revoked access and refresh tokens. */
  revoked: 'revoked',
} as const;

/** The blob of a media item's bytes. */
export const mediaBlob = (mediaId: string) => \`media:\${mediaId}\`;

/** What every route handler works with: the kit (its store holds the state) and __D__'s error body. */
export interface __P__Context {
  kit: SimulatorKit;
  errorReply: PlatformSimulator['errorReply'];
  /** Where the simulator is mounted (\`/sandbox/__p__\` in Herald), for the URLs it hands out. */
  prefix: string;
}
`;

const SIM_TEST = `// The __D__ simulator over HTTP: the consent page, the sign-in, a post and its idempotent re-send, the refusals,
// the post page with its media and thread; and its state in the store: a restart on the same store (Herald's is
// PostgreSQL) keeps tokens, posts and keys, and two simulators on one store serve the same posts.
// FILL IN: the simulator's __D__-specific behaviour (validation, media protocol, error bodies) as it grows.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { png } from '../../../test/helpers/media-sources.ts';
import { memoryStore } from '../framework/store.ts';
import { startSandbox, type RunningSandbox } from '../server.ts';

let sandbox: RunningSandbox;
let base: string;
const redirect = 'http://127.0.0.1/callback';

before(async () => {
  sandbox = await startSandbox({ platforms: ['__p__'] });
  base = sandbox.baseUrl('__p__');
});
after(() => sandbox.close());

async function signIn(username: string, at = base): Promise<string> {
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
  const authorize = await fetch(\`\${at}/oauth/authorize?\${query}\`, { redirect: 'manual' });
  assert.equal(authorize.status, 302);
  const code = new URL(authorize.headers.get('location')!).searchParams.get('code')!;
  const token = await fetch(\`\${at}/oauth/token\`, {
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

const post = (token: string, body: unknown, key: string, at = base) =>
  fetch(\`\${at}/v1/posts\`, {
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
  const held = (await sandbox.simulator('__p__').posts()).filter((p) => p.account === me.id);
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

test('the post page shows the account, the text with its link, the image and every part of the thread', async () => {
  const token = await signIn('sim_page');
  const upload = await fetch(\`\${base}/v1/media\`, {
    method: 'POST',
    headers: { authorization: \`Bearer \${token}\`, 'content-type': 'application/octet-stream' },
    body: new Uint8Array(png()),
  });
  const media = (await upload.json()) as { id: string };
  const first = (await (
    await post(token, { text: 'Read https://example.com/news first', media: [{ id: media.id }] }, 'page-1')
  ).json()) as { id: string; url: string };
  await post(token, { text: 'and then the second part', reply_to: first.id }, 'page-2');
  const page = await fetch(first.url);
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /@sim_page/);
  assert.match(html, /<a [^>]*href="https:\\/\\/example\\.com\\/news"/);
  assert.ok(html.includes(\`<img src="\${base}/media/\${media.id}"\`), 'the image');
  assert.ok(html.includes('and then the second part'), 'the second part of the thread');
  const image = await fetch(\`\${base}/media/\${media.id}\`);
  assert.equal(image.headers.get('content-type'), 'image/png');
  assert.deepEqual(Buffer.from(await image.arrayBuffer()), png());
  await fetch(\`\${base}/v1/posts/\${first.id}\`, { method: 'DELETE', headers: { authorization: \`Bearer \${token}\` } });
  assert.equal((await fetch(first.url)).status, 404);
});

test('a restart on the same store keeps tokens, posts and keys; two simulators on one store share them', async () => {
  const store = memoryStore();
  const running = new Set<RunningSandbox>();
  const start = async () => {
    const started = await startSandbox({ platforms: ['__p__'], secret: 'restart-secret', store: () => store });
    running.add(started);
    return started;
  };
  try {
    const first = await start();
    const at = first.baseUrl('__p__');
    const token = await signIn('sim_restart', at);
    const created = (await (await post(token, { text: 'before the restart' }, 'restart-1', at)).json()) as {
      id: string;
      url: string;
    };
    running.delete(first);
    await first.close();
    const [second, third] = [await start(), await start()];
    const again = second.baseUrl('__p__');
    const me = await fetch(\`\${again}/v1/me\`, { headers: { authorization: \`Bearer \${token}\` } });
    assert.equal(me.status, 200, 'the token still works');
    const { id: account } = (await me.json()) as { id: string };
    const resent = (await (await post(token, { text: 'before the restart' }, 'restart-1', again)).json()) as {
      id: string;
    };
    assert.equal(resent.id, created.id, 'the key still names its post');
    assert.equal((await fetch(created.url.replace(at, again))).status, 200, 'the post page still answers');
    const next = (await (await post(token, { text: 'after the restart' }, 'restart-2', again)).json()) as { id: string };
    assert.notEqual(next.id, created.id, 'a new post gets a new id');
    const onThird = await third.simulator('__p__').posts();
    assert.deepEqual(
      onThird.filter((p) => p.account === account).map((p) => p.text),
      ['before the restart', 'after the restart'],
    );
  } finally {
    for (const open of running) await open.close();
  }
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
