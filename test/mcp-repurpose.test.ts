// Repurpose over MCP: repurpose_content starts the same job as POST /v1/repurpose (repurpose:write), and
// get_repurpose_job reads it as GET /v1/repurpose/{id} does (repurpose:read), outputs and posts included.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { taskList } from '../src/jobs/worker.ts';
import { listenTestApp, type ListeningApp } from './helpers/oauth.ts';

let t: ListeningApp;

before(async () => {
  t = await listenTestApp({});
});
after(() => t.close());

async function client(key: string): Promise<Client> {
  const c = new Client({ name: 'herald-test', version: '1.0.0' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return c;
}

test('repurpose_content queues a job; get_repurpose_job reads its outputs as REST does', async () => {
  const key = await t.key({ scopes: ['repurpose:read', 'repurpose:write'] });
  const c = await client(key);
  const started = await c.callTool({
    name: 'repurpose_content',
    arguments: {
      source: {
        type: 'text',
        text: 'Our office moves to the harbour in May. The new space has room for twice the team. Visitors are welcome on Fridays.',
      },
      targets: [{ platform: 'linkedin', format: 'post' }],
      idempotency_key: 'mcp-repurpose-1',
    },
  });
  assert.equal(started.isError, undefined, JSON.stringify(started.structuredContent));
  const job = started.structuredContent as { id: string; status: string };
  assert.equal(job.status, 'queued');

  const run = taskList(t.container).repurpose as (payload: unknown, helpers: unknown) => Promise<void>;
  await run({ workspace_id: t.owner.workspaceId, job_id: job.id }, { job: { attempts: 1, max_attempts: 3 } });

  const got = await c.callTool({ name: 'get_repurpose_job', arguments: { repurpose_job_id: job.id } });
  assert.equal(got.isError, undefined);
  const rest = (await t.inject({ url: `/v1/repurpose/${job.id}`, key })).json().data;
  assert.deepEqual(got.structuredContent, rest);
  assert.equal(rest.status, 'completed');
  assert.match((got.content as Array<{ text: string }>)[0]!.text, /linkedin post \(1 part\) → post post_/);

  const readOnly = await client(await t.key({ scopes: ['repurpose:read'] }));
  await assert.rejects(
    readOnly.callTool({
      name: 'repurpose_content',
      arguments: { source: { type: 'text', text: 'Hello.' }, targets: [{ platform: 'x', format: 'post' }] },
    }),
    /PUBLIC_API_SCOPE_FORBIDDEN/,
  );
  await c.close();
  await readOnly.close();
});
