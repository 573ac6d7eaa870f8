// Pure translation of Pinterest's shapes (docs/platforms/pinterest.md "Calls", "Idempotency", "Metrics and inbox"):
// the Pin create body per media kind, the look-up's comparison of a listed Pin, and Pin analytics in Herald's names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { partMemory } from '../part-memory.ts';
import type { OutgoingPart, PreparedMedia } from '../types.ts';
import { isThisPart, metricsFrom, metricTypes, pinBody, pinTime } from './map.ts';

const image = (ref: string, altText: string | null = null): PreparedMedia => ({
  platformRef: ref,
  kind: 'image',
  altText,
  width: 10,
  height: 10,
});
const video: PreparedMedia = { platformRef: '5212', kind: 'video', altText: null, width: null, height: null };

function part(extra: Partial<OutgoingPart> = {}): OutgoingPart {
  return {
    index: 0,
    text: 'A description',
    media: [image('https://herald.example/m/1', 'first alt')],
    parent: null,
    root: null,
    key: 'pin-0001',
    firstSentAt: new Date('2026-11-26T10:00:00Z'),
    options: {},
    ...partMemory(),
    ...extra,
  };
}

test('an image Pin names its URL; the alt text is the option, else the first image’s', () => {
  assert.deepEqual(pinBody(part(), '42'), {
    board_id: '42',
    description: 'A description',
    alt_text: 'first alt',
    media_source: { source_type: 'image_url', url: 'https://herald.example/m/1' },
  });
  const o = { title: 'T', link: 'https://example.com', alt_text: 'chosen' };
  assert.deepEqual(pinBody(part({ text: ' ', options: o }), '42'), {
    board_id: '42',
    title: 'T',
    link: 'https://example.com',
    alt_text: 'chosen',
    media_source: { source_type: 'image_url', url: 'https://herald.example/m/1' },
  });
});

test('several images are a carousel; a video names its media id and cover frame', () => {
  const two = part({ media: [image('https://h/1'), image('https://h/2')] });
  assert.deepEqual(pinBody(two, '42').media_source, {
    source_type: 'multiple_image_urls',
    items: [{ url: 'https://h/1' }, { url: 'https://h/2' }],
  });
  assert.deepEqual(pinBody(part({ media: [video], options: { cover_time_seconds: 3 } }), '42').media_source, {
    source_type: 'video_id',
    media_id: '5212',
    cover_image_key_frame_time: 3,
  });
  assert.throws(() => pinBody(part({ media: [] }), '42'), /needs an image or a video/);
});

test('a listed Pin is the part only with its description, title, link and media, made since the first send', () => {
  const pin = {
    id: '9001',
    created_at: '2026-11-26T10:00:05',
    description: 'A description',
    title: null,
    link: 'https://Example.com/a/',
    media: { media_type: 'image' },
  };
  const p = part({ options: { link: 'https://example.com/a' } });
  assert.equal(isThisPart(p, pin), true, 'host case and a trailing slash do not matter');
  assert.equal(isThisPart(p, { ...pin, link: 'https://example.com/b' }), false);
  assert.equal(isThisPart(p, { ...pin, description: 'Another' }), false);
  assert.equal(isThisPart(p, { ...pin, title: 'A title' }), false);
  assert.equal(isThisPart(p, { ...pin, media: { media_type: 'video' } }), false);
  assert.equal(isThisPart(p, { ...pin, created_at: '2026-11-26T09:59:40' }), false, 'made before the send');
  assert.equal(isThisPart({ ...p, heldElsewhere: new Set(['9001']) }, pin), false);
  const carousel = { ...pin, media: { media_type: 'multiple_images', items: [{}, {}] } };
  assert.equal(isThisPart({ ...p, media: [], mediaCount: 2 }, carousel), true, 'after a restart: the count');
});

test('created_at without a zone is UTC', () => {
  assert.equal(pinTime('2026-11-26T10:00:05'), Date.parse('2026-11-26T10:00:05Z'));
  assert.equal(pinTime('2026-11-26T10:00:05+01:00'), Date.parse('2026-11-26T09:00:05Z'));
  assert.equal(pinTime(undefined), undefined);
});

test('Pin analytics in Herald’s names; what Pinterest did not answer is left out', () => {
  assert.deepEqual(
    metricsFrom({
      all: {
        summary_metrics: { IMPRESSION: 240, SAVE: 20, OUTBOUND_CLICK: 7, PIN_CLICK: 37, VIDEO_MRC_VIEW: 12.0 },
        lifetime_metrics: { TOTAL_COMMENTS: 2, TOTAL_REACTIONS: 10 },
      },
    }),
    { impressions: 240, saves: 20, clicks: 7, video_views: 12, likes: 10, comments: 2 },
  );
  assert.deepEqual(metricsFrom({ other: { summary_metrics: { IMPRESSION: 5 } } }), { impressions: 5 });
  assert.match(metricTypes(true), /VIDEO_MRC_VIEW/);
  assert.doesNotMatch(metricTypes(false), /VIDEO/);
});
