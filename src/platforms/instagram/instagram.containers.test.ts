// Instagram's media containers, each against its own simulator: one that expires while processing, and media
// fetches behind the SSRF guard (a private address off the allowlist) or from an allow-listed host.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { failure } from '../../../test/helpers/meta-adapter.ts';
import { jpeg, mediaSource, mp4 } from '../../../test/helpers/media-sources.ts';
import { rig } from './instagram.fixture.ts';

describe('instagram containers that expire', () => {
  test('a container that expires while processing is a transient failure and is not published', async () => {
    const r = await rig({ containerVideoMs: 2000, containerExpiryMs: 300 });
    try {
      const media = await r.adapter.prepareMedia(r.session, [mediaSource(mp4(), 'video/mp4')], {});
      const error = await failure(r.adapter.publish(r.session, r.part(`expiring ${Date.now()}`, media)));
      assert.equal(error.kind, 'transient');
      assert.match(error.message, /expired/);
      assert.equal(r.held().length, 0);
    } finally {
      await r.sandbox.close();
    }
  });
});

describe('instagram media fetches behind the SSRF guard', () => {
  test('mounted in Herald (an allowlist set), a private address off the list cannot be fetched, as Meta cannot reach it', async () => {
    const r = await rig({ mediaFetchAllowlist: ['herald.example'] });
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
      assert.equal(r.held().length, 0);
    } finally {
      await r.sandbox.close();
    }
  });
});

describe('instagram media fetches from an allow-listed host', () => {
  test("with the media host on the allowlist (Herald's public host), the image is fetched and published", async () => {
    const r = await rig({ mediaFetchAllowlist: ['herald.example', '127.0.0.1'] });
    try {
      const post = await r.adapter.publish(r.session, r.part(`allowed ${Date.now()}`, await r.image()));
      assert.equal(r.held().find((p) => p.id === post.id)?.media, 1);
    } finally {
      await r.sandbox.close();
    }
  });
});
