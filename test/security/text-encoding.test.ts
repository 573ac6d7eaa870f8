// Attack class: text that is not valid Unicode. A JSON escape can spell half a UTF-16 surrogate pair (`"\ud800"`),
// which PostgreSQL and every UTF-8 encoder silently turn into U+FFFD: validate said "valid" for a text that was
// then stored changed. And a sign-in `return_to` outside Latin-1 could not become a Location header: 500, and the
// session cookie of a correct password was lost.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { createPerson, hiddenField } from '../helpers/oauth.ts';

let t: TestApp;
let key: string;
const person = { email: 'lee@example.com', password: 'lee has a long password' };

before(async () => {
  t = await buildTestApp();
  key = await t.key();
  await createPerson(t, person.email, person.password, [{ workspaceId: t.owner.workspaceId }]);
});
after(() => t.close());

const postCount = async () =>
  (await t.container.pool.query('SELECT count(*)::int AS n FROM posts')).rows[0].n as number;

/** Raw JSON bodies (written by hand: JSON.stringify would never produce a lone surrogate) and the path refused. */
const LONE: Array<{ body: string; path: string }> = [
  { body: '{"content":"\\ud800","platforms":["x"]}', path: '/content' },
  { body: '{"content":"\\uD800","platforms":["x"]}', path: '/content' },
  { body: '{"content":"a\\udc00b","platforms":["x"]}', path: '/content' },
  { body: '{"content":"pair reversed \\udc00\\ud800","platforms":["x"]}', path: '/content' },
  { body: '{"content":"high at the end \\ud83d","platforms":["x"]}', path: '/content' },
  { body: '{"content":"ok","platforms":["x\\udfff"]}', path: '/platforms/0' },
  { body: '{"content":"ok","platforms":["x"],"\\ud800":1}', path: '' },
  { body: '{"content":"ok","platforms":["x"],"threads":[{"content":"\\ud801"}]}', path: '/threads/0/content' },
];

describe('lone UTF-16 surrogates in a JSON body', () => {
  test('POST /v1/posts/validate refuses them with 400 PUBLIC_API_BODY_INVALID naming the field', async () => {
    for (const { body, path } of LONE) {
      const res = await t.inject({
        method: 'POST',
        url: '/v1/posts/validate',
        key,
        idem: false,
        headers: { 'content-type': 'application/json' },
        payload: body,
      });
      assert.equal(res.statusCode, 400, `${body}: ${res.body}`);
      const error = res.json().error as { code: string; details?: Array<{ path?: string }> };
      assert.equal(error.code, 'PUBLIC_API_BODY_INVALID', body);
      assert.equal(error.details?.[0]?.path, path, body);
    }
  });

  test('POST /v1/posts and PATCH (merge-patch) refuse them and store nothing; a well-formed pair still passes', async () => {
    const before = await postCount();
    for (const { body } of LONE) {
      const res = await t.inject({
        method: 'POST',
        url: '/v1/posts',
        key,
        headers: { 'content-type': 'application/json' },
        payload: body,
      });
      assert.equal(res.statusCode, 400, `${body}: ${res.body}`);
      assert.equal(res.json().error.code, 'PUBLIC_API_BODY_INVALID');
    }
    assert.equal(await postCount(), before);
    const made = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: { content: 'draft', platforms: ['x'] },
    });
    assert.equal(made.statusCode, 201, made.body);
    const id = made.json().data.post_id as string;
    const patch = await t.inject({
      method: 'PATCH',
      url: `/v1/posts/${id}`,
      key,
      headers: { 'content-type': 'application/merge-patch+json' },
      payload: '{"content":"edited \\udbff"}',
    });
    assert.equal(patch.statusCode, 400, patch.body);
    assert.equal(patch.json().error.details[0].path, '/content');
    const stored = await t.container.pool.query('SELECT content FROM posts WHERE id = $1', [id]);
    assert.equal(stored.rows[0].content, 'draft');
    // A well-formed pair written as escapes is still accepted, stored as the character it spells.
    const pair = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      headers: { 'content-type': 'application/json' },
      payload: '{"content":"smile \\ud83d\\ude00 and a literal \\\\ud800","platforms":["x"]}',
    });
    assert.equal(pair.statusCode, 201, pair.body);
    assert.equal(pair.json().data.post.content, 'smile \u{1f600} and a literal \\ud800');
  });

  test('an MCP tool call with a lone surrogate in its arguments is refused and stores nothing', async () => {
    const before = await postCount();
    for (const tool of ['create_post', 'validate_post']) {
      const res = await t.inject({
        method: 'POST',
        url: '/mcp',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        payload: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${tool}","arguments":{"content":"\\ud800","platforms":["x"]}}}`,
      });
      assert.equal(res.statusCode, 400, `${tool}: ${res.body}`);
      const body = res.json() as { error: { data: { code: string }; message: string } };
      assert.equal(body.error.data.code, 'PUBLIC_API_BODY_INVALID');
      assert.match(body.error.message, /\/params\/arguments\/content/);
    }
    assert.equal(await postCount(), before);
  });
});

/** GET /login: the form's CSRF token and the pre-session cookie it is bound to. */
async function signIn(returnTo: string) {
  const form = await t.inject({ method: 'GET', url: `/login?return_to=${encodeURIComponent(returnTo)}` });
  assert.equal(form.statusCode, 200, form.body);
  const cookie = form.cookies.find((c) => c.name.endsWith('herald_login'))!;
  return t.inject({
    method: 'POST',
    url: '/login',
    headers: { cookie: `${cookie.name}=${cookie.value}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      csrf: hiddenField(form.body, 'csrf'),
      email: person.email,
      password: person.password,
      return_to: returnTo,
    }).toString(),
  });
}

describe('sign-in return_to outside ASCII', () => {
  const cases = ['/\u3000x', '/caf\u00e9', '/oauth/authorize?state=\u{1f600}', '/a b'];

  test('POST /login with a correct password signs in and redirects to the percent-encoded path', async () => {
    for (const returnTo of cases) {
      const res = await signIn(returnTo);
      assert.equal(res.statusCode, 303, `${returnTo}: ${res.body}`);
      assert.ok(
        res.cookies.some((c) => c.name === 'herald_session'),
        `${returnTo}: the session cookie is set`,
      );
      const location = res.headers.location as string;
      assert.match(location, /^\/[\x21-\x7e]*$/, `${returnTo}: ${location}`);
      assert.equal(decodeURI(location), returnTo);
    }
  });

  test('GET /login signed in with such a return_to redirects there, encoded, instead of failing', async () => {
    const session = (await signIn('/')).cookies.find((c) => c.name === 'herald_session')!;
    for (const returnTo of cases) {
      const res = await t.inject({
        method: 'GET',
        url: `/login?return_to=${encodeURIComponent(returnTo)}`,
        headers: { cookie: `herald_session=${session.value}` },
      });
      assert.equal(res.statusCode, 303, `${returnTo}: ${res.body}`);
      assert.equal(decodeURI(res.headers.location as string), returnTo);
    }
  });

  test('no sign-in page failed with a 500', () => {
    assert.deepEqual(
      t.logs.filter((l) => l.msg === 'page failed' || l.msg === 'unhandled error'),
      [],
    );
  });
});
