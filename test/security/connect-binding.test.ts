// Attack class: spending someone else's connect flow. The platform's callback URL (code and state) is only good
// in the browser that started the flow (its binding cookie); replayed from elsewhere it is refused without
// touching the link, so the real user's own callback still completes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from '../helpers/app.ts';
import { createBrowser } from '../helpers/connect-browser.ts';
import { CLIENT, connectLinkRequests, toAuthorize } from '../helpers/connect-links.ts';

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

/** The victim's browser up to the platform's redirect back to Herald: the callback URL, not yet followed. */
async function victimUpToCallback() {
  const victim = createBrowser(t);
  const link = await createLink('x');
  const authorize = await toAuthorize(victim, link.url);
  authorize.searchParams.set('sandbox_username', 'victim');
  const callback = await victim.go(authorize.toString(), { stopAt: 'http://herald.test/connect/callback' });
  return { victim, link, callback: new URL(callback.location!) };
}

async function linkStatus(id: string): Promise<string> {
  const { rows } = await t.container.pool.query<{ status: string }>('SELECT status FROM connect_links WHERE id = $1', [
    id,
  ]);
  return rows[0]!.status;
}

describe('the connect callback is bound to the browser that started the flow', () => {
  const replays: Array<[string, (cookieName: string) => Record<string, string>]> = [
    ['without the binding cookie', () => ({})],
    ['with a forged binding cookie', (name) => ({ cookie: `${name}=forged-binding-value` })],
    ['with an empty binding cookie', (name) => ({ cookie: `${name}=` })],
  ];
  for (const [how, headers] of replays) {
    test(`a replayed callback ${how} is refused, and the real browser's callback then completes`, async () => {
      const { victim, link, callback } = await victimUpToCallback();
      const replay = await t.app.inject({
        method: 'GET',
        url: callback.pathname + callback.search,
        headers: headers('herald_connect'),
      });
      assert.equal(replay.statusCode, 400, replay.body.slice(0, 300));
      assert.match(replay.body, /invalid_state/);
      assert.equal(replay.headers.location, undefined, 'no outcome is sent to the client for a flow still running');
      assert.equal(await linkStatus(link.id), 'authorizing', 'the link is untouched');

      const end = await victim.go(callback.toString(), { stopAt: CLIENT });
      const back = new URL(end.location ?? 'http://none');
      assert.match(back.searchParams.get('connection_id') ?? '', /^conn_/, `${end.status} ${end.text.slice(0, 300)}`);
      assert.equal(await linkStatus(link.id), 'completed');
    });
  }
});
