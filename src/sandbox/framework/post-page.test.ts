// The shared post page: what a user wrote is escaped before anything is marked up, and a URL stays one link.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { linkify, postPageHtml } from './post-page.ts';

test('links, mentions and hashtags are marked up once, after escaping', () => {
  const html = linkify('see https://a.example/x_(@evil_x/y and @bob #tag\n<script>alert(1)</script>', '#123456');
  assert.match(html, /<a style="color:#123456" href="https:\/\/a\.example\/x_\(@evil_x\/y" rel="nofollow">/);
  assert.ok(!html.includes('href="https://a.example/x_(<b'), 'no markup inside the href');
  assert.match(html, /<b style="color:#123456">@bob<\/b> <b style="color:#123456">#tag<\/b><br>&lt;script&gt;/);
  assert.ok(!html.includes('<script>'));
  assert.ok(!linkify('javascript:alert(1)', '#000').includes('href'), 'only http(s) URLs become links');
});

test('a page shows the account, every part in order with its media, and escapes attributes', () => {
  const html = postPageHtml({
    platform: 'X',
    accent: '#000000',
    account: { name: 'Ann "A"', handle: '@ann' },
    parts: [
      { text: 'first', media: [{ url: 'https://cdn.example/1.png', kind: 'image', alt: 'a "cat"' }], createdAt: 0 },
      { text: 'second', media: [], createdAt: 60_000, url: 'https://x.example/2' },
    ],
  });
  assert.ok(html.indexOf('first') < html.indexOf('second'));
  assert.match(html, /<img src="https:\/\/cdn\.example\/1\.png" alt="a &quot;cat&quot;"/);
  assert.match(html, /Ann &quot;A&quot;/);
  assert.match(html, /1\/2/);
  assert.match(html, /<time datetime="1970-01-01T00:01:00.000Z">/);
});
