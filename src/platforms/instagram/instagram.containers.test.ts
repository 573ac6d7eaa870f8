// Instagram's media containers, each against its own simulator: one that expires while processing, and media
// fetched only from the URLs the simulator's settings allow (Herald's signed URLs when mounted in Herald).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { failure } from '../../../test/helpers/meta-adapter.ts';
import { jpeg, mediaFetchSettings, mediaSource, mp4 } from '../../../test/helpers/media-sources.ts';
import { rig } from './instagram.fixture.ts';

describe('instagram containers that expire', () => {
  test('a container that expires while processing is a transient failure and is not published', async () => {
    const r = await rig({ containerVideoMs: 2000, containerExpiryMs: 300 });
    try {
      const media = await r.adapter.prepareMedia(r.session, [mediaSource(mp4(), 'video/mp4')], {});
      const error = await failure(r.adapter.publish(r.session, r.part(`expiring ${Date.now()}`, media)));
      assert.equal(error.kind, 'transient');
      assert.match(error.message, /expired/);
      assert.equal((await r.held()).length, 0);
    } finally {
      await r.sandbox.close();
    }
  });
});

describe('instagram media fetches only from allowed URLs', () => {
  test('mounted in Herald (its signed URLs allowed), a URL elsewhere is not fetched: 2207052, as Meta cannot reach it', async () => {
    const r = await rig({ mediaFetchUrls: [{ prefix: 'https://herald.example/files/' }] });
    try {
      const error = await failure(
        r.adapter.publish(
          r.session,
          r.part(
            `private ${Date.now()}`,
            await r.adapter.prepareMedia(
              r.session,
              [mediaSource(jpeg(40, 40), 'image/jpeg', { width: 40, height: 40 })],
              {},
            ),
          ),
        ),
      );
      assert.equal(error.kind, 'transient');
      assert.match(error.platformBody ?? '', /2207052/);
      assert.equal((await r.held()).length, 0);
    } finally {
      await r.sandbox.close();
    }
  });
});

describe('instagram media fetches from an allowed URL', () => {
  test('with the media server allowed (as Herald allows its signed URLs), the image is fetched and published', async () => {
    const r = await rig({
      mediaFetchUrls: [{ prefix: 'https://herald.example/files/' }, ...(await mediaFetchSettings()).mediaFetchUrls],
    });
    try {
      const post = await r.adapter.publish(r.session, r.part(`allowed ${Date.now()}`, await r.image()));
      assert.equal((await r.held()).find((p) => p.id === post.id)?.media, 1);
    } finally {
      await r.sandbox.close();
    }
  });
});
