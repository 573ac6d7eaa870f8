// docs/gpt-actions.md: the action profile of the API (GET /v1/openapi/actions) against every limit of the action
// platform, and the flow a custom GPT drives with an `actions` key, sending nothing but Authorization: a post
// created, the same call repeated answered as a repeat (not a second post), smaller pages, files by reference.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseYaml } from 'yaml';
import { createKey, KeyInputError } from '../src/features/keys/keys.service.ts';
import { ACTION_LIMITS, ACTION_OPERATIONS, shorten } from '../src/http/openapi.actions.ts';
import { fileHostAllowed } from '../src/features/media/media.file-refs.ts';
import { ACTIONS_PAGE_SIZE } from '../src/http/access.ts';
import { main } from '../src/cli.ts';
import { buildTestApp, TEST_SECRET, type TestApp } from './helpers/app.ts';

type Json = Record<string, unknown>;
let t: TestApp;
let actionsKey: string;
let doc: {
  openapi: string;
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, Json>; parameters?: unknown };
  webhooks?: unknown;
};
let docText: string;

before(async () => {
  t = await buildTestApp({
    env: {
      HERALD_RATE_LIMIT_WRITE_PER_MIN: '100000',
      HERALD_RATE_LIMIT_READ_PER_MIN: '100000',
      HERALD_ACTIONS_FILE_HOSTS: '127.0.0.1',
      HERALD_OUTBOUND_ALLOWLIST: '127.0.0.1',
    },
  });
  actionsKey = (
    await createKey(t.container.pool, {
      userId: t.owner.userId,
      name: 'my GPT',
      scopes: ['posts:read', 'posts:write', 'media:write', 'connections:read'],
      workspaceIds: [t.owner.workspaceId],
      expiresAt: null,
      profile: 'actions',
    })
  ).key;
  const answer = await t.inject({ method: 'GET', url: '/v1/openapi/actions.json' });
  assert.equal(answer.statusCode, 200);
  docText = answer.body;
  doc = answer.json();
});
after(() => t.close());

/** Only what an action sends: its key, and the JSON type of a body. */
function asAction(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) {
  return t.inject({
    method,
    url,
    idem: false,
    headers: {
      authorization: `Bearer ${actionsKey}`,
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  });
}

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op })),
  );
const countPosts = async () =>
  (await t.container.pool.query('SELECT count(*)::int AS n FROM posts WHERE deleted_at IS NULL')).rows[0].n as number;

describe('the action profile document', () => {
  test('is OpenAPI 3.1 with exactly the operations an assistant needs, served from the public URL', () => {
    assert.equal(doc.openapi, '3.1.0');
    const ids = operations().map(({ op }) => op.operationId as string);
    assert.deepEqual(ids.sort(), Object.keys(ACTION_OPERATIONS).sort());
    assert.deepEqual(
      doc.servers.map((s) => s.url),
      [`${t.config.publicUrl}/v1`],
    );
    assert.equal(doc.webhooks, undefined);
  });

  test('every summary and description is within 300 characters, every parameter description within 700', () => {
    assert.ok(operations().length > 5, 'guard: the document has operations to check');
    for (const { op } of operations()) {
      assert.ok(String(op.summary).length <= ACTION_LIMITS.operationText, `${op.operationId} summary`);
      assert.ok(String(op.description).length <= ACTION_LIMITS.operationText, `${op.operationId} description`);
      assert.ok(String(op.description).length > 0, `${op.operationId} has a description`);
      for (const p of (op.parameters as Json[] | undefined) ?? [])
        assert.ok(String(p.description ?? '').length <= ACTION_LIMITS.parameterText, `${op.operationId} ${p.name}`);
    }
    const descriptions = [...docText.matchAll(/"description":"((?:[^"\\]|\\.)*)"/g)].map((m) =>
      JSON.parse(`"${m[1]}"`),
    );
    for (const d of descriptions) assert.ok(d.length <= ACTION_LIMITS.parameterText, d.slice(0, 80));
  });

  test('the document itself is under the payload limit', () => {
    assert.ok(docText.length < ACTION_LIMITS.payload, `${docText.length} characters`);
  });

  test('no operation takes a header parameter: no Idempotency-Key, no workspace or brand header', () => {
    for (const { op } of operations()) {
      for (const p of (op.parameters as Json[] | undefined) ?? []) {
        assert.notEqual(p.in, 'header', `${op.operationId} ${p.name}`);
        assert.equal(p.$ref, undefined, `${op.operationId}: parameters are inline`);
      }
    }
    assert.equal(doc.components.parameters, undefined);
    assert.doesNotMatch(docText, /idempotency-key"|x-herald-workspace-id/i);
  });

  test('writes are consequential (the user confirms them), reads and the dry run explicitly not', () => {
    for (const { method, op } of operations()) {
      const expected = method !== 'get' && op.operationId !== 'validatePost';
      assert.equal(op['x-openai-isConsequential'], expected, String(op.operationId));
    }
    assert.equal(doc.paths['/posts/{id}/publish']?.post?.['x-openai-isConsequential'], true);
  });

  test('bearer authentication only, and every reference resolves', () => {
    assert.deepEqual(Object.keys(doc.components.securitySchemes), ['apiKey']);
    assert.equal(doc.components.securitySchemes.apiKey!.type, 'http');
    assert.equal(doc.components.securitySchemes.apiKey!.scheme, 'bearer');
    for (const { op } of operations()) assert.deepEqual(op.security, [{ apiKey: [] }]);
    for (const [, name] of docText.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g))
      assert.ok(doc.components.schemas[name!], `${name} is defined`);
  });

  test('the YAML form is the same document', async () => {
    const yaml = await t.inject({ method: 'GET', url: '/v1/openapi/actions' });
    assert.match(String(yaml.headers['content-type']), /yaml/);
    assert.deepEqual(parseYaml(yaml.body), doc);
  });

  test('post and media creation accept the action platform file references, as it names them', () => {
    const refs = JSON.stringify(doc.components.schemas.CreatePostRequest);
    assert.match(refs, /openaiFileIdRefs/);
    assert.match(JSON.stringify(doc.components.schemas), /download_link/);
  });
});

describe('actions keys', () => {
  test('reach exactly one workspace', async () => {
    const other = await t.workspace();
    await assert.rejects(
      createKey(t.container.pool, {
        userId: t.owner.userId,
        name: 'two',
        scopes: ['posts:write'],
        workspaceIds: [t.owner.workspaceId, other.workspaceId],
        expiresAt: null,
        profile: 'actions',
      }),
      KeyInputError,
    );
  });

  test('herald keys create --profile actions makes one, for one workspace only (exit 2 otherwise)', async () => {
    const env = { DATABASE_URL: t.db.connectionString, HERALD_SECRET_KEY: TEST_SECRET };
    const run = async (...argv: string[]) => {
      let out = '';
      let err = '';
      const code = await main(argv, { out: (s) => (out += `${s}\n`), err: (s) => (err += `${s}\n`), env });
      return { code, out, err };
    };
    const base = ['keys', 'create', '--name', 'GPT', '--scopes', 'posts:read,posts:write', '--profile', 'actions'];
    const made = await run(...base, '--workspace', t.owner.workspaceId, '--json');
    assert.equal(made.code, 0, made.err);
    assert.equal(JSON.parse(made.out).profile, 'actions');
    const other = await t.workspace();
    const two = await run(...base, '--workspace', `${t.owner.workspaceId},${other.workspaceId}`);
    assert.equal(two.code, 2);
    assert.match(two.err, /exactly one workspace/);
    const unknown = await run(
      'keys',
      'create',
      '--name',
      'x',
      '--scopes',
      'all',
      '--profile',
      'robot',
      '--workspace',
      t.owner.workspaceId,
    );
    assert.equal(unknown.code, 2);
  });

  test('create a post sending only Authorization; the same call again answers the repeat, not a second post', async () => {
    const body = { content: 'Launch day, from a GPT', platforms: ['x'] };
    const first = await asAction('POST', '/v1/posts', body);
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.json().replayed, undefined);
    const before = await countPosts();
    const again = await asAction('POST', '/v1/posts', body);
    assert.equal(again.statusCode, 201);
    assert.equal(again.json().replayed, true);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.json().data.post_id, first.json().data.post_id);
    assert.equal(await countPosts(), before, 'no second post');
    const different = await asAction('POST', '/v1/posts', { ...body, content: 'Another post' });
    assert.equal(different.statusCode, 201);
    assert.notEqual(different.json().data.post_id, first.json().data.post_id);
    const late = await asAction('POST', '/v1/posts', body);
    assert.equal(late.json().replayed, true, 'a create is still a repeat after another call in between');
    assert.equal(late.json().data.post_id, first.json().data.post_id);
  });

  test('cannot reach another workspace, even when naming it', async () => {
    const other = await t.workspace();
    const named = await t.inject({
      method: 'GET',
      url: '/v1/posts',
      headers: { authorization: `Bearer ${actionsKey}`, 'x-herald-workspace-id': other.workspaceId },
    });
    assert.equal(named.statusCode, 403);
    assert.equal(named.json().error.code, 'PUBLIC_API_WORKSPACE_FORBIDDEN');
  });

  test('only a repeat of the previous write is replayed: an edit undone by another edit is applied again', async () => {
    const created = await asAction('POST', '/v1/posts', { content: 'Draft one', platforms: ['x'] });
    const url = `/v1/posts/${created.json().data.post_id}`;
    for (const content of ['Version A', 'Version B', 'Version A']) {
      const edited = await asAction('PATCH', url, { content });
      assert.equal(edited.statusCode, 200, edited.body);
      assert.equal(edited.json().replayed, undefined, content);
    }
    assert.equal((await asAction('GET', url)).json().data.content, 'Version A');
    const retried = await asAction('PATCH', url, { content: 'Version A' });
    assert.equal(retried.json().replayed, true, 'the retry of the latest write is still caught');
  });

  test('calls at the same time: identical ones make one post, different ones each their own', async () => {
    const before = await countPosts();
    const bodies = [
      ...Array.from({ length: 4 }, () => ({ content: 'Sent four times at once', platforms: ['x'] })),
      ...Array.from({ length: 3 }, (_, i) => ({ content: `Parallel post ${i}`, platforms: ['x'] })),
    ];
    const answers = await Promise.all(bodies.map((body) => asAction('POST', '/v1/posts', body)));
    for (const answer of answers) assert.ok([201, 409].includes(answer.statusCode), answer.body);
    // Each identical call either made the post, replayed it (it had finished), or met it still running (409).
    const made = answers.slice(0, 4).filter((a) => a.statusCode === 201);
    assert.equal(new Set(made.map((a) => a.json().data.post_id)).size, 1);
    assert.ok(answers.slice(4).every((a) => a.statusCode === 201));
    assert.equal(await countPosts(), before + 4);
  });

  test('publish now answers once the post is queued, as `publishing`', async () => {
    const created = await asAction('POST', '/v1/posts', { content: 'Right now', platforms: ['x'], publish_now: true });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().data.post.status, 'publishing');
  });

  test('an idempotency_key in the body stands for the header, for every key', async () => {
    const standard = await t.key();
    const body = { content: 'keyed in the body', platforms: ['x'], idempotency_key: 'body-key-1' };
    const first = await t.inject({ method: 'POST', url: '/v1/posts', key: standard, idem: false, payload: body });
    assert.equal(first.statusCode, 201, first.body);
    const again = await t.inject({ method: 'POST', url: '/v1/posts', key: standard, idem: false, payload: body });
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body, 'an ordinary replay is the first answer byte for byte');
    const clash = await t.inject({ method: 'POST', url: '/v1/posts', key: standard, idem: 'other', payload: body });
    assert.equal(clash.statusCode, 400);
    assert.equal(clash.json().error.details[0].path, '/idempotency_key');
    const bad = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key: standard,
      idem: false,
      payload: { ...body, idempotency_key: 7 },
    });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.code, 'PUBLIC_API_BODY_INVALID');
  });

  test('an ordinary key keeps the header rule', async () => {
    const standard = await t.key();
    const answer = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key: standard,
      idem: false,
      payload: { content: 'no key', platforms: ['x'] },
    });
    assert.equal(answer.statusCode, 400);
    assert.equal(answer.json().error.code, 'PUBLIC_API_IDEMPOTENCY_REQUIRED');
    const cancel = await t.inject({ method: 'POST', url: '/v1/posts/pst_x/cancel', key: standard, idem: false });
    assert.equal(cancel.json().error.code, 'PUBLIC_API_IDEMPOTENCY_REQUIRED');
  });

  test('lists answer smaller pages by default, under the payload limit; an explicit limit is obeyed', async () => {
    for (let i = 0; i < ACTIONS_PAGE_SIZE + 2; i++)
      assert.equal(
        (await asAction('POST', '/v1/posts', { content: `${'long text '.repeat(27)}${i}`, platforms: ['x'] }))
          .statusCode,
        201,
      );
    const page = await asAction('GET', '/v1/posts');
    assert.equal(page.statusCode, 200);
    assert.equal(page.json().data.items.length, ACTIONS_PAGE_SIZE);
    assert.equal(page.json().data.has_more, true);
    assert.ok(page.body.length < ACTION_LIMITS.payload, `${page.body.length} characters`);
    const more = await asAction('GET', '/v1/posts?limit=7');
    assert.equal(more.json().data.items.length, 7);
  });

  test('file references from an allowed host become media by URL attached to the post', async () => {
    const future = new Date(Date.now() + 5 * 60_000).toISOString();
    const ref = {
      name: 'launch.png',
      id: 'file-abc',
      mime_type: 'image/png',
      download_link: `https://127.0.0.1:9/file-abc?se=${encodeURIComponent(future)}&sig=x`,
    };
    const created = await asAction('POST', '/v1/posts', {
      content: 'With a picture',
      platforms: ['x'],
      openaiFileIdRefs: [ref],
    });
    assert.equal(created.statusCode, 201, created.body);
    const [mediaId] = (created.json().data.post.media as Array<{ id: string }>).map((m) => m.id);
    assert.ok(mediaId);
    const media = await asAction('GET', `/v1/media/${mediaId}`);
    assert.equal(media.json().data.status, 'processing');
    assert.equal(media.json().data.filename, 'launch.png');
    // The platform signs a new link for each call: a retry carrying the same file is still the same request.
    const retried = await asAction('POST', '/v1/posts', {
      content: 'With a picture',
      platforms: ['x'],
      openaiFileIdRefs: [{ ...ref, download_link: `${ref.download_link}&retry=1` }],
    });
    assert.equal(retried.json().replayed, true, retried.body);
    assert.equal(retried.json().data.post_id, created.json().data.post_id);

    // The dry run counts the files as the post's media: a platform that needs media finds it there.
    const checked = await asAction('POST', '/v1/posts/validate', {
      content: 'With a picture',
      platforms: ['instagram'],
      openaiFileIdRefs: [ref],
    });
    assert.equal(checked.statusCode, 200, checked.body);
    const rules = (checked.json().data.issues as Array<{ rule: string }>).map((i) => i.rule);
    assert.ok(!rules.includes('media_required'), rules.join(', '));

    const single = await asAction('POST', '/v1/media', { openaiFileIdRefs: [{ ...ref, id: 'file-def' }] });
    assert.equal(single.statusCode, 202, single.body);
    assert.equal(single.json().data.status, 'processing');
  });

  test('file references from another host, or past their validity, are refused with the rule', async () => {
    const past = new Date(Date.now() - 60_000).toISOString();
    const cases = [
      ['https://files.example.com/f', 'file_host_not_allowed'],
      ['http://127.0.0.1:9/f', 'file_link_not_https'],
      [`https://127.0.0.1:9/f?se=${encodeURIComponent(past)}`, 'file_link_expired'],
    ] as const;
    for (const [link, rule] of cases) {
      const ref = { name: 'a.png', id: 'file-1', mime_type: 'image/png', download_link: link };
      const answer = await asAction('POST', '/v1/posts', {
        content: `refused ${rule}`,
        platforms: ['x'],
        openaiFileIdRefs: [ref],
      });
      assert.equal(answer.statusCode, 422, link);
      assert.equal(answer.json().error.details[0].rule, rule);
      const validated = await asAction('POST', '/v1/posts/validate', {
        content: 'x',
        platforms: ['x'],
        openaiFileIdRefs: [ref],
      });
      assert.equal(validated.statusCode, 422, `validate ${link}`);
    }
  });
});

describe('the rules underneath', () => {
  test('a text too long is cut at its last whole sentence that fits, else at a word with an ellipsis', () => {
    assert.equal(shorten('One.  Two\nthree.', 300), 'One. Two three.');
    assert.equal(shorten(`${'a'.repeat(150)}. ${'b'.repeat(200)}.`, 300), `${'a'.repeat(150)}.`);
    const words = shorten('word '.repeat(100), 50);
    assert.ok(words.length <= 50 && words.endsWith('…'), words);
  });

  test('file hosts match exactly, or as subdomains of an entry written with a leading dot', () => {
    const allowed = ['files.oaiusercontent.com', '.example.net'];
    assert.ok(fileHostAllowed('files.oaiusercontent.com', allowed));
    assert.ok(fileHostAllowed('FILES.oaiusercontent.com.', allowed));
    assert.ok(!fileHostAllowed('evil-files.oaiusercontent.com', allowed));
    assert.ok(!fileHostAllowed('files.oaiusercontent.com.evil.io', allowed));
    assert.ok(fileHostAllowed('cdn.example.net', allowed));
    assert.ok(!fileHostAllowed('example.net', allowed));
    assert.ok(!fileHostAllowed('badexample.net', allowed));
  });
});
