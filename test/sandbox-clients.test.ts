// The simulators driven by each platform's established npm client (twitter-api-v2, masto, @atproto/api): an
// independent check that their shapes are the platforms' shapes, since simulators and adapters are written
// from the same notes. If a client cannot parse or authenticate against a simulator, the simulator is wrong.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { AtpAgent, RichText } from '@atproto/api';
import { createOAuthAPIClient, createRestAPIClient } from 'masto';
import { ApiResponseError, TwitterApi, type ITwitterApiClientPlugin } from 'twitter-api-v2';
import { detectFacets } from '../src/platforms/bluesky/facets.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { mp4, png } from './helpers/media-sources.ts';

// Each platform at the root of its own server: these clients, like the platforms, assume no base path.
let sandbox: RunningSandbox;
let mastodon: RunningSandbox;
let bluesky: RunningSandbox;
before(async () => {
  sandbox = await startSandbox({ platforms: ['x'] });
  mastodon = await startSandbox({ platforms: ['mastodon'], atRoot: true });
  bluesky = await startSandbox({ platforms: ['bluesky'], atRoot: true });
});
after(async () => {
  await Promise.all([sandbox.close(), mastodon.close(), bluesky.close()]);
});

/** Follows one authorize redirect by hand and returns the `code` it carries. */
async function authorizeCode(url: string): Promise<string> {
  const res = await fetch(url, { redirect: 'manual' });
  assert.equal(res.status, 302, await res.text());
  return new URL(res.headers.get('location')!).searchParams.get('code')!;
}

describe('X simulator driven by twitter-api-v2', () => {
  // The client has api.x.com built in; this plugin sends its requests to the simulator instead.
  const toSimulator: ITwitterApiClientPlugin = {
    onBeforeRequest({ computedParams }) {
      const target = new URL(sandbox.baseUrl('x'));
      const url = computedParams.url;
      url.protocol = target.protocol;
      url.host = target.host;
      url.pathname = `${target.pathname}${url.pathname}`;
    },
  };

  test('OAuth 2.0 PKCE, posting, a reply, chunked video and a rotating refresh token', async () => {
    // An http.Agent lets the client's https.request speak plain HTTP to the loopback simulator.
    const app = new TwitterApi(
      { clientId: 'client-under-test' },
      { plugins: [toSimulator], httpAgent: new http.Agent() },
    );
    const redirectUri = 'http://127.0.0.1/callback';
    const link = app.generateOAuth2AuthLink(redirectUri, {
      scope: ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'],
    });
    const authorize = new URL(link.url);
    authorize.searchParams.set('sandbox_username', 'twitter_api_v2');
    const code = await authorizeCode(`${sandbox.baseUrl('x')}${authorize.pathname}${authorize.search}`);
    const { client, refreshToken } = await app.loginWithOAuth2({ code, codeVerifier: link.codeVerifier, redirectUri });
    assert.equal((await client.v2.me()).data.username, 'twitter_api_v2');

    const first = await client.v2.tweet(`Hello from twitter-api-v2 ${Date.now()} https://example.com/a/long/path`);
    assert.match(first.data.text, /https:\/\/t\.co\//);
    const reply = await client.v2.reply('and a reply', first.data.id);
    assert.ok(reply.data.id);

    const mediaId = await client.v2.uploadMedia(mp4(300_000), { media_type: 'video/mp4' }, 128 * 1024);
    const withVideo = await client.v2.tweet({ text: 'with a video', media: { media_ids: [mediaId] } });
    assert.ok(withVideo.data.id);

    await assert.rejects(
      client.v2.tweet('and a reply'),
      (error: unknown) =>
        error instanceof ApiResponseError && error.code === 403 && /duplicate/i.test(JSON.stringify(error.data)),
    );

    const refreshed = await app.refreshOAuth2Token(refreshToken!);
    assert.ok(refreshed.accessToken);
    await assert.rejects(app.refreshOAuth2Token(refreshToken!), 'a refresh token works once');
  });
});

describe('Mastodon simulator driven by masto', () => {
  test('app registration, OAuth with PKCE, media that processes, statuses with Idempotency-Key', async () => {
    const url = mastodon.baseUrl('mastodon');
    const rest = createRestAPIClient({ url });
    const redirectUri = 'http://127.0.0.1/callback';
    const app = await rest.v1.apps.create({
      clientName: 'masto test',
      redirectUris: redirectUri,
      scopes: 'read write',
    });
    const code = await authorizeCode(
      `${url}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: app.clientId!, redirect_uri: redirectUri, scope: 'read write', sandbox_username: 'masto_user' })}`,
    );
    const token = await createOAuthAPIClient({ url }).token.create({
      grantType: 'authorization_code',
      clientId: app.clientId!,
      clientSecret: app.clientSecret!,
      redirectUri,
      code,
    });
    const masto = createRestAPIClient({ url, accessToken: token.accessToken });

    assert.equal((await masto.v1.accounts.verifyCredentials()).username, 'masto_user');
    assert.equal((await masto.v2.instance.fetch()).configuration.statuses.maxCharacters, 500);

    const video = await masto.v2.media.create({
      file: new Blob([mp4()], { type: 'video/mp4' }),
      description: 'a clip',
    });
    assert.ok(video.url, 'masto waited for processing to finish');
    const headers = { 'Idempotency-Key': `key-${Date.now()}` };
    const first = await masto.v1.statuses.create(
      { status: 'Hello from masto', mediaIds: [video.id], visibility: 'unlisted' },
      { requestInit: { headers } },
    );
    const again = await masto.v1.statuses.create(
      { status: 'Hello from masto', mediaIds: [video.id], visibility: 'unlisted' },
      { requestInit: { headers } },
    );
    assert.equal(again.id, first.id, 'the same Idempotency-Key returns the same status');
    const reply = await masto.v1.statuses.create({ status: 'a reply', inReplyToId: first.id });
    assert.equal(reply.inReplyToId, first.id);
    await assert.rejects(masto.v1.statuses.create({ status: 'x'.repeat(501) }), /character limit/);
  });
});

describe('Bluesky simulator driven by @atproto/api', () => {
  test('account, login, facets, an image embed, a reply, and a transparent refresh after ExpiredToken', async () => {
    const agent = new AtpAgent({ service: bluesky.baseUrl('bluesky') });
    await agent.createAccount({
      handle: 'atproto-api.test',
      email: 'a@example.com',
      password: 'correct horse battery',
    });
    await agent.login({ identifier: 'atproto-api.test', password: 'correct horse battery' });
    const did = agent.session!.did;

    const text = 'Zürich 🚀 see https://example.com/x?y=1 and @atproto-api.test #herald';
    const rt = new RichText({ text });
    await rt.detectFacets(agent);
    const ours = await detectFacets(text, async (handle) => (await agent.resolveHandle({ handle })).data.did);
    assert.deepEqual(
      ours.map((f) => [f.index, f.features[0]]),
      rt.facets!.map((f) => [f.index, { ...f.features[0] }]),
      'Herald finds the same facets at the same byte offsets as @atproto/api',
    );
    const post = await agent.post({ text: rt.text, facets: rt.facets });

    const blob = await agent.uploadBlob(png(8, 6), { encoding: 'image/png' });
    await agent.post({
      text: 'an image',
      embed: {
        $type: 'app.bsky.embed.images',
        images: [{ image: blob.data.blob, alt: 'pixels', aspectRatio: { width: 8, height: 6 } }],
      },
    });
    const reply = await agent.post({ text: 'a reply', reply: { root: post, parent: post } });
    const record = await agent.com.atproto.repo.getRecord({
      repo: did,
      collection: 'app.bsky.feed.post',
      rkey: reply.uri.split('/').pop()!,
    });
    assert.equal((record.data.value as { reply: { parent: { uri: string } } }).reply.parent.uri, post.uri);

    bluesky.simulator('bluesky').faults.add({ fault: 'expired_token', operation: 'create_post' });
    const afterRefresh = await agent.post({ text: 'posted after a refresh' });
    assert.ok(afterRefresh.uri, 'the client refreshed its session on ExpiredToken and retried');
    await assert.rejects(agent.post({ text: 'y'.repeat(301) }), /grapheme too big/);
  });
});
