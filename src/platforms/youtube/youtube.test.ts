// The YouTube adapter against its simulator: the shared contract, then YouTube's own upload cases — a video in many
// chunks, and an unknown outcome at every step of the resumable upload (the session start, a chunk, the last PUT,
// a worker killed after the session was remembered, an expired session), each ending with exactly one video; the
// options in the video resource, the statistics, and the refresh that keeps Google's refresh token.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { adapterContract, rejects, withAdapter } from '../../../test/helpers/adapter-contract.ts';
import { mediaSource, mp4 } from '../../../test/helpers/media-sources.ts';
import { startSandbox, type RunningSandbox } from '../../sandbox/server.ts';
import { createPlatformHttp } from '../http.ts';
import { partMemory } from '../part-memory.ts';
import type { OutgoingPart, PendingRefs } from '../types.ts';
import * as client from './client.ts';
import { createYoutubeAdapter } from './index.ts';
import { CHUNK_QUANTUM } from './media.ts';
import { nextPacificMidnight } from './quota.ts';

adapterContract('youtube');

const KiB = 1024;
/** A fresh adapter, as a new worker process builds it; the smallest chunks, so a short video takes several. */
const newProcess = () =>
  createYoutubeAdapter(
    { apiUrl: undefined, clientId: undefined, clientSecret: undefined },
    { chunkBytes: CHUNK_QUANTUM },
  );

describe('youtube uploads: chunks, resumes and reconciliation', () => {
  withAdapter('youtube', (get) => {
    /** A part of a `bytes`-long video, prepared by `adapter`, with its own memory of pending references. */
    async function videoPart(adapter = newProcess(), text = `video ${Date.now()} ${Math.random()}`, bytes = 700 * KiB) {
      const source = mediaSource(mp4(bytes), 'video/mp4');
      const media = await adapter.prepareMedia(get().session, [source], {});
      return { adapter, part: get().part(text, { media }), source };
    }
    const videosWith = async (text: string) => (await get().held()).filter((p) => p.text === text);
    /** The same part as a new process sees it: its row's key, first send and pending references; media prepared anew. */
    async function inNewProcess(part: OutgoingPart, pending: PendingRefs) {
      const adapter = newProcess();
      const media = await adapter.prepareMedia(get().session, [mediaSource(mp4(700 * KiB), 'video/mp4')], {});
      return { adapter, part: { ...part, media, ...partMemory(pending) } };
    }

    test('a video of several chunks goes up 256 KiB at a time and is published once, bytes intact', async () => {
      const { adapter, part } = await videoPart();
      const post = await adapter.publish(get().session, part);
      assert.equal((await videosWith(part.text)).length, 1);
      assert.match(post.url, /\/watch\?v=[\w-]{11}$/);
      const played = await fetch(`${get().session.connection.baseUrl}/videoplayback/${post.id}`);
      assert.deepEqual(Buffer.from(await played.arrayBuffer()), mp4(700 * KiB));
    });

    test('a chunk whose answer is lost is resumed inside the call from the byte the session holds', async () => {
      const c = get();
      const { adapter, part } = await videoPart();
      c.fault({ fault: 'lost_response', operation: 'upload_chunk', skip: 1 });
      const post = await adapter.publish(c.session, part);
      assert.equal((await videosWith(part.text)).length, 1);
      const played = await fetch(`${c.session.connection.baseUrl}/videoplayback/${post.id}`);
      assert.deepEqual(Buffer.from(await played.arrayBuffer()), mp4(700 * KiB));
    });

    test('a session start whose answer is lost: nothing remembered, nothing found, the re-send makes one video', async () => {
      const c = get();
      const { adapter, part } = await videoPart();
      c.fault({ fault: 'lost_response', operation: 'upload_media' });
      await rejects(adapter.publish(c.session, part), 'unknown_outcome');
      assert.deepEqual(part.pending, {});
      assert.equal(await adapter.findPublished(c.session, part), null);
      await adapter.publish(c.session, part);
      assert.equal((await videosWith(part.text)).length, 1);
    });

    test('a worker killed right after remembering the session: the next process uploads into that same session', async () => {
      const c = get();
      const { adapter, part } = await videoPart();
      const stored: PendingRefs[] = [];
      const killed = new Error('worker killed');
      const dying = {
        ...part,
        ...partMemory({}, async (refs) => {
          stored.push(refs);
          throw killed;
        }),
      };
      await assert.rejects(adapter.publish(c.session, dying), killed);
      const next = await inNewProcess(part, stored[0]!);
      assert.equal(await next.adapter.findPublished(c.session, next.part), null);
      await next.adapter.publish(c.session, next.part);
      assert.equal(next.part.pending.session, stored[0]!.session, 'the same session, no new one');
      assert.equal((await videosWith(part.text)).length, 1);
    });

    test('chunks failing until the call gives up: the next process goes on from the bytes the session holds', async () => {
      const c = get();
      const { adapter, part } = await videoPart();
      c.fault({ fault: 'server_error', operation: 'upload_chunk', skip: 1, times: 20 });
      await rejects(adapter.publish(c.session, part), 'transient');
      c.sandbox.simulator('youtube').faults.clear();
      const next = await inNewProcess(part, part.pending);
      assert.equal(await next.adapter.findPublished(c.session, next.part), null);
      const post = await next.adapter.publish(c.session, next.part);
      assert.equal((await videosWith(part.text)).length, 1);
      const played = await fetch(`${c.session.connection.baseUrl}/videoplayback/${post.id}`);
      assert.deepEqual(Buffer.from(await played.arrayBuffer()), mp4(700 * KiB));
    });

    test('the last PUT made the video but its answer was lost: the session answers it, adopted, never sent twice', async () => {
      const c = get();
      const { adapter, part } = await videoPart();
      c.fault({ fault: 'lost_response', operation: 'create_post' });
      await rejects(adapter.publish(c.session, part), 'unknown_outcome');
      const [held] = await videosWith(part.text);
      const next = await inNewProcess(part, part.pending);
      assert.equal((await next.adapter.findPublished(c.session, next.part))?.id, held!.id);
      assert.equal((await next.adapter.publish(c.session, next.part)).id, held!.id);
      assert.equal((await videosWith(part.text)).length, 1);
    });

    test('the last PUT refused with a 5xx: nothing found, the re-send sends only the last chunk', async () => {
      const c = get();
      const { adapter, part } = await videoPart();
      c.fault({ fault: 'server_error', operation: 'create_post' });
      await rejects(adapter.publish(c.session, part), 'transient');
      assert.equal(await adapter.findPublished(c.session, part), null);
      const state = await client.uploadStatus(
        c.session.http,
        part.pending.session!,
        c.session.credentials.accessToken,
        700 * KiB,
      );
      assert.deepEqual(state, { held: 512 * KiB });
      await adapter.publish(c.session, part);
      assert.equal((await videosWith(part.text)).length, 1);
    });

    test('an expired session: the uploads playlist gives the video by title and description, made since the send', async () => {
      const c = get();
      const { adapter, part } = await videoPart();
      const post = await adapter.publish(c.session, part);
      const gone = {
        session: `${c.session.connection.baseUrl}/upload/youtube/v3/videos?uploadType=resumable&upload_id=gone`,
        size: '1000',
      };
      const look = (extra: Partial<OutgoingPart>) =>
        adapter.findPublished(c.session, { ...part, media: [], mediaCount: 1, ...partMemory(gone), ...extra });
      assert.equal((await look({}))?.id, post.id);
      assert.equal(await look({ heldElsewhere: new Set([post.id]) }), null, 'another part holds it');
      assert.equal(await look({ firstSentAt: new Date(Date.now() + 60_000) }), null, 'made before the send');
      assert.equal(await look({ text: 'other text' }), null, 'another description');
    });

    test('the options go in the video resource: title, tags, category, privacy, made for kids', async () => {
      const c = get();
      const { adapter } = await videoPart();
      const media = await adapter.prepareMedia(c.session, [mediaSource(mp4(1000), 'video/mp4')], {});
      const options = {
        title: 'A chosen title',
        tags: ['herald', 'two words'],
        category_id: '28',
        privacy_status: 'unlisted',
        made_for_kids: true,
      };
      const post = await adapter.publish(c.session, c.part(`options ${Date.now()}`, { media, options }));
      const [video] = await client.videos(
        c.session.http,
        c.session.credentials.accessToken,
        [post.id],
        'snippet,status',
      );
      const v = video as unknown as { snippet: Record<string, unknown>; status: Record<string, unknown> };
      assert.equal(v.snippet.title, 'A chosen title');
      assert.deepEqual(v.snippet.tags, ['herald', 'two words']);
      assert.equal(v.snippet.categoryId, '28');
      assert.equal(v.status.privacyStatus, 'unlisted');
      assert.equal(v.status.selfDeclaredMadeForKids, true);
    });

    test('without a title option the title is the first line of the text; no text and no title is refused unsent', async () => {
      const c = get();
      const { adapter, part } = await videoPart(newProcess(), `First line ${Date.now()}\nthe rest of the description`);
      const post = await adapter.publish(c.session, part);
      const [video] = await client.videos(c.session.http, c.session.credentials.accessToken, [post.id], 'snippet');
      assert.equal(video!.snippet!.title, part.text.split('\n')[0]);
      const empty = await videoPart(newProcess(), '');
      await rejects(adapter.publish(c.session, empty.part), 'invalid_content');
      assert.deepEqual(empty.part.pending, {}, 'no session was started');
    });

    test('fetchMetrics reads views, likes and comments from statistics; YouTube gives no shares', async () => {
      const c = get();
      const { adapter, part } = await videoPart();
      const post = await adapter.publish(c.session, part);
      const metrics = await adapter.fetchMetrics!(c.session, post);
      assert.deepEqual(Object.keys(metrics).sort(), ['comments', 'likes', 'video_views']);
      for (const value of Object.values(metrics)) assert.ok(Number.isInteger(value) && value >= 0);
    });

    test('a refresh answers a new access token and keeps the refresh token, which Google does not rotate', async () => {
      const c = get();
      const refreshed = await c.adapter.refreshCredentials(c.session);
      assert.notEqual(refreshed.accessToken, c.session.credentials.accessToken);
      assert.equal(refreshed.refreshToken, c.session.credentials.refreshToken);
      assert.ok(Date.parse(refreshed.expiresAt!) > Date.now() + 3500_000);
    });
  });
});

describe('youtube daily quota', () => {
  let sandbox: RunningSandbox;
  before(async () => {
    // One upload's worth of units (videos.insert costs 1,600) and a few reads.
    sandbox = await startSandbox({ platforms: ['youtube'], settings: { youtubeDailyQuota: 1700 } });
  });
  after(() => sandbox.close());

  test('a spent quota is rate_limited until midnight Pacific, before any session or byte', async () => {
    const adapter = newProcess();
    const http = createPlatformHttp({ baseUrl: sandbox.baseUrl('youtube'), timeoutMs: 5000 });
    const { account, credentials } = await adapter.connectSandbox(http, { username: 'quota_spender' });
    const session = {
      connection: {
        id: 'c',
        accountId: account.accountId,
        handle: account.handle,
        baseUrl: http.baseUrl,
        settings: account.settings ?? {},
        sandbox: true,
      },
      credentials,
      http,
      clock: { now: () => new Date() },
    };
    const part = async (text: string) => {
      const media = await adapter.prepareMedia(session, [mediaSource(mp4(1000), 'video/mp4')], {});
      return {
        index: 0,
        text,
        media,
        parent: null,
        root: null,
        key: 'k',
        firstSentAt: new Date(),
        options: {},
        ...partMemory(),
      };
    };
    await adapter.publish(session, await part("the day's one upload"));
    const refused = await part('one too many');
    const error = await rejects(adapter.publish(session, refused), 'rate_limited', 'PLATFORM_RATE_LIMITED');
    const wait = nextPacificMidnight(Date.now()) - Date.now();
    assert.ok(Math.abs(error.retryAfterMs! - wait) < 5000, `retryAfterMs ${error.retryAfterMs}, midnight in ${wait}`);
    assert.deepEqual(refused.pending, {}, 'no session was started');
    assert.equal((await sandbox.simulator('youtube').posts()).length, 1);
  });
});
