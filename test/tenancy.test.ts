// The scope matrix and tenant isolation, driven by the OpenAPI description so that every endpoint added later
// is covered without editing this file: each endpoint refuses a key lacking its scope, and no endpoint lets a
// key reach another tenant's workspace or resources.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SCOPES, type Scope } from '../src/features/keys/scopes.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { onePost, seedPublishedPost } from './helpers/analytics.ts';
import { seedItems } from './helpers/inbox.ts';

interface Operation {
  method: string;
  path: string;
  scopes: string[];
  mutates: boolean;
  hasWorkspace: boolean;
}

let t: TestApp;
let operations: Operation[];

before(async () => {
  t = await buildTestApp({
    env: { HERALD_RATE_LIMIT_WRITE_PER_MIN: '100000', HERALD_RATE_LIMIT_READ_PER_MIN: '100000' },
  });
  const doc = t.app.swagger() as {
    paths: Record<
      string,
      Record<string, { 'x-herald-scopes'?: string[]; parameters?: Array<{ in?: string; $ref?: string }> }>
    >;
    components: { parameters: Record<string, { in: string; name: string }> };
  };
  operations = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!op['x-herald-scopes']) continue; // public
      // Header parameters are shared components (IdempotencyKey, WorkspaceId, BrandId).
      const headers = (op.parameters ?? [])
        .map((p) =>
          p.$ref ? doc.components.parameters[p.$ref.split('/').pop()!]! : (p as { in: string; name: string }),
        )
        .filter((p) => p.in === 'header')
        .map((p) => p.name.toLowerCase());
      operations.push({
        method: method.toUpperCase(),
        path,
        scopes: op['x-herald-scopes'],
        mutates: headers.includes('idempotency-key'),
        hasWorkspace: headers.includes('x-herald-workspace-id'),
      });
    }
  }
});
after(() => t.close());

/** Makes one resource of the kind a path names, in the caller's workspace, and returns its id. */
const factories: Record<string, (key: string, workspaceId: string) => Promise<string>> = {
  '/posts/{id}': async (key, workspaceId) => {
    const res = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      headers: { 'x-herald-workspace-id': workspaceId },
      payload: { content: 'tenant', platforms: ['x'], schedule_at: new Date(Date.now() + 3_600_000).toISOString() },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().data.post_id;
  },
  '/connections/{id}': async (key, workspaceId) => {
    const res = await t.inject({ url: '/v1/connections', key, headers: { 'x-herald-workspace-id': workspaceId } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data.items[0].id;
  },
  '/media/{id}': async (key, workspaceId) => {
    const res = await t.inject({
      method: 'POST',
      url: '/v1/media/upload-url',
      key,
      headers: { 'x-herald-workspace-id': workspaceId },
      payload: { filename: 'tenant.png', content_type: 'image/png' },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().data.media_id;
  },
  '/events/{id}': async (key, workspaceId) => {
    // Creating a post appends its events; the newest is one of them.
    await factories['/posts/{id}']!(key, workspaceId);
    const res = await t.inject({ url: '/v1/events?limit=1', key, headers: { 'x-herald-workspace-id': workspaceId } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data.items[0].id;
  },
  '/brands/{id}': async (key, workspaceId) => {
    const res = await t.inject({
      method: 'POST',
      url: '/v1/brands',
      key,
      headers: { 'x-herald-workspace-id': workspaceId },
      payload: { name: 'Tenant brand' },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().data.id;
  },
  '/analytics/posts/{id}': async (key, workspaceId) => factories['/posts/{id}']!(key, workspaceId),
  '/analytics/insights/{id}': async (key, workspaceId) => {
    // Metrics come from the sync; seeded here: ten posts of one account, one far above the rest (a top post).
    const { rows } = await t.container.pool.query<{ id: string }>(
      'SELECT id FROM brands WHERE workspace_id = $1 AND is_default',
      [workspaceId],
    );
    for (const [i, likes] of [9, 9, 10, 10, 10, 11, 11, 12, 12, 100].entries())
      await seedPublishedPost(
        t.container.pool,
        onePost(
          { workspaceId, brandId: rows[0]!.id },
          'x',
          new Date(Date.now() - (i + 2) * 86_400_000),
          { likes },
          {
            connectionId: 'conn_tenancy',
          },
        ),
      );
    const res = await t.inject({
      method: 'POST',
      url: '/v1/analytics/insights',
      key,
      headers: { 'x-herald-workspace-id': workspaceId },
      payload: { period: '30d' },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data.items[0].id;
  },
  '/webhooks/{id}': async (key, workspaceId) => {
    // An IP literal: a public address needs no DNS, so the SSRF guard lets it through offline.
    const res = await t.inject({
      method: 'POST',
      url: '/v1/webhooks',
      key,
      headers: { 'x-herald-workspace-id': workspaceId },
      payload: { url: 'https://93.184.216.34/hook', events: ['*'] },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().data.id;
  },
};

/** A post held by the other workspace's approval policy (switched on there for this): the item it opened. */
async function heldPostItem(key: string, workspaceId: string): Promise<string> {
  const headers = { 'x-herald-workspace-id': workspaceId };
  const policy = await t.inject({ url: '/v1/approvals/policy', key, headers });
  const version = policy.json().data.version;
  const on = await t.inject({
    method: 'PATCH',
    url: '/v1/approvals/policy',
    key,
    headers,
    payload: { version, mode: 'everyone', allow_self_approval: true },
  });
  assert.equal(on.statusCode, 200, on.body);
  const id = await factories['/posts/{id}']!(key, workspaceId);
  const post = await t.inject({ url: `/v1/posts/${id}`, key, headers });
  return post.json().data.approval.item_id;
}

factories['/approvals/items/{id}'] = heldPostItem;
factories['/repurpose/{id}'] = async (key, workspaceId) => {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/repurpose',
    key,
    headers: { 'x-herald-workspace-id': workspaceId },
    payload: { source: { type: 'text', text: 'Their launch plan.' }, targets: [{ platform: 'x', format: 'post' }] },
  });
  assert.equal(res.statusCode, 202, res.body);
  return res.json().data.id;
};
factories['/posts/bulk/{id}'] = async (key, workspaceId) => {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts/bulk',
    key,
    headers: { 'x-herald-workspace-id': workspaceId },
    payload: { rows: [{ content: 'Their import', platforms: ['x'] }] },
  });
  assert.equal(res.statusCode, 202, res.body);
  return res.json().data.id;
};
// A calendar event of theirs is their post; a feed of theirs, made with their key.
factories['/calendar/events/{id}'] = async (key, workspaceId) => factories['/posts/{id}']!(key, workspaceId);
factories['/calendar/feeds/{id}'] = async (key, workspaceId) => {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/calendar/feeds',
    key,
    headers: { 'x-herald-workspace-id': workspaceId },
    payload: { name: 'Their plan' },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.feed.id;
};
// An automation of theirs, made with their key (a library posted daily to X).
factories['/automations/{id}'] = async (key, workspaceId) => {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/automations',
    key,
    headers: { 'x-herald-workspace-id': workspaceId },
    payload: {
      name: 'Their tips',
      source: { type: 'schedule', rrule: 'FREQ=DAILY', timezone: 'UTC' },
      generator: { type: 'library', items: ['Their tip.'] },
      destinations: [{ platform: 'x' }],
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.id;
};
// A queue of theirs, made with their key (one weekly slot).
factories['/queues/{id}'] = async (key, workspaceId) => {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/queues',
    key,
    headers: { 'x-herald-workspace-id': workspaceId },
    payload: { name: 'Their queue', slots: [{ day_of_week: 1, time: '09:00', timezone: 'UTC' }] },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.id;
};
factories['/approvals/batches/{id}'] = async (key, workspaceId) => {
  const { openBatch } = await import('../src/features/approvals/approvals.submit.ts');
  const batch = await openBatch(
    {
      db: t.container.pool,
      workspaceId,
      workspaceMode: 'test',
      brandId: null,
      brandFromHeader: false,
      allowedBrandIds: null,
      userId: t.owner.userId,
      via: 'automation',
    },
    { type: 'automation', id: null },
  );
  return batch.id;
};

// The dashboard's keys, members and invites (docs/api.md "Sessions"): made in the other workspace by its own key.
factories['/keys/{id}'] = async (key, workspaceId) => {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/keys',
    key,
    headers: { 'x-herald-workspace-id': workspaceId },
    payload: { name: 'tenant key', scopes: ['posts:read'] },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.id;
};
factories['/invites/{id}'] = async (key, workspaceId) => {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/invites',
    key,
    headers: { 'x-herald-workspace-id': workspaceId },
    payload: { email: `tenant-${Date.now()}-${Math.random()}@example.com`, role: 'member' },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.id;
};
factories['/members/{id}'] = async (key, workspaceId) => {
  const made = await t.inject({
    method: 'POST',
    url: '/v1/invites',
    key,
    headers: { 'x-herald-workspace-id': workspaceId },
    payload: { email: `member-${Date.now()}@example.com`, role: 'member' },
  });
  assert.equal(made.statusCode, 201, made.body);
  const token = String(made.json().data.url).split('/app/invite/')[1];
  const accepted = await t.inject({
    method: 'POST',
    url: `/app/api/invites/${token}/accept`,
    payload: { password: 'a tenant member password' },
  });
  assert.equal(accepted.statusCode, 200, accepted.body);
  return accepted.json().data.user.id;
};

// An inbox item of theirs (as ingestion writes it) on their own connection, and an inbox automation of theirs.
factories['/inbox/{id}'] = async (key, workspaceId) => {
  const connectionId = await factories['/connections/{id}']!(key, workspaceId);
  const { rows } = await t.container.pool.query<{ platform: string; brand_id: string | null }>(
    'SELECT platform, brand_id FROM connections WHERE id = $1',
    [connectionId],
  );
  const [item] = await seedItems(t, [
    { workspaceId, connectionId, platform: rows[0]!.platform, brandId: rows[0]!.brand_id },
  ]);
  return item!.id;
};
factories['/inbox/automations/{id}'] = async (key, workspaceId) => {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/inbox/automations',
    key,
    headers: { 'x-herald-workspace-id': workspaceId },
    payload: {
      name: 'Their prices',
      trigger: { type: 'keyword', keywords: ['price'] },
      actions: [{ type: 'reply_public', template: 'Hi {{author}}, see our prices.' }],
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.id;
};

/** A valid body per action route (the id check must be what answers, not the body's schema). */
const actionBodies: Record<string, object> = {
  '/approvals/items/{id}/actions': { action: 'approve', version: 1 },
  '/approvals/batches/{id}/actions': { action: 'approve_all', expected_item_ids: ['apr_x'] },
  'POST /posts/{id}/recycle': { every_days: 1, times: 1 },
};

/** A valid PATCH body per resource (the id check must be what answers, not the body's schema). */
const patchBodies: Record<string, object> = {
  '/analytics/insights/{id}': { status: 'viewed' },
  '/webhooks/{id}': { enabled: false },
  '/media/{id}': { metadata: { hijack: 'yes' } },
  '/brands/{id}': { version: 1, name: 'hijack' },
  '/members/{id}': { role: 'owner' },
  '/calendar/events/{id}': { starts_at: new Date(Date.now() + 7_200_000).toISOString() },
  '/automations/{id}': { name: 'hijack' },
  '/queues/{id}': { name: 'hijack' },
  '/inbox/{id}': { status: 'resolved' },
  '/inbox/automations/{id}': { name: 'hijack' },
};

function resourcePrefix(path: string): string | undefined {
  const match = /^(\/[^{}]+\/\{id\})/.exec(path);
  return match?.[1];
}

function fill(path: string, id: string): string {
  return `/v1${path.replace('{id}', id).replace(/\{[a-z_]+\}/g, 'unknown_0')}`;
}

describe('scope matrix', () => {
  test('every endpoint refuses a key that lacks its scope with 403 PUBLIC_API_SCOPE_FORBIDDEN', async () => {
    let checked = 0;
    for (const op of operations) {
      if (op.scopes.length === 0) continue; // any key
      const key = await t.key({ scopes: SCOPES.filter((s) => !op.scopes.includes(s)) as Scope[] });
      const res = await t.inject({
        method: op.method as 'GET',
        url: fill(op.path, 'anything'),
        key,
        payload: op.method === 'GET' ? undefined : {},
      });
      assert.equal(res.statusCode, 403, `${op.method} ${op.path}: ${res.body}`);
      assert.equal(res.json().error.code, 'PUBLIC_API_SCOPE_FORBIDDEN');
      for (const scope of op.scopes) assert.match(res.json().error.message, new RegExp(scope));
      checked++;
    }
    assert.ok(checked >= 7, `checked ${checked} endpoints`);
    console.log(`# scope matrix: ${checked} endpoints × a key without their scope`);
  });

  test('a key with only the needed scope passes the scope check on every endpoint', async () => {
    let checked = 0;
    for (const op of operations) {
      if (op.scopes.length === 0) continue;
      checked++;
      const key = await t.key({ scopes: [op.scopes[0] as Scope] });
      const res = await t.inject({
        method: op.method as 'GET',
        url: fill(op.path, 'missing'),
        key,
        payload: op.method === 'GET' ? undefined : {},
      });
      // A file download (the analytics CSV export) answers its own format once the scope check is passed.
      const json = String(res.headers['content-type']).startsWith('application/json');
      assert.notEqual(
        json ? res.json().error?.code : undefined,
        'PUBLIC_API_SCOPE_FORBIDDEN',
        `${op.method} ${op.path}`,
      );
    }
    // Guards against passing on an empty list (an OpenAPI document that lost its scopes would check nothing).
    assert.ok(checked >= 7, `checked ${checked} endpoints`);
  });
});

describe('tenant isolation', () => {
  test("another tenant's workspace is unreachable on every workspace endpoint (403, one answer)", async () => {
    const { rows } = await t.container.pool.query<{ id: string }>(
      `INSERT INTO users (id, email) VALUES ('user_other', 'other@test.local') RETURNING id`,
    );
    const theirs = await t.workspace('test', rows[0]!.id);
    const mine = await t.key();
    const workspaceOps = operations.filter((o) => o.hasWorkspace);
    assert.ok(workspaceOps.length >= 7, `only ${workspaceOps.length} workspace endpoints found in the OpenAPI`);
    for (const op of workspaceOps) {
      const res = await t.inject({
        method: op.method as 'GET',
        url: fill(op.path, 'x'),
        key: mine,
        headers: { 'x-herald-workspace-id': theirs.workspaceId },
        payload: op.method === 'GET' ? undefined : {},
      });
      assert.equal(res.statusCode, 403, `${op.method} ${op.path}`);
      assert.equal(res.json().error.code, 'PUBLIC_API_WORKSPACE_FORBIDDEN');
    }
  });

  test("another workspace's resource ids answer 404 on every endpoint that takes an id, and leak nothing", async () => {
    const other = await t.workspace('test');
    const theirKey = await t.key({ workspaceIds: [other.workspaceId] });
    const myKey = await t.key();
    const byPrefix = new Map<string, string>();
    let checked = 0;
    for (const op of operations.filter((o) => o.path.includes('{id}'))) {
      const prefix = resourcePrefix(op.path)!;
      const factory = factories[prefix];
      assert.ok(factory, `add a factory for ${prefix} in test/tenancy.test.ts so its isolation is tested`);
      if (!byPrefix.has(prefix)) byPrefix.set(prefix, await factory(theirKey, other.workspaceId));
      const id = byPrefix.get(prefix)!;
      const res = await t.inject({
        method: op.method as 'GET',
        url: fill(op.path, id),
        key: myKey,
        payload:
          op.method === 'GET'
            ? undefined
            : op.method === 'PATCH'
              ? (patchBodies[prefix] ?? { content: 'hijack' })
              : (actionBodies[`${op.method} ${op.path}`] ?? actionBodies[op.path] ?? {}),
      });
      assert.equal(res.statusCode, 404, `${op.method} ${op.path}: ${res.body}`);
      assert.equal(res.json().error.code, 'PUBLIC_API_NOT_FOUND');
      assert.doesNotMatch(res.body, new RegExp(other.workspaceId), 'no trace of the other workspace');
      checked++;
      // The owner still sees it unchanged.
      const own = await t.inject({ url: `/v1${prefix.replace('{id}', id)}`, key: theirKey });
      assert.equal(own.statusCode, 200);
    }
    assert.ok(checked >= 4);
    const list = await t.inject({ url: '/v1/posts?limit=100', key: myKey });
    assert.ok(!list.body.includes(other.workspaceId), "lists never include another workspace's items");
  });

  test('a key limited to one workspace cannot act in another of the same user', async () => {
    const second = await t.workspace('test');
    const limited = await t.key({ workspaceIds: [t.owner.workspaceId] });
    const res = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key: limited,
      headers: { 'x-herald-workspace-id': second.workspaceId },
      payload: { content: 'x', platforms: ['x'] },
    });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'PUBLIC_API_WORKSPACE_FORBIDDEN');
  });

  test("a key limited to brands sees only those brands' posts", async () => {
    const { createBrand } = await import('../src/features/workspaces/workspaces.service.ts');
    const brand = await createBrand(t.container.pool, t.owner.workspaceId, 'Second brand');
    const full = await t.key();
    await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key: full,
      headers: { 'x-herald-brand-id': brand.id },
      payload: { content: 'brand two', platforms: ['x'] },
    });
    const hidden = (
      await t.inject({
        method: 'POST',
        url: '/v1/posts',
        key: full,
        payload: { content: 'default brand', platforms: ['x'] },
      })
    ).json().data.post_id;
    const limited = await t.key({ brandIds: [brand.id] });
    const items = (await t.inject({ url: '/v1/posts?limit=100', key: limited })).json().data.items as Array<{
      brand_id: string;
    }>;
    assert.ok(items.length > 0 && items.every((p) => p.brand_id === brand.id));
    assert.equal((await t.inject({ url: `/v1/posts/${hidden}`, key: limited })).statusCode, 404);
  });
});
