// Server-side request forgery, as an outsider tries it. (1) The Meta simulators mounted in Herald fetch a container's
// `image_url` / `video_url`: anyone who can mint a simulator token must not make Herald GET an address of their
// choosing (another port of Herald's own host above all), nor learn from the answer what that address said. Only
// Herald's own signed media URLs are fetched; anything else is refused before a connection, with one Graph error.
// (2) The SSRF guard (src/lib/ssrf.ts) refuses every special-purpose address of the IANA IPv4 and IPv6 registries
// that is not globally reachable, and every IPv6 form that carries such an IPv4 address, directly and through
// `POST /v1/webhooks` and `POST /v1/media` with a `url` (media by URL; its redirects are test/media-by-url.test.ts's).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPlatformHttp } from '../../src/platforms/http.ts';
import { createPlatformRegistry } from '../../src/platforms/registry.ts';
import { isBlockedAddress } from '../../src/lib/ssrf.ts';
import { inProcessTransport } from '../../src/sandbox/inprocess.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { jpeg, mp4, png } from '../helpers/media-sources.ts';
import { freePort } from '../helpers/ports.ts';
import { pollFor } from '../helpers/poll.ts';

let t: TestApp;
let victim: Server;
let victimOrigin: string;
let closedPort: number;
const hits: string[] = [];

before(async () => {
  // The victim: a service on Herald's own host that only Herald itself can reach. It answers like a real one: a
  // JPEG (what Instagram accepts), a PNG (a format oracle), a video, and 404 elsewhere.
  victim = createServer((req, res) => {
    hits.push(req.url ?? '');
    const body =
      req.url === '/a.jpg' ? jpeg(40, 40) : req.url === '/a.png' ? png(40, 40) : req.url === '/a.mp4' ? mp4() : null;
    if (!body) return void res.writeHead(404).end('not here');
    res.writeHead(200, { 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => victim.listen(0, '127.0.0.1', resolve));
  victimOrigin = `http://127.0.0.1:${(victim.address() as AddressInfo).port}`;
  closedPort = await freePort();
  // Herald's public URL names its own host (any port: the old guard allowed the host on every port).
  t = await buildTestApp({ env: { HERALD_PUBLIC_URL: 'http://127.0.0.1:1' } });
});
after(async () => {
  await t.close();
  victim.closeAllConnections();
  await new Promise<void>((resolve) => victim.close(() => resolve()));
});

/**
 * A simulator account and token, as any holder of one has it (a workspace's sandbox connection; before the sign-in
 * was closed, anyone): minted here through Herald's own in-process path, since this test is about what a token
 * can make Herald fetch, whoever holds it.
 */
async function mint(platform: 'instagram' | 'threads'): Promise<{ id: string; token: string }> {
  const { transport, close } = await inProcessTransport(t.container.simulators, t.container.platformAccess.sandboxUrl);
  try {
    const http = createPlatformHttp({
      baseUrl: `${t.container.platformAccess.sandboxUrl}/${platform}`,
      timeoutMs: 5000,
      transport,
    });
    const { account, credentials } = await createPlatformRegistry()
      .get(platform)!
      .connectSandbox(http, { username: `holder_${platform}_${Math.random().toString(36).slice(2, 8)}` });
    return { id: account.accountId, token: credentials.accessToken };
  } finally {
    await close();
  }
}

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

/** The error of a Graph answer without its per-call trace id, so two answers compare equal when they say the same. */
function errorOf(body: string): unknown {
  const parsed = JSON.parse(body) as { error?: Record<string, unknown> };
  if (!parsed.error) return parsed;
  const { fbtrace_id: _trace, ...rest } = parsed.error;
  return rest;
}

describe('the Meta simulators fetch only Herald’s own signed media URLs', () => {
  const foreign = () => [
    `${victimOrigin}/a.jpg`,
    `${victimOrigin}/a.png`,
    `${victimOrigin}/missing`,
    `http://127.0.0.1:${closedPort}/a.jpg`,
    // Herald's own origin, but not the shape of a signed read URL.
    'http://127.0.0.1:1/v1/webhooks',
    'http://127.0.0.1:1/files/../sandbox/x',
    'http://127.0.0.1:1/files/00000000-0000-0000-0000-000000000000/med_00000000000000000000000000',
    `http://127.0.0.1:1/files/00000000-0000-0000-0000-000000000000/med_00000000000000000000000000%2F..?expires=1&signature=x`,
    `https://127.0.0.1:1/files/00000000-0000-0000-0000-000000000000/med_00000000000000000000000000?expires=1&signature=x`,
    `${victimOrigin}/files/00000000-0000-0000-0000-000000000000/med_00000000000000000000000000?expires=1&signature=x`,
    `http://[::ffff:127.0.0.1]:${(victim.address() as AddressInfo).port}/a.jpg`,
    `http://localhost:${(victim.address() as AddressInfo).port}/a.jpg`,
    'http://169.254.169.254/latest/meta-data/',
    'file:///etc/passwd',
  ];

  test('Instagram refuses an image_url that is not Herald’s signed URL, with one error, before any connection', async () => {
    const { id, token } = await mint('instagram');
    hits.length = 0;
    const answers = new Map<string, unknown>();
    for (const url of foreign()) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/sandbox/instagram/v23.0/${id}/media`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: form({ image_url: url, access_token: token }),
      });
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      answers.set(url, errorOf(res.body));
    }
    assert.deepEqual(hits, [], 'the victim was never contacted');
    const distinct = new Set([...answers.values()].map((a) => JSON.stringify(a)));
    assert.equal(distinct.size, 1, `one answer for every foreign URL, got: ${[...distinct].join('\n')}`);
    assert.match([...distinct][0]!, /2207052/);
  });

  test('Threads refuses an image_url that is not Herald’s signed URL, with one error, before any connection', async () => {
    const { id, token } = await mint('threads');
    hits.length = 0;
    const answers = new Set<string>();
    for (const url of foreign()) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/sandbox/threads/v1.0/${id}/threads`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: form({ media_type: 'IMAGE', image_url: url, text: 'x', access_token: token }),
      });
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      answers.add(JSON.stringify(errorOf(res.body)));
    }
    assert.deepEqual(hits, [], 'the victim was never contacted');
    assert.equal(answers.size, 1, `one answer for every foreign URL, got: ${[...answers].join('\n')}`);
    assert.match([...answers][0]!, /2207052/);
  });

  test('an Instagram video container with a foreign video_url ends in ERROR without contacting it, and says nothing of it', async () => {
    const { id, token } = await mint('instagram');
    hits.length = 0;
    const statuses = new Set<string>();
    for (const url of [`${victimOrigin}/a.mp4`, `${victimOrigin}/missing`, `http://127.0.0.1:${closedPort}/a.mp4`]) {
      const made = await t.app.inject({
        method: 'POST',
        url: `/sandbox/instagram/v23.0/${id}/media`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: form({ media_type: 'REELS', video_url: url, access_token: token }),
      });
      assert.equal(made.statusCode, 200, made.body);
      const container = (made.json() as { id: string }).id;
      const status = await pollFor('the video container to settle', async () => {
        const res = await t.app.inject({
          method: 'GET',
          url: `/sandbox/instagram/v23.0/${container}?fields=status_code,status&access_token=${encodeURIComponent(token)}`,
        });
        const body = res.json() as { status_code?: string; status?: string };
        return body.status_code && body.status_code !== 'IN_PROGRESS' ? body : undefined;
      });
      assert.equal(status.status_code, 'ERROR', `${url}: ${JSON.stringify(status)}`);
      statuses.add(String(status.status));
    }
    assert.deepEqual(hits, [], 'the victim was never contacted');
    assert.equal(statuses.size, 1, `one status for every foreign URL, got: ${[...statuses].join('\n')}`);
  });
});

// The IANA special-purpose address registries (IPv4 and IPv6), each block that is not globally reachable, and every
// IPv6 form that carries an IPv4 address. `true`: the guard refuses it.
const ADDRESSES: ReadonlyArray<[address: string, blocked: boolean, block: string]> = [
  ['0.0.0.0', true, '0.0.0.0/8 "this network"'],
  ['0.1.2.3', true, '0.0.0.0/8 "this network"'],
  ['10.1.2.3', true, '10.0.0.0/8 private-use'],
  ['100.64.0.1', true, '100.64.0.0/10 shared address space (CGNAT)'],
  ['127.0.0.1', true, '127.0.0.0/8 loopback'],
  ['127.255.255.254', true, '127.0.0.0/8 loopback'],
  ['169.254.169.254', true, '169.254.0.0/16 link-local (cloud metadata)'],
  ['172.16.0.1', true, '172.16.0.0/12 private-use'],
  ['172.31.255.254', true, '172.16.0.0/12 private-use'],
  ['192.0.0.1', true, '192.0.0.0/24 IETF protocol assignments'],
  ['192.0.0.8', true, '192.0.0.8/32 IPv4 dummy address'],
  ['192.0.0.170', true, '192.0.0.170/31 NAT64/DNS64 discovery'],
  ['192.0.2.1', true, '192.0.2.0/24 documentation (TEST-NET-1)'],
  ['192.88.99.1', true, '192.88.99.0/24 deprecated 6to4 relay anycast'],
  ['192.168.1.1', true, '192.168.0.0/16 private-use'],
  ['198.18.0.1', true, '198.18.0.0/15 benchmarking'],
  ['198.19.255.254', true, '198.18.0.0/15 benchmarking'],
  ['198.51.100.1', true, '198.51.100.0/24 documentation (TEST-NET-2)'],
  ['203.0.113.1', true, '203.0.113.0/24 documentation (TEST-NET-3)'],
  ['224.0.0.1', true, '224.0.0.0/4 multicast'],
  ['240.0.0.1', true, '240.0.0.0/4 reserved'],
  ['255.255.255.255', true, '255.255.255.255/32 limited broadcast'],
  ['::', true, '::/128 unspecified'],
  ['::1', true, '::1/128 loopback'],
  ['::ffff:127.0.0.1', true, '::ffff:0:0/96 IPv4-mapped, loopback inside'],
  ['::ffff:a9fe:a9fe', true, '::ffff:0:0/96 IPv4-mapped, link-local inside'],
  ['::ffff:0:7f00:1', true, '::ffff:0:0:0/96 IPv4-translated, loopback inside'],
  ['::ffff:0:10.0.0.1', true, '::ffff:0:0:0/96 IPv4-translated, private inside'],
  ['::127.0.0.1', true, '::/96 IPv4-compatible (deprecated), loopback inside'],
  ['::a9fe:a9fe', true, '::/96 IPv4-compatible (deprecated), link-local inside'],
  ['64:ff9b::7f00:1', true, '64:ff9b::/96 NAT64, loopback inside'],
  ['64:ff9b::192.168.0.1', true, '64:ff9b::/96 NAT64, private inside'],
  ['64:ff9b:1::1', true, '64:ff9b:1::/48 local-use NAT64'],
  ['64:ff9b:1:7f00:1::', true, '64:ff9b:1::/48 local-use NAT64, loopback inside (/64 form)'],
  ['64:ff9b:1::808:808', true, '64:ff9b:1::/48 local-use NAT64, even with a public address inside'],
  ['2002:7f00:1::1', true, '2002::/16 6to4, loopback inside'],
  ['2002:a9fe:a9fe::', true, '2002::/16 6to4, link-local inside'],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', true, '2001::/32 Teredo, obfuscated client 127.0.0.1'],
  ['2001:0:4136:e378:8000:63bf:f5ff:fffe', true, '2001::/32 Teredo, obfuscated client 10.0.0.1'],
  ['2001::1', true, '2001::/23 IETF protocol assignments'],
  ['2001:2::1', true, '2001:2::/48 benchmarking'],
  ['2001:10::1', true, '2001:10::/28 deprecated ORCHID'],
  ['2001:db8::1', true, '2001:db8::/32 documentation'],
  ['3fff::1', true, '3fff::/20 documentation'],
  ['5f00::1', true, '5f00::/16 segment routing (SRv6) SIDs'],
  ['100::1', true, '100::/64 discard-only'],
  ['100:0:0:1::1', true, '100:0:0:1::/64 dummy IPv6 prefix'],
  ['fc00::1', true, 'fc00::/7 unique-local'],
  ['fd12:3456::1', true, 'fc00::/7 unique-local'],
  ['fe80::1', true, 'fe80::/10 link-local'],
  ['fec0::1', true, 'fec0::/10 deprecated site-local'],
  ['ff02::1', true, 'ff00::/8 multicast'],
  ['8.8.8.8', false, 'public IPv4'],
  ['93.184.216.34', false, 'public IPv4'],
  ['2606:4700:4700::1111', false, 'public IPv6'],
  ['::ffff:8.8.8.8', false, '::ffff:0:0/96 IPv4-mapped, public inside'],
  ['::ffff:0:808:808', false, '::ffff:0:0:0/96 IPv4-translated, public inside'],
  ['64:ff9b::808:808', false, '64:ff9b::/96 NAT64, public inside'],
  ['2002:808:808::1', false, '2002::/16 6to4, public inside'],
];

describe('the SSRF guard knows every special-purpose address', () => {
  for (const [address, blocked, block] of ADDRESSES)
    test(`${address} is ${blocked ? 'blocked' : 'allowed'} (${block})`, () => {
      assert.equal(isBlockedAddress(address), blocked);
      if (address.includes(':')) assert.equal(isBlockedAddress(`[${address}]`), blocked, 'bracketed');
    });
});

describe('POST /v1/webhooks refuses a URL naming a special-purpose address', () => {
  let w: TestApp;
  let key: string;
  before(async () => {
    w = await buildTestApp({ env: { HERALD_RATE_LIMIT_WRITE_PER_MIN: '100000' } });
    key = await w.key();
  });
  after(() => w.close());

  test('every blocked address gets 422 address_blocked; every allowed one is accepted', async () => {
    let tried = 0;
    for (const [address, blocked, block] of ADDRESSES) {
      const host = address.includes(':') ? `[${address}]` : address;
      const res = await w.inject({
        method: 'POST',
        url: '/v1/webhooks',
        key,
        payload: { url: `https://${host}/hook`, events: ['*'] },
      });
      tried++;
      if (blocked) {
        assert.equal(res.statusCode, 422, `${address} (${block}): ${res.body}`);
        assert.match(res.body, /address_blocked/, `${address} (${block})`);
      } else assert.equal(res.statusCode, 201, `${address} (${block}): ${res.body}`);
    }
    assert.equal(tried, ADDRESSES.length);
  });
});

describe('POST /v1/media with a url refuses a URL naming a special-purpose address', () => {
  let m: TestApp;
  let key: string;
  before(async () => {
    m = await buildTestApp({ env: { HERALD_RATE_LIMIT_WRITE_PER_MIN: '100000' } });
    key = await m.key();
  });
  after(() => m.close());

  test('every blocked address gets 422 url_address_blocked and no media; every allowed one is accepted', async () => {
    let tried = 0;
    for (const [address, blocked, block] of ADDRESSES) {
      const host = address.includes(':') ? `[${address}]` : address;
      const res = await m.inject({ method: 'POST', url: '/v1/media', key, payload: { url: `https://${host}/a.jpg` } });
      tried++;
      if (blocked) {
        assert.equal(res.statusCode, 422, `${address} (${block}): ${res.body}`);
        assert.equal(res.json().error.details[0].rule, 'url_address_blocked', `${address} (${block})`);
      } else assert.equal(res.statusCode, 202, `${address} (${block}): ${res.body}`);
    }
    assert.equal(tried, ADDRESSES.length);
    const { rows } = await m.container.pool.query('SELECT count(*)::int AS n FROM media');
    assert.equal(rows[0].n, ADDRESSES.filter(([, blocked]) => !blocked).length, 'a refused URL writes nothing');
  });

  test("a service on Herald's own host is never fetched, over http or https", async () => {
    const before = hits.length;
    const port = new URL(victimOrigin).port;
    for (const url of [`${victimOrigin}/a.jpg`, `https://127.0.0.1:${port}/a.jpg`, `https://localhost:${port}/a.jpg`]) {
      const res = await m.inject({ method: 'POST', url: '/v1/media', key, payload: { url } });
      assert.equal(res.statusCode, 422, `${url}: ${res.body}`);
    }
    assert.equal(hits.length, before, 'the victim was not contacted');
  });
});
