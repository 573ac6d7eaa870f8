// Feed items as generators read them (automations.feed.ts itemsOf): Atom and RSS alike, keyed by id or link for the
// seen-items table, oldest first, with their image and text taken from the markup.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FeedFailure, itemsOf } from './automations.feed.ts';

const atom = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/">
  <title>Release notes</title>
  <id>urn:uuid:60a76c80-d399-11d9-b91C-0003939e0af6</id>
  <updated>2027-03-02T10:00:00Z</updated>
  <entry>
    <title>Version 2</title>
    <id>tag:example.com,2027:v2</id>
    <link href="https://example.com/notes/2#top"/>
    <updated>2027-03-02T10:00:00Z</updated>
    <author><name>Ana</name></author>
    <summary type="html">&lt;p&gt;Faster &lt;b&gt;queues&lt;/b&gt;.&lt;/p&gt;</summary>
    <media:thumbnail url="https://example.com/v2.png"/>
  </entry>
  <entry>
    <title>Version 1</title>
    <link href="https://example.com/notes/1"/>
    <updated>2027-03-01T10:00:00Z</updated>
    <content type="html">&lt;p&gt;The first   release.&lt;/p&gt;</content>
  </entry>
</feed>`;

test('an Atom feed: entries oldest first, keyed by id, else by link without its fragment', async () => {
  const items = await itemsOf(atom);
  assert.equal(items.length, 2);
  const [first, second] = items;
  assert.equal(first!.title, 'Version 1');
  assert.equal(first!.text, 'The first release.');
  assert.equal(first!.published?.toISOString(), '2027-03-01T10:00:00.000Z');
  assert.equal(second!.key, 'guid:tag:example.com,2027:v2');
  assert.equal(second!.url, 'https://example.com/notes/2');
  assert.equal(second!.summary, 'Faster queues.');
  assert.equal(second!.author, 'Ana');
  assert.equal(second!.image, 'https://example.com/v2.png');
});

test('an RSS feed without dates keeps the feed order reversed; an item with neither guid nor link is left out', async () => {
  const rss = `<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title><link>https://blog.example/</link>
    <item><title>Newest</title><link>https://blog.example/b#comments</link></item>
    <item><title>No key</title><description>nothing to tell it apart</description></item>
    <item><title>Oldest</title><guid isPermaLink="false">a-1</guid></item>
  </channel></rss>`;
  const items = await itemsOf(rss);
  assert.deepEqual(
    items.map((i) => [i.title, i.key]),
    [
      ['Oldest', 'guid:a-1'],
      ['Newest', 'url:https://blog.example/b'],
    ],
  );
});

test('markup that is not a feed is feed_invalid', async () => {
  await assert.rejects(itemsOf('<html><body>not a feed</body></html>'), (error: unknown) => {
    assert.ok(error instanceof FeedFailure);
    assert.equal(error.code, 'feed_invalid');
    return true;
  });
});
