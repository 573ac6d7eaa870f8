// Invites are emailed when SMTP is configured (docs/api.md "Members and invites"): the invitee gets the link the
// answer holds, a replay sends nothing again, and a server that refuses or is not there fails the email, never
// the invite. The token is in the answer and the email only, never in a log line.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../src/config.ts';
import { setUserName } from '../src/features/users/users.repo.ts';
import { redactSecrets } from '../src/lib/logger.ts';
import { buildTestApp, TEST_SECRET, type TestApp } from './helpers/app.ts';
import { freePort } from './helpers/ports.ts';
import { readableBody, startSmtpServer, type SmtpServer } from './helpers/smtp.ts';

interface MadeInvite {
  id: string;
  email: string;
  url: string;
  email_delivery: { status: string; error: string | null };
}

const tokenOf = (url: string) => url.split('/app/invite/')[1]!;

function assertTokensNotLogged(t: TestApp, tokens: string[]): void {
  const text = t.logs.map((line) => JSON.stringify(line)).join('\n');
  for (const token of tokens) assert.ok(!text.includes(token), 'a log line carries an invite token');
}

describe('with an SMTP server', () => {
  let smtp: SmtpServer;
  let t: TestApp;
  let key: string;
  const tokens: string[] = [];

  before(async () => {
    smtp = await startSmtpServer();
    t = await buildTestApp({ env: { HERALD_SMTP_URL: smtp.url, HERALD_SMTP_FROM: 'invites@herald.test' } });
    await setUserName(t.container.pool, t.owner.userId, 'Olga Owner');
    key = await t.key({ scopes: ['members:manage'] });
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  const invite = (email: string, idem?: string) =>
    t.inject({
      method: 'POST',
      url: '/v1/invites',
      key,
      payload: { email, role: 'member' },
      ...(idem ? { idem } : {}),
    });

  test('the invitee is emailed the link of the answer, which signs them up; the answer says `sent`', async () => {
    const res = await invite('nina@example.com');
    assert.equal(res.statusCode, 201, res.body);
    const made = res.json().data as MadeInvite;
    tokens.push(tokenOf(made.url));
    assert.deepEqual(made.email_delivery, { status: 'sent', error: null });
    assert.equal(smtp.messages.length, 1);
    const mail = smtp.messages[0]!;
    assert.deepEqual(mail.to, ['nina@example.com']);
    assert.equal(mail.from, 'invites@herald.test');
    const body = readableBody(mail.data);
    assert.ok(body.includes(made.url), 'the email carries the link of the answer');
    assert.match(body, /Olga Owner \(owner@test\.local\) invited you to join the workspace "Sandbox" on Herald/);
    assert.match(body, /as a member/);
    assert.ok(body.includes(`href="${made.url}"`), 'the HTML part links it too');
    assert.match(mail.data, /^Subject: Invitation to join Sandbox on Herald\r$/m);
    assert.match(mail.data, /^Reply-To: owner@test\.local\r$/m);

    const accept = await t.app.inject({
      method: 'POST',
      url: `/app/api/invites/${tokenOf(made.url)}/accept`,
      payload: { name: 'Nina', password: 'nina has a long password' },
    });
    assert.equal(accept.statusCode, 200, accept.body);
    assert.equal(accept.json().data.user.email, 'nina@example.com');
  });

  test('a replay with the same Idempotency-Key answers the same and sends no second email', async () => {
    const first = await invite('omar@example.com', 'invite-omar-once');
    assert.equal(first.statusCode, 201, first.body);
    tokens.push(tokenOf((first.json().data as MadeInvite).url));
    const sent = smtp.messages.length;
    const sessions = smtp.sessions;
    const again = await invite('omar@example.com', 'invite-omar-once');
    assert.equal(again.statusCode, 201, again.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    assert.equal(smtp.messages.length, sent, 'no second email');
    assert.equal(smtp.sessions, sessions, 'no second SMTP session');
  });

  test('a refused recipient: 201 with `failed` and the reason, the invite listed, a warning without the token', async () => {
    smtp.refuseRecipients(true);
    try {
      const res = await invite('nobody@example.com');
      assert.equal(res.statusCode, 201, res.body);
      const made = res.json().data as MadeInvite;
      tokens.push(tokenOf(made.url));
      assert.equal(made.email_delivery.status, 'failed');
      assert.match(made.email_delivery.error ?? '', /550/);
      assert.match(made.url, /\/app\/invite\//, 'the link is still answered');
      const listed = (await t.inject({ url: '/v1/invites?limit=100', key })).json().data.items as MadeInvite[];
      assert.ok(listed.some((i) => i.id === made.id && i.email === 'nobody@example.com'));
      const warning = t.logs.find((l) => l.msg === 'invite email not sent' && l.invite_id === made.id);
      assert.ok(warning, 'the failure is logged');
      assert.equal(warning.level, 40);
    } finally {
      smtp.refuseRecipients(false);
    }
  });

  test('no invite token reaches a log line', () => {
    assert.ok(tokens.length >= 3);
    assertTokensNotLogged(t, tokens);
    // A line that would carry an invite path is scrubbed whatever logged it; an invite's id is not a token.
    assert.equal(redactSecrets(`/app/invite/${tokens[0]}`), '/app/invite/[redacted]');
    assert.equal(
      redactSecrets('/v1/invites/inv_01JD2C4Q8X5M3N7P9R1T3V5W7Y'),
      '/v1/invites/inv_01JD2C4Q8X5M3N7P9R1T3V5W7Y',
    );
  });
});

describe('with an SMTP server that is not there', () => {
  let t: TestApp;

  before(async () => {
    t = await buildTestApp({
      env: { HERALD_SMTP_URL: `smtp://mailer:a-secret-password@127.0.0.1:${await freePort()}` },
    });
  });
  after(() => t.close());

  test('a closed port fails the email, not the invite, and the reason names no credential', async () => {
    const key = await t.key({ scopes: ['members:manage'] });
    const res = await t.inject({
      method: 'POST',
      url: '/v1/invites',
      key,
      payload: { email: 'pat@example.com', role: 'admin' },
    });
    assert.equal(res.statusCode, 201, res.body);
    const made = res.json().data as MadeInvite;
    assert.equal(made.email_delivery.status, 'failed');
    assert.ok((made.email_delivery.error ?? '').length > 0);
    assert.ok(!res.body.includes('a-secret-password'));
    const got = await t.inject({ url: `/v1/invites/${made.id}`, key });
    assert.equal(got.json().data.status, 'pending');
    assertTokensNotLogged(t, [tokenOf(made.url)]);
    assert.ok(!JSON.stringify(t.logs).includes('a-secret-password'));
  });
});

describe('the SMTP settings', () => {
  const base = { HERALD_SECRET_KEY: TEST_SECRET, HERALD_PUBLIC_URL: 'https://herald.example.com:8443' };

  test('unset: no mailer, and the sender defaults to herald@ the public host', () => {
    const config = loadConfig(base);
    assert.equal(config.mail.smtpUrl, undefined);
    assert.equal(config.mail.from, 'herald@herald.example.com');
  });

  test('only smtp: and smtps: URLs and a plain email sender are accepted, each named in the error', () => {
    assert.throws(
      () => loadConfig({ ...base, HERALD_SMTP_URL: 'https://mail.example.com' }),
      (error: unknown) =>
        error instanceof ConfigError && error.problems.some((p) => /HERALD_SMTP_URL must use smtp: or smtps:/.test(p)),
    );
    assert.throws(
      () => loadConfig({ ...base, HERALD_SMTP_FROM: 'Herald <not an address>' }),
      /HERALD_SMTP_FROM must be an email address/,
    );
    const config = loadConfig({ ...base, HERALD_SMTP_URL: 'smtps://u:p@mail.example.com:465' });
    assert.equal(config.mail.smtpUrl, 'smtps://u:p@mail.example.com:465');
  });
});
