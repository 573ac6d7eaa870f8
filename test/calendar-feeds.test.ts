// ICS feeds (docs/calendar.md "ICS feeds"): the secret URL answers RFC 5545 text that a standard parser (ical.js)
// reads back event for event, filtered as its creator chose; folded lines and escaped text survive the round trip;
// a revoked or unknown token is a 404; the token is stored only as a hash; feeds are per workspace and brand.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import ICAL from 'ical.js';
import { sha256 } from '../src/lib/crypto.ts';
import { escapeText, foldLine } from '../src/features/calendar/calendar.ics.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
let key: string;

before(async () => {
  t = await buildTestApp();
  key = await t.key();
});
after(() => t.close());

const inHours = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString().replace(/\.\d{3}Z$/, '.000Z');

async function createPost(content: string, platforms: string[], scheduleAt: string) {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: { content, platforms, schedule_at: scheduleAt },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.post.id as string;
}

async function createFeed(body: Record<string, unknown>, k = key) {
  const res = await t.inject({ method: 'POST', url: '/v1/calendar/feeds', key: k, payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as { feed: { id: string; token_last4: string }; url: string };
}

function pathOf(url: string): string {
  return new URL(url).pathname;
}

function parse(text: string) {
  const component = new ICAL.Component(ICAL.parse(text));
  return component.getAllSubcomponents('vevent').map((v) => new ICAL.Event(v));
}

describe('ICS feeds', () => {
  test('a feed parses with ical.js: UID, DTSTART, summary, escaped and folded text as written', async () => {
    const long = `Launch day; big news, with a comma and a backslash \\ — ${'é'.repeat(60)}\nSecond line`;
    const at = inHours(30);
    const postId = await createPost(long, ['x'], at);
    const { url } = await createFeed({ name: 'Team, plan; all' });
    const res = await t.app.inject({ url: pathOf(url) });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/calendar; charset=utf-8/);
    assert.match(String(res.headers['cache-control']), /max-age=/);
    assert.ok(res.headers.etag);
    for (const line of res.body.split('\r\n')) assert.ok(Buffer.byteLength(line) <= 75, `line over 75 octets: ${line}`);
    assert.ok(res.body.endsWith('END:VCALENDAR\r\n'));
    // An X- property is TEXT to calendar apps; ical.js leaves an unknown property's value as written.
    assert.ok(res.body.includes('X-WR-CALNAME:Team\\, plan\\; all\r\n'));
    const event = parse(res.body).find((e) => e.uid.startsWith(`${postId}@`))!;
    assert.ok(event, 'the post is in the feed');
    assert.equal(event.startDate.toJSDate().toISOString(), at);
    assert.equal(event.summary, long.split('\n')[0]!.slice(0, 79) + '…');
    assert.ok(event.description.includes(long), 'the description carries the text with its line breaks');
    assert.ok(event.component.getFirstPropertyValue('dtstamp'));
    const again = await t.app.inject({ url: pathOf(url), headers: { 'if-none-match': String(res.headers.etag) } });
    assert.equal(again.statusCode, 304);
  });

  test('a feed shows only the platforms its creator chose', async () => {
    const onX = await createPost('only on x', ['x'], inHours(40));
    const onLinkedIn = await createPost('only on linkedin', ['linkedin'], inHours(41));
    const { url } = await createFeed({ name: 'LinkedIn', platforms: ['linkedin'] });
    const uids = parse((await t.app.inject({ url: pathOf(url) })).body).map((e) => e.uid.split('@')[0]);
    assert.ok(uids.includes(onLinkedIn));
    assert.ok(!uids.includes(onX));
  });

  test('the token is stored only as its hash, and a revoked feed answers 404 like an unknown one', async () => {
    const { feed, url } = await createFeed({ name: 'To revoke' });
    const token = pathOf(url).slice('/calendar/'.length, -'.ics'.length);
    const { rows } = await t.container.pool.query('SELECT token_hash FROM calendar_feeds WHERE id = $1', [feed.id]);
    assert.deepEqual(rows[0].token_hash, sha256(token));
    const listed = (await t.inject({ url: '/v1/calendar/feeds', key })).json().data.items as Array<{ id: string }>;
    assert.ok(listed.some((f) => f.id === feed.id));
    assert.ok(!JSON.stringify(listed).includes(token), 'the list never shows the token');
    const revoke = await t.inject({ method: 'DELETE', url: `/v1/calendar/feeds/${feed.id}`, key });
    assert.equal(revoke.statusCode, 200, revoke.body);
    assert.ok(revoke.json().data.revoked_at);
    const gone = await t.app.inject({ url: pathOf(url) });
    assert.equal(gone.statusCode, 404);
    const unknown = await t.app.inject({ url: `/calendar/hcal_${'A'.repeat(32)}.ics` });
    assert.equal(unknown.statusCode, 404);
    assert.equal(gone.body, unknown.body);
    const twice = await t.inject({ method: 'DELETE', url: `/v1/calendar/feeds/${feed.id}`, key });
    assert.equal(twice.statusCode, 404);
  });

  test("another workspace's key neither lists nor revokes a feed, and its feed shows none of this workspace's posts", async () => {
    const { feed } = await createFeed({ name: 'Ours' });
    const other = await t.workspace('test');
    const otherKey = await t.key({ workspaceIds: [other.workspaceId] });
    const listed = (await t.inject({ url: '/v1/calendar/feeds', key: otherKey })).json().data.items as unknown[];
    assert.equal(listed.length, 0);
    const revoke = await t.inject({ method: 'DELETE', url: `/v1/calendar/feeds/${feed.id}`, key: otherKey });
    assert.equal(revoke.statusCode, 404);
    const theirs = await createFeed({ name: 'Theirs' }, otherKey);
    const events = parse((await t.app.inject({ url: pathOf(theirs.url) })).body);
    assert.equal(events.length, 0);
  });

  test('a key limited to one brand makes feeds limited to it and sees only those', async () => {
    const brandKey = await t.key({ brandIds: [t.owner.brandId] });
    const { feed } = await createFeed({ name: 'Brand feed' }, brandKey);
    const listed = (await t.inject({ url: '/v1/calendar/feeds', key: brandKey })).json().data.items as Array<{
      id: string;
      brand_ids: string[];
    }>;
    assert.deepEqual(listed.find((f) => f.id === feed.id)?.brand_ids, [t.owner.brandId]);
    assert.ok(
      listed.every((f) => f.brand_ids !== null),
      'feeds over every brand are not shown to a brand-limited key',
    );
  });
});

describe('RFC 5545 text', () => {
  test('escapes backslash, semicolon, comma and line breaks', () => {
    assert.equal(escapeText('a\\b;c,d\r\ne\nf'), 'a\\\\b\\;c\\,d\\ne\\nf');
  });

  test('folds at 75 octets without splitting a UTF-8 character', () => {
    const folded = foldLine(`SUMMARY:${'€'.repeat(40)}`);
    const lines = folded.split('\r\n');
    assert.ok(lines.length > 1);
    for (const line of lines) assert.ok(Buffer.byteLength(line) <= 75);
    assert.equal(lines.map((l, i) => (i === 0 ? l : l.slice(1))).join(''), `SUMMARY:${'€'.repeat(40)}`);
  });
});
