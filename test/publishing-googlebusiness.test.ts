// Google Business Profile end to end through the public API, a worker and the simulator: an EVENT post with its
// photo (fetched by the simulator from Herald's signed URL, as Google fetches `sourceUrl`) and its button published
// after Google's review, the option rules as 422s naming platform and rule, a post Google rejects in review failing
// with PLATFORM_CONTENT_REJECTED and leaving nothing behind, a create whose answer is lost reconciled into one
// post, and a connect link that lists the consent's locations (names with spaces) and publishes to the one chosen.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, type WorkerHandle } from '../src/jobs/worker.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { sandboxSecret } from './helpers/app.ts';
import { createBrowser, readForm } from './helpers/connect-browser.ts';
import { CLIENT, connectLinkRequests, toAuthorize } from './helpers/connect-links.ts';
import { buildMediaTestApp, serveMediaToSimulators, uploadBytes, type MediaTestApp } from './helpers/media.ts';
import { jpeg } from './helpers/media-sources.ts';
import { PUBLISHING_ENV, publishingRequests } from './helpers/publishing.ts';

let sandbox: RunningSandbox;
let t: MediaTestApp;
let worker: WorkerHandle;
let key: string;

before(async () => {
  const settings: Record<string, unknown> = {};
  sandbox = await startSandbox({ secret: sandboxSecret(), platforms: ['googlebusiness'], settings });
  t = await buildMediaTestApp({
    env: { HERALD_SANDBOX_URL: sandbox.url, HERALD_WORKER_POLL_INTERVAL_MS: '200', ...PUBLISHING_ENV },
  });
  serveMediaToSimulators(t, settings);
  worker = await startWorker(t.container);
  key = await t.key();
});
after(async () => {
  await worker.stop();
  await t.close();
  await sandbox.close();
});

const { create, settled } = publishingRequests(() => ({ t, key, sandbox }));
const held = async (text: string) =>
  (await sandbox.simulator('googlebusiness').posts()).filter((p) => p.text === text && !p.deleted);
const event = { title: 'Open evening', start: '2026-12-01T18:00', end: '2026-12-01T21:00' };

describe('Google Business Profile through the public API', () => {
  test('an EVENT post with a BOOK button is published once review ends, with the local post name and URL', async () => {
    const text = `Open evening ${Date.now()}`;
    const { mediaId, put } = await uploadBytes(t, key, jpeg(64, 48), 'image/jpeg', { filename: 'evening.jpg' });
    assert.ok(put.status < 300, `upload answered ${put.status}`);
    const post = await create({
      content: text,
      platforms: ['googlebusiness'],
      media_ids: [mediaId],
      publish_now: true,
      platform_options: {
        googlebusiness: {
          topic_type: 'EVENT',
          event,
          call_to_action: { action_type: 'BOOK', url: 'https://example.com/book' },
        },
      },
    });
    const done = await settled(post.id, 'Google Business Profile event post published');
    assert.equal(done.status, 'published', JSON.stringify(done.targets[0]!.error));
    const target = done.targets[0]!;
    assert.match(target.platform_post_id!, /^accounts\/\d+\/locations\/\d+\/localPosts\/\d+$/);
    assert.equal(target.url, `${sandbox.baseUrl('googlebusiness')}/p/${target.platform_post_id!.split('/').pop()}`);
    assert.deepEqual(
      (await held(text)).map((p) => p.media),
      [1],
      'one local post, with its photo',
    );
    const page = await (await fetch(target.url!)).text();
    assert.ok(page.includes('Open evening') && page.includes('[BOOK]') && page.includes('https://example.com/book'));
  });

  test('bad option combinations are 422s naming platform and rule', async () => {
    const refused = async (options: Record<string, unknown>, rules: string[]) => {
      const res = await t.inject({
        method: 'POST',
        url: '/v1/posts',
        key,
        payload: { content: 'Options', platforms: ['googlebusiness'], platform_options: { googlebusiness: options } },
      });
      assert.equal(res.statusCode, 422, res.body);
      assert.deepEqual(
        res.json().error.details.map((d: { platform: string; rule: string }) => `${d.platform}:${d.rule}`),
        rules.map((r) => `googlebusiness:${r}`),
      );
    };
    await refused({ topic_type: 'EVENT' }, ['event_title_required', 'event_schedule_required']);
    await refused({ topic_type: 'OFFER', event: { title: 'Sale' } }, ['event_schedule_required']);
    await refused({ call_to_action: { action_type: 'CALL', url: 'https://example.com' } }, ['call_has_no_url']);
    await refused({ call_to_action: { action_type: 'SHOP' } }, ['call_to_action_url_required']);
    await refused({ offer: { coupon_code: 'TEN' } }, ['offer_not_allowed']);
    const schema = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: {
        content: 'Options',
        platforms: ['googlebusiness'],
        platform_options: { googlebusiness: { topic_type: 'ALERT' } },
      },
    });
    assert.equal(schema.statusCode, 400, 'an unknown topic type is a schema error');
  });

  test('a post Google rejects in review fails as content, and the platform keeps nothing of it', async () => {
    const text = `Call (555) 123-4567 for tables ${Date.now()}`;
    const done = await settled(
      (await create({ content: text, platforms: ['googlebusiness'], publish_now: true })).id,
      'rejected post failed',
    );
    assert.equal(done.status, 'failed');
    assert.equal(done.targets[0]!.error!.code, 'PLATFORM_CONTENT_REJECTED');
    assert.match(done.targets[0]!.error!.message, /REJECTED/);
    assert.equal((await held(text)).length, 0);
  });

  test("a connect link lists the consent's locations; the one chosen, named with spaces, is where posts go", async () => {
    const browser = createBrowser(t);
    const link = await connectLinkRequests(() => ({ t, key })).createLink('googlebusiness');
    const authorize = await toAuthorize(browser, link.url);
    authorize.searchParams.set('sandbox_username', 'rosa_diaz');
    const choice = await browser.go(authorize.toString(), { stopAt: CLIENT });
    assert.equal(choice.status, 200, choice.text.slice(0, 300));
    assert.ok(choice.text.includes('rosa_diaz Bakery') && choice.text.includes('rosa_diaz Café'), 'both locations');
    const [, second] = [...choice.text.matchAll(/name="account_id" value="([^"]+)"/g)].map((m) => m[1]!);
    assert.match(second ?? '', /^accounts\/\d+\/locations\/\d+$/);
    const form = readForm(choice);
    const end = await browser.go(form.action, {
      method: 'POST',
      form: { ...form.fields, account_id: second! },
      stopAt: CLIENT,
    });
    const id = new URL(end.location!).searchParams.get('connection_id')!;
    const connection = (await t.inject({ url: `/v1/connections/${id}`, key })).json().data;
    assert.deepEqual([connection.account_id, connection.handle], [second, 'rosa_diaz Café']);

    const text = `At the café ${Date.now()}`;
    const done = await settled(
      (await create({ content: text, platforms: ['googlebusiness'], connection_ids: [id], publish_now: true })).id,
      'post on the chosen location',
    );
    assert.equal(done.status, 'published', JSON.stringify(done.targets[0]!.error));
    assert.ok(done.targets[0]!.platform_post_id!.startsWith(`${second}/localPosts/`));
    assert.equal((await fetch(done.targets[0]!.url!)).status, 200);
  });

  test('a create whose answer is lost is looked up, not sent again: one post', async () => {
    const text = `Lost answer ${Date.now()}`;
    sandbox.simulator('googlebusiness').faults.add({ fault: 'lost_response', operation: 'create_post' });
    const done = await settled(
      (await create({ content: text, platforms: ['googlebusiness'], publish_now: true })).id,
      'lost create reconciled',
    );
    assert.equal(done.status, 'published', JSON.stringify(done.targets[0]!.error));
    const copies = await held(text);
    assert.equal(copies.length, 1, 'one local post');
    assert.equal(copies[0]!.id, done.targets[0]!.platform_post_id);
  });
});
