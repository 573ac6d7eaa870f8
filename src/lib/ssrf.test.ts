import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOutboundGuard, isBlockedAddress, OutboundBlockedError, type LookupFn } from './ssrf.ts';
import { outboundRequest, type OutboundError } from './outbound.ts';

const fakeDns =
  (table: Record<string, string[]>): LookupFn =>
  async (host) => {
    const found = table[host];
    if (!found) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

test('private, loopback, link-local, CGNAT and metadata addresses are blocked; public ones are not', () => {
  for (const ip of [
    '127.0.0.1',
    '10.1.2.3',
    '172.20.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '64:ff9b::a00:1',
    '2002:a00:1::',
    '[::1]',
  ]) {
    assert.equal(isBlockedAddress(ip), true, ip);
  }
  for (const ip of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])
    assert.equal(isBlockedAddress(ip), false, ip);
});

test('checkUrl refuses a hostname that resolves to loopback, and one that does not resolve', async () => {
  const guard = createOutboundGuard({
    lookup: fakeDns({
      'evil.example': ['127.0.0.1'],
      'mixed.example': ['93.184.216.34', '10.0.0.1'],
      'good.example': ['93.184.216.34'],
    }),
  });
  await assert.rejects(
    guard.checkUrl('https://evil.example/hook'),
    (e: OutboundBlockedError) => e.code === 'address_blocked',
  );
  await assert.rejects(
    guard.checkUrl('https://mixed.example/hook'),
    (e: OutboundBlockedError) => e.code === 'address_blocked',
  );
  await assert.rejects(
    guard.checkUrl('https://nowhere.example/hook'),
    (e: OutboundBlockedError) => e.code === 'dns_unresolved',
  );
  await assert.rejects(
    guard.checkUrl('http://good.example/hook'),
    (e: OutboundBlockedError) => e.code === 'scheme_blocked',
  );
  await assert.rejects(
    guard.checkUrl('https://[::ffff:169.254.169.254]/'),
    (e: OutboundBlockedError) => e.code === 'address_blocked',
  );
  assert.equal((await guard.checkUrl('https://good.example/hook')).hostname, 'good.example');
});

test('the allow-list exempts hosts, IPs and CIDRs, and only those may use plain http', async () => {
  const guard = createOutboundGuard({
    allowlist: ['internal.example', '10.9.0.0/16', '::1'],
    lookup: fakeDns({ 'internal.example': ['10.0.0.5'], 'svc.example': ['10.9.1.1'] }),
  });
  assert.equal((await guard.checkUrl('http://internal.example/x')).protocol, 'http:');
  assert.equal((await guard.checkUrl('https://svc.example/x')).hostname, 'svc.example');
  assert.equal((await guard.checkUrl('http://[::1]:8080/x')).hostname, '[::1]');
  await assert.rejects(guard.checkUrl('https://10.8.0.1/x'), OutboundBlockedError);
});

test('the guard applies at connect time: a name that resolves to loopback is refused by the request itself', async () => {
  const server = http.createServer((_req, res) => res.end('secret'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  try {
    const guard = createOutboundGuard({ lookup: fakeDns({ 'rebind.example': ['127.0.0.1'] }) });
    await assert.rejects(
      outboundRequest({ method: 'GET', url: `http://rebind.example:${port}/`, timeoutMs: 2000, guard }),
      (e: OutboundError) => e.kind === 'blocked' && !e.sent,
    );
    await assert.rejects(
      outboundRequest({ method: 'GET', url: `http://127.0.0.1:${port}/`, timeoutMs: 2000, guard }),
      (e: OutboundError) => e.kind === 'blocked',
    );
    const trusted = await outboundRequest({ method: 'GET', url: `http://127.0.0.1:${port}/`, timeoutMs: 2000 });
    assert.equal(trusted.body.toString(), 'secret');
    const allowed = createOutboundGuard({ allowlist: ['127.0.0.1'], lookup: fakeDns({}) });
    assert.equal(
      (await outboundRequest({ method: 'GET', url: `http://127.0.0.1:${port}/`, timeoutMs: 2000, guard: allowed }))
        .status,
      200,
    );
  } finally {
    server.close();
  }
});

test('a timeout after the request was sent is reported as sent (unknown outcome); redirects are not followed', async () => {
  const server = http.createServer((req, res) => {
    if (req.url === '/redirect') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      return;
    }
    req.resume(); // read the body, never answer
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  try {
    await assert.rejects(
      outboundRequest({ method: 'POST', url: `http://127.0.0.1:${port}/hang`, body: '{"a":1}', timeoutMs: 300 }),
      (e: OutboundError) => e.kind === 'timeout' && e.sent,
    );
    const redirect = await outboundRequest({
      method: 'GET',
      url: `http://127.0.0.1:${port}/redirect`,
      timeoutMs: 2000,
    });
    assert.equal(redirect.status, 302);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('a response larger than the cap is truncated, not buffered whole', async () => {
  const server = http.createServer((_req, res) => res.end(Buffer.alloc(100_000, 97)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  try {
    const res = await outboundRequest({
      method: 'GET',
      url: `http://127.0.0.1:${port}/`,
      timeoutMs: 2000,
      maxResponseBytes: 1000,
    });
    assert.equal(res.body.length, 1000);
    assert.equal(res.truncated, true);
  } finally {
    server.close();
  }
});
