// The hosted /connect pages: the Bluesky app-password form end to end, and any input answered with a page or a
// redirect, never a 500 or JSON.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './helpers/app.ts';
import { createBrowser, readForm } from './helpers/connect-browser.ts';
import { CLIENT, connectLinkRequests } from './helpers/connect-links.ts';

let t: TestApp;
let sandbox: RunningSandbox;
let key: string;

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildTestApp({ sandboxUrl: sandbox.url });
  key = await t.key();
});
after(async () => {
  await t.close();
  await sandbox.close();
});

const { createLink } = connectLinkRequests(() => ({ t, key }));

describe('connect links: Bluesky app passwords through the hosted form', () => {
  test('handle + app password connect the account; a wrong password shows the form again and the link still works', async () => {
    const pds = sandbox.baseUrl('bluesky');
    const handle = 'formuser.test';
    const created = (await (
      await fetch(`${pds}/xrpc/com.atproto.server.createAccount`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ handle, email: 'f@sandbox.invalid', password: 'main-password-123' }),
      })
    ).json()) as { accessJwt: string };
    const appPassword = (
      (await (
        await fetch(`${pds}/xrpc/com.atproto.server.createAppPassword`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${created.accessJwt}` },
          body: JSON.stringify({ name: 'Herald' }),
        })
      ).json()) as { password: string }
    ).password;
    const browser = createBrowser(t);
    const link = await createLink('bluesky');
    const form = await browser.go(link.url);
    assert.equal(form.status, 200);
    assert.match(form.text, /App password/);
    assert.doesNotMatch(form.text, /name="server_url"/, 'a test workspace signs in on the simulator only');
    // The form's answer redirects to the client: the page's CSP must let the submission end up there.
    const headers = (await t.app.inject({ url: new URL(link.url).pathname })).headers;
    assert.match(String(headers['content-security-policy']), /form-action 'self' https:\/\/client\.example/);
    assert.equal(headers['x-frame-options'], 'DENY');
    const wrong = await browser.go(readForm(form).action, {
      method: 'POST',
      form: { identifier: handle, password: 'wrong-password' },
    });
    assert.equal(wrong.status, 400);
    assert.match(wrong.text, /refused/);
    const end = await browser.go(readForm(form).action, {
      method: 'POST',
      form: { identifier: `@${handle}`, password: appPassword },
      stopAt: CLIENT,
    });
    const id = new URL(end.location!).searchParams.get('connection_id');
    const c = (await t.inject({ url: `/v1/connections/${id}`, key })).json().data;
    assert.equal(c.platform, 'bluesky');
    assert.equal(c.handle, handle);
  });
});

test('the hosted pages answer any input with a page or a redirect, never a 500 or JSON', async () => {
  const link = await createLink('bluesky');
  const token = new URL(link.url).pathname.split('/').pop()!;
  const text = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom('', 'access_denied', '%', '\u0000', 'a'.repeat(3000), 'https://10.0.0.1'),
  );
  const fields = fc.dictionary(
    fc.constantFrom(
      'state',
      'code',
      'error',
      'error_description',
      'server_url',
      'identifier',
      'password',
      'account_id',
      'junk',
    ),
    text,
    { maxKeys: 6 },
  );
  const target = fc.constantFrom(
    '/connect/callback',
    '/connect/choose',
    `/connect/${token}`,
    '/connect/unknown-token',
    `/connect/${'x'.repeat(400)}`,
  );
  await fc.assert(
    fc.asyncProperty(
      target,
      fields,
      fc.constantFrom('GET', 'POST'),
      fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain'),
      async (url, body, method, type) => {
        const query = method === 'GET' ? `?${new URLSearchParams(body as Record<string, string>)}` : '';
        const payload =
          method === 'POST'
            ? type === 'application/json'
              ? JSON.stringify(body)
              : new URLSearchParams(body as Record<string, string>).toString()
            : undefined;
        const res = await t.app.inject({
          method: method as 'GET',
          url: url + query,
          headers: payload ? { 'content-type': type } : {},
          payload,
        });
        assert.ok(res.statusCode < 500, `${method} ${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        if (res.statusCode >= 300 && res.statusCode < 400) assert.ok(res.headers.location);
        else assert.match(String(res.headers['content-type']), /text\/html/, `${method} ${url} ${res.statusCode}`);
      },
    ),
    { numRuns: 150 },
  );
});
