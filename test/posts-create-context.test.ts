// A new post's look-ups in one statement (docs/decisions.md "A new post's look-ups in one statement"): what
// readCreateContext returns must be what each feature's own read returns, field for field and type for type, so the
// connection resolution, the brand check and the approval gate cannot tell which read they were handed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { readCreateContext } from '../src/features/posts/posts.context.repo.ts';
import { findDefaults } from '../src/features/connections/connections.repo.ts';
import { findBrandForPosts } from '../src/features/brands/brands.repo.ts';
import { findPolicy, savePolicy } from '../src/features/approvals/approvals.repo.ts';
import { DEFAULT_POLICY } from '../src/features/approvals/approvals.policy.ts';

let t: TestApp;

before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

test('the default connections, the brand and the policy are what their own reads return', async () => {
  const { workspaceId, brandId } = t.owner;
  const db = t.container.pool;
  const platforms = ['mastodon', 'x'] as const;
  await db.query('UPDATE brands SET banned_terms = $3, rules = $4 WHERE workspace_id = $1 AND id = $2', [
    workspaceId,
    brandId,
    ['forbidden'],
    { max_hashtags: 2 },
  ]);
  await db.query("UPDATE connections SET token_expires_at = now() + interval '1 day' WHERE workspace_id = $1", [
    workspaceId,
  ]);
  const context = await readCreateContext(db, workspaceId, brandId, [...platforms]);
  const byId = (rows: Array<{ id: string }>) => [...rows].sort((a, b) => a.id.localeCompare(b.id));
  assert.deepEqual(byId(context.defaults), byId(await findDefaults(db, workspaceId, brandId, [...platforms])));
  assert.equal(context.defaults.length, 2);
  assert.ok(context.defaults.every((c) => c.token_expires_at instanceof Date && c.created_at instanceof Date));
  assert.deepEqual(context.brand, await findBrandForPosts(db, workspaceId, brandId));
  assert.deepEqual(context.brand?.banned_terms, ['forbidden']);
  assert.deepEqual(context.policy, DEFAULT_POLICY);

  const saved = await savePolicy(db, workspaceId, 0, {
    ...DEFAULT_POLICY,
    mode: 'everyone',
    expire_after: 3600,
    brand_overrides: { [brandId]: { mode: 'members' } },
  });
  assert.ok(saved);
  const withPolicy = await readCreateContext(db, workspaceId, brandId, [...platforms]);
  assert.deepEqual(withPolicy.policy, await findPolicy(db, workspaceId));
  assert.ok(withPolicy.policy.updated_at instanceof Date);
});

test('no default connection for the platforms, and a brand that is not there', async () => {
  const { workspaceId, brandId } = t.owner;
  const db = t.container.pool;
  await db.query(
    "UPDATE connections SET is_default = false WHERE workspace_id = $1 AND brand_id = $2 AND platform = 'bluesky'",
    [workspaceId, brandId],
  );
  const none = await readCreateContext(db, workspaceId, brandId, ['bluesky']);
  assert.deepEqual(none.defaults, []);
  assert.equal(none.brand?.id, brandId);

  const gone = await readCreateContext(db, workspaceId, 'brand_00000000000000000000000000', ['mastodon']);
  assert.equal(gone.brand, undefined);
  assert.deepEqual(gone.defaults, []);
});
