// Keys, members and invites over HTTP (docs/api.md "Keys", "Members and invites"): a key's secret is shown once,
// revocation is immediate, a key never holds more than its maker, invites are single-use links that expire, and
// owners stay in charge of owners.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_SCOPES, parseScopes } from '../src/features/keys/scopes.ts';
import { OAUTH_SCOPES, parseScopeParam } from '../src/features/oauth/scope-param.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { createPerson } from './helpers/oauth.ts';
import { signInSession, type Session } from './helpers/dashboard.ts';

let t: TestApp;
let owner: Session;
const ownerLogin = { email: 'olga@example.com', password: 'olga has a good password' };

before(async () => {
  t = await buildTestApp();
  await createPerson(t, ownerLogin.email, ownerLogin.password, [{ workspaceId: t.owner.workspaceId, role: 'owner' }]);
  owner = await signInSession(t, ownerLogin.email, ownerLogin.password);
});
after(() => t.close());

describe('the administrative scopes', () => {
  test('`all` never includes keys:manage or members:manage', () => {
    const all = parseScopes('all');
    assert.ok('scopes' in all);
    for (const s of ['keys:manage', 'members:manage']) {
      assert.ok(!all.scopes.includes(s as never));
      assert.ok(!ALL_SCOPES.includes(s as never));
    }
  });

  test('GET /v1/scopes lists every scope with its sentence, area and whether `all` has it', async () => {
    const res = await t.app.inject({ url: '/v1/scopes' });
    assert.equal(res.statusCode, 200);
    const keys = res.json().data.items.find((s: { name: string }) => s.name === 'keys:manage');
    assert.equal(keys.area, 'keys');
    assert.equal(keys.in_all, false);
    assert.ok(keys.description.length > 10);
  });

  test('OAuth never offers or grants them: refused in a scope parameter, absent from scopes_supported', async () => {
    for (const s of ['keys:manage', 'members:manage']) {
      assert.deepEqual(parseScopeParam(`posts:read ${s}`), { unknown: [s] });
      assert.ok(!OAUTH_SCOPES.includes(s as never));
    }
    assert.deepEqual(parseScopeParam('posts:read offline_access'), { scopes: ['posts:read'] });
    const meta = await t.app.inject({ url: '/.well-known/oauth-authorization-server' });
    assert.equal(meta.statusCode, 200);
    const supported: string[] = meta.json().scopes_supported;
    assert.ok(supported.includes('posts:read'));
    assert.ok(!supported.includes('keys:manage') && !supported.includes('members:manage'));
  });
});

describe('keys over HTTP', () => {
  test('a new key is shown once: its secret in the create answer, never in a list or a read; it works', async () => {
    const made = await owner.call({
      method: 'POST',
      url: '/v1/keys',
      payload: { name: 'Zapier', scopes: ['posts:read'], workspace_ids: [t.owner.workspaceId] },
    });
    assert.equal(made.statusCode, 201, made.body);
    const key = made.json().data;
    assert.match(key.secret, /^hk_test_/);
    assert.equal(key.secret.slice(-4), key.last_four);
    assert.equal(key.created_by, owner.userId);
    const list = await owner.call({ url: '/v1/keys' });
    assert.equal(list.statusCode, 200);
    assert.ok(list.json().data.items.some((k: { id: string }) => k.id === key.id));
    assert.ok(!list.body.includes(key.secret), 'the list never shows the secret');
    const one = await owner.call({ url: `/v1/keys/${key.id}` });
    assert.ok(!one.body.includes(key.secret));
    assert.ok(!('secret' in one.json().data));
    const used = await t.inject({ url: '/v1/posts', key: key.secret });
    assert.equal(used.statusCode, 200);
    // The stored idempotent answer (which holds the secret) is encrypted at rest.
    const { rows } = await t.container.pool.query<{ stored: string }>(
      'SELECT row_to_json(i)::text AS stored FROM idempotency_keys i',
    );
    assert.ok(rows.every((r) => !r.stored.includes(key.secret)));
  });

  test('revoking takes effect at once: the next call with the key is 401', async () => {
    const manager = await t.key({ scopes: ['keys:manage', 'posts:read'] });
    const made = await t.inject({
      method: 'POST',
      url: '/v1/keys',
      key: manager,
      payload: { name: 'r', scopes: ['posts:read'] },
    });
    assert.equal(made.statusCode, 201, made.body);
    const { id, secret } = made.json().data;
    assert.equal((await t.inject({ url: '/v1/posts', key: secret })).statusCode, 200);
    const revoked = await t.inject({ method: 'DELETE', url: `/v1/keys/${id}`, key: manager });
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.ok(revoked.json().data.revoked_at);
    const refused = await t.inject({ url: '/v1/posts', key: secret });
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.json().error.code, 'PUBLIC_API_KEY_INVALID');
    const list = await t.inject({ url: '/v1/keys', key: manager });
    assert.ok(!list.json().data.items.some((k: { id: string }) => k.id === id));
  });

  test('a key never grants more than its maker holds', async () => {
    const expires = new Date(Date.now() + 86_400_000);
    const manager = await t.key({ scopes: ['keys:manage', 'posts:read'], expiresAt: expires });
    const more = await t.inject({
      method: 'POST',
      url: '/v1/keys',
      key: manager,
      payload: { name: 'more', scopes: ['posts:read', 'posts:write'] },
    });
    assert.equal(more.statusCode, 403);
    assert.equal(more.json().error.code, 'PUBLIC_API_SCOPE_FORBIDDEN');
    assert.match(more.json().error.message, /posts:write/);
    const other = await t.workspace('test');
    const elsewhere = await t.inject({
      method: 'POST',
      url: '/v1/keys',
      key: manager,
      payload: { name: 'elsewhere', scopes: ['posts:read'], workspace_ids: [other.workspaceId] },
    });
    assert.equal(elsewhere.statusCode, 403);
    assert.equal(elsewhere.json().error.code, 'PUBLIC_API_WORKSPACE_FORBIDDEN');
    const longer = await t.inject({
      method: 'POST',
      url: '/v1/keys',
      key: manager,
      payload: {
        name: 'longer',
        scopes: ['posts:read'],
        expires_at: new Date(Date.now() + 10 * 86_400_000).toISOString(),
      },
    });
    assert.equal(longer.statusCode, 422);
    assert.equal(longer.json().error.details[0].rule, 'after_maker_expiry');
    const inherits = await t.inject({
      method: 'POST',
      url: '/v1/keys',
      key: manager,
      payload: { name: 'inherits', scopes: ['posts:read'] },
    });
    assert.equal(inherits.statusCode, 201, inherits.body);
    assert.equal(inherits.json().data.expires_at, expires.toISOString());
    assert.deepEqual(inherits.json().data.workspace_ids, [t.owner.workspaceId]);
  });

  test("an admin's session cannot hand out what the role forbids elsewhere; a member cannot manage keys at all", async () => {
    const login = { email: 'ada@example.com', password: 'ada has a good password' };
    const second = await t.workspace('test');
    await createPerson(t, login.email, login.password, [
      { workspaceId: t.owner.workspaceId, role: 'admin' },
      { workspaceId: second.workspaceId, role: 'member' },
    ]);
    const ada = await signInSession(t, login.email, login.password);
    const everywhere = await ada.call({
      method: 'POST',
      url: '/v1/keys',
      headers: { 'x-herald-workspace-id': t.owner.workspaceId },
      payload: { name: 'wide', scopes: ['webhooks:manage'] },
    });
    assert.equal(everywhere.statusCode, 403, everywhere.body);
    assert.match(everywhere.json().error.message, /member of workspace/);
    const here = await ada.call({
      method: 'POST',
      url: '/v1/keys',
      headers: { 'x-herald-workspace-id': t.owner.workspaceId },
      payload: { name: 'here', scopes: ['webhooks:manage'], workspace_ids: [t.owner.workspaceId] },
    });
    assert.equal(here.statusCode, 201, here.body);
    const asMember = await ada.call({ url: '/v1/keys', headers: { 'x-herald-workspace-id': second.workspaceId } });
    assert.equal(asMember.statusCode, 403);
  });

  test('keys issued through OAuth show the assistant by name', async () => {
    const { rows } = await t.container.pool.query<{ id: string }>(
      `INSERT INTO oauth_clients (id, kind, name, redirect_uris, grant_types, token_endpoint_auth_method, metadata)
       VALUES ('client_claude', 'dcr', 'Claude', '{https://claude.ai/cb}', '{authorization_code}', 'none', '{}') RETURNING id`,
    );
    const grant = await t.container.pool.query<{ id: string }>(
      `INSERT INTO oauth_grants (id, client_id, user_id, workspace_id, scopes, resource, expires_at)
       VALUES ('grant_claude', $1, $2, $3, '{posts:read}', 'http://herald.test/mcp', now() + interval '1 day') RETURNING id`,
      [rows[0]!.id, owner.userId, t.owner.workspaceId],
    );
    const { createKey } = await import('../src/features/keys/keys.service.ts');
    await createKey(t.container.pool, {
      userId: owner.userId,
      name: 'OAuth',
      scopes: ['posts:read'],
      workspaceIds: [t.owner.workspaceId],
      expiresAt: null,
      grantId: grant.rows[0]!.id,
    });
    const list = (await owner.call({ url: '/v1/keys?limit=100' })).json().data.items as Array<{
      oauth_client: { name: string } | null;
    }>;
    assert.ok(list.some((k) => k.oauth_client?.name === 'Claude'));
  });
});

describe('members and invites', () => {
  async function invite(email: string, role = 'member') {
    const res = await owner.call({ method: 'POST', url: '/v1/invites', payload: { email, role } });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().data as { id: string; url: string; status: string; email_delivery: unknown };
  }
  const tokenOf = (url: string) => url.split('/app/invite/')[1]!;

  test('an invite link signs a new person up once, as a member; a second use is 410', async () => {
    const made = await invite('newbie@example.com');
    assert.equal(made.status, 'pending');
    assert.match(made.url, /^http:\/\/herald\.test\/app\/invite\//);
    assert.deepEqual(made.email_delivery, { status: 'not_configured', error: null }, 'no SMTP here: nothing sent');
    const token = tokenOf(made.url);
    const info = await t.app.inject({ url: `/app/api/invites/${token}` });
    assert.equal(info.json().data.has_account, false);
    const accept = await t.app.inject({
      method: 'POST',
      url: `/app/api/invites/${token}/accept`,
      payload: { name: 'Newbie', password: 'a good long password' },
    });
    assert.equal(accept.statusCode, 200, accept.body);
    assert.equal(accept.json().data.user.name, 'Newbie');
    assert.ok(accept.cookies.some((c) => c.name === 'herald_session'));
    const again = await t.app.inject({
      method: 'POST',
      url: `/app/api/invites/${token}/accept`,
      payload: { password: 'a good long password' },
    });
    assert.equal(again.statusCode, 410);
    assert.equal(again.json().error.code, 'PUBLIC_API_INVITE_INVALID');
    const members = (await owner.call({ url: '/v1/members?limit=100' })).json().data.items as Array<{
      user: { email: string };
      role: string;
    }>;
    assert.equal(members.find((m) => m.user.email === 'newbie@example.com')?.role, 'member');
    const listed = (await owner.call({ url: '/v1/invites' })).json().data.items as Array<{
      id: string;
      status: string;
      url?: string;
    }>;
    const row = listed.find((i) => i.id === made.id)!;
    assert.equal(row.status, 'accepted');
    assert.equal(row.url, undefined, 'the link is shown only when made');
  });

  test('an email that has an account joins with its own password; a wrong one leaves the invite usable', async () => {
    const elsewhere = await t.workspace('test');
    await createPerson(t, 'existing@example.com', 'the existing password', [{ workspaceId: elsewhere.workspaceId }]);
    const token = tokenOf((await invite('existing@example.com')).url);
    assert.equal((await t.app.inject({ url: `/app/api/invites/${token}` })).json().data.has_account, true);
    const wrong = await t.app.inject({
      method: 'POST',
      url: `/app/api/invites/${token}/accept`,
      payload: { password: 'a guess at the password' },
    });
    assert.equal(wrong.statusCode, 401, wrong.body);
    assert.equal(wrong.json().error.code, 'PUBLIC_API_CREDENTIALS_INVALID');
    const right = await t.app.inject({
      method: 'POST',
      url: `/app/api/invites/${token}/accept`,
      payload: { password: 'the existing password' },
    });
    assert.equal(right.statusCode, 200, right.body);
    assert.equal(right.json().data.user.email, 'existing@example.com');
  });

  test('an expired or cancelled invite is 410', async () => {
    const expired = await invite('late@example.com');
    await t.container.pool.query(
      `UPDATE workspace_invites SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [expired.id],
    );
    const late = await t.app.inject({
      method: 'POST',
      url: `/app/api/invites/${tokenOf(expired.url)}/accept`,
      payload: { password: 'a good long password' },
    });
    assert.equal(late.statusCode, 410);
    const cancelled = await invite('never@example.com');
    assert.equal((await owner.call({ method: 'DELETE', url: `/v1/invites/${cancelled.id}` })).statusCode, 200);
    const gone = await t.app.inject({ url: `/app/api/invites/${tokenOf(cancelled.url)}` });
    assert.equal(gone.statusCode, 410);
  });

  test('roles: an admin cannot touch owners, the last owner stays, removal ends access at once', async () => {
    const made = await invite('adm@example.com', 'admin');
    await t.app.inject({
      method: 'POST',
      url: `/app/api/invites/${tokenOf(made.url)}/accept`,
      payload: { password: 'adm has a long password' },
    });
    const adm = await signInSession(t, 'adm@example.com', 'adm has a long password');
    const promote = await adm.call({ method: 'PATCH', url: `/v1/members/${adm.userId}`, payload: { role: 'owner' } });
    assert.equal(promote.statusCode, 403);
    const ownerInvite = await adm.call({
      method: 'POST',
      url: '/v1/invites',
      payload: { email: 'o@example.com', role: 'owner' },
    });
    assert.equal(ownerInvite.statusCode, 403);
    // The workspace's owners are the bootstrap owner and olga: demote one, then the last one is kept.
    const first = await owner.call({
      method: 'PATCH',
      url: `/v1/members/${t.owner.userId}`,
      payload: { role: 'admin' },
    });
    assert.equal(first.statusCode, 200, first.body);
    const last = await owner.call({ method: 'PATCH', url: `/v1/members/${owner.userId}`, payload: { role: 'admin' } });
    assert.equal(last.statusCode, 409);
    assert.equal(last.json().error.code, 'PUBLIC_API_STATE_CONFLICT');
    await owner.call({ method: 'PATCH', url: `/v1/members/${t.owner.userId}`, payload: { role: 'owner' } });
    const removed = await owner.call({ method: 'DELETE', url: `/v1/members/${adm.userId}` });
    assert.equal(removed.statusCode, 200, removed.body);
    const after = await adm.call({ url: '/v1/posts', headers: { 'x-herald-workspace-id': t.owner.workspaceId } });
    assert.equal(after.statusCode, 403);
    assert.equal(after.json().error.code, 'PUBLIC_API_WORKSPACE_FORBIDDEN');
  });
});
