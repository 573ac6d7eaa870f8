// Attack class: JSON-RPC batches against /mcp. A batch carries many tools/call in one HTTP request; each call
// must spend its own unit of the key's budgets (writes from the write budget), so a batch never does more than
// the budgets allow: the calls past the budget get the rate-limit error and do nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from '../helpers/app.ts';

const WRITES = 3;
const READS = 5;

let t: TestApp;

before(async () => {
  t = await buildTestApp({
    env: { HERALD_RATE_LIMIT_WRITE_PER_MIN: String(WRITES), HERALD_RATE_LIMIT_READ_PER_MIN: String(READS) },
  });
});
after(() => t.close());

type RpcResponse = {
  id: number;
  result?: { isError?: boolean; structuredContent?: Record<string, unknown> };
  error?: { code: number; message: string; data?: { code?: string } };
};

async function batch(key: string, messages: unknown[]) {
  return t.app.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    payload: messages,
  });
}

const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

async function postCount(): Promise<number> {
  const { rows } = await t.container.pool.query<{ n: string }>(
    'SELECT count(*) AS n FROM posts WHERE workspace_id = $1',
    [t.owner.workspaceId],
  );
  return Number(rows[0]!.n);
}

/** A batch answer: either refused as a whole, or one response per call, each a success or the rate-limit error. */
function outcomes(res: Awaited<ReturnType<typeof batch>>, n: number): { ok: number; limited: number } | 'refused' {
  if (res.statusCode >= 400) return 'refused';
  const body = res.json() as RpcResponse[];
  assert.ok(Array.isArray(body), res.body);
  assert.equal(body.length, n);
  let ok = 0;
  let limited = 0;
  for (const r of body) {
    if (r.result && !r.result.isError) ok++;
    else if (r.error?.data?.code === 'PUBLIC_API_RATE_LIMITED') limited++;
    else assert.fail(`unexpected answer: ${JSON.stringify(r)}`);
  }
  return { ok, limited };
}

describe('JSON-RPC batches at /mcp spend one budget unit per call', () => {
  test('a batch of 20 create_post creates no more posts than the write budget allows', async () => {
    const key = await t.key();
    const before = await postCount();
    const n = 20;
    const res = await batch(
      key,
      Array.from({ length: n }, (_, i) => call(i + 1, 'create_post', { content: `batch ${i}`, platforms: ['x'] })),
    );
    const result = outcomes(res, n);
    const created = (await postCount()) - before;
    if (result === 'refused') assert.equal(created, 0);
    else {
      assert.deepEqual(result, { ok: WRITES, limited: n - WRITES });
      assert.equal(created, WRITES);
    }
    // The write budget is spent: the same key's next REST write is refused too.
    const rest = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: { content: 'after', platforms: ['x'] },
    });
    assert.equal(rest.statusCode, result === 'refused' ? 201 : 429, rest.body);
  });

  test('a batch of 100 list_posts runs no more reads than the read budget allows', async () => {
    const key = await t.key();
    const n = 100;
    const res = await batch(
      key,
      Array.from({ length: n }, (_, i) => call(i + 1, 'list_posts', {})),
    );
    const result = outcomes(res, n);
    if (result !== 'refused') assert.deepEqual(result, { ok: READS, limited: n - READS });
  });

  test('a mixed batch spends writes from the write budget and reads from the read budget', async () => {
    const key = await t.key();
    const before = await postCount();
    const messages = Array.from({ length: 40 }, (_, i) =>
      i % 2 === 0
        ? call(i + 1, 'create_post', { content: `mixed ${i}`, platforms: ['x'] })
        : call(i + 1, 'list_posts', {}),
    );
    const res = await batch(key, messages);
    const result = outcomes(res, messages.length);
    const created = (await postCount()) - before;
    if (result === 'refused') assert.equal(created, 0);
    else {
      assert.deepEqual(result, { ok: WRITES + READS, limited: messages.length - WRITES - READS });
      assert.equal(created, WRITES);
    }
  });
});
