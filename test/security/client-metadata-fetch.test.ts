// Attack class: using the anonymous authorization page to make Herald connect out. A client_id that is an https
// URL makes Herald fetch it before anyone signs in, so the page must not become a free connection cannon (one
// fetch per URL for a while, whatever the outcome, and a per-address budget) nor an oracle that tells an
// attacker how an address answered (refused, closed, silent, not TLS all read the same).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { freePort } from '../helpers/ports.ts';

let t: TestApp;
const servers: net.Server[] = [];
const sockets = new Set<net.Socket>();

before(async () => {
  // Loopback is allowed on purpose here: the local servers below stand for any host on the Internet.
  t = await buildTestApp({ env: { HERALD_OUTBOUND_ALLOWLIST: '127.0.0.1' } });
});
after(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await t.close();
});

/** A TCP server on loopback that counts connections and answers each one the way `mode` says. */
async function misbehaving(mode: 'close' | 'not-tls' | 'silent'): Promise<{ port: number; connections: number }> {
  const counter = { port: 0, connections: 0 };
  const server = net.createServer((socket) => {
    counter.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (mode === 'close') socket.destroy();
    if (mode === 'not-tls') socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  counter.port = (server.address() as net.AddressInfo).port;
  return counter;
}

function authorize(clientId: string, address: string) {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: 'https://assistant.example/callback',
    code_challenge: 'a'.repeat(43),
    code_challenge_method: 'S256',
    state: 'x',
  });
  return t.app.inject({ method: 'GET', url: `/oauth/authorize?${query}`, remoteAddress: address });
}

/** What the person reads on the page. */
const visibleText = (html: string) =>
  html
    .replace(/<(style|script)[^>]*>[\s\S]*?<\/\1>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();

describe('client metadata documents fetched for anonymous visitors', () => {
  test('100 authorize requests naming the same failing client_id URL make one outbound connection, and the address runs out of budget', async () => {
    const target = await misbehaving('close');
    const clientId = `https://127.0.0.1:${target.port}/client.json`;
    const answers = await Promise.all(Array.from({ length: 100 }, () => authorize(clientId, '203.0.113.20')));
    const statuses = answers.map((a) => a.statusCode);
    assert.equal(target.connections, 1, 'one connection for 100 requests');
    assert.ok(
      statuses.every((s) => s === 400 || s === 429),
      `only refusals: ${[...new Set(statuses)].join(', ')}`,
    );
    const limited = answers.filter((a) => a.statusCode === 429);
    assert.ok(limited.length >= 30, `beyond the anonymous budget: 429 (${limited.length} of 100)`);
    assert.ok(limited.every((a) => Number(a.headers['retry-after']) >= 1));
    const later = await authorize(clientId, '198.51.100.20');
    assert.equal(later.statusCode, 400, 'another address is not limited');
    assert.equal(target.connections, 1, 'the failure is remembered');
  });

  test('refused, closed, silent and not-TLS addresses all give the same page', async () => {
    const closed = await misbehaving('close');
    const notTls = await misbehaving('not-tls');
    const silent = await misbehaving('silent');
    const cases = {
      refused: await freePort(),
      closed: closed.port,
      'not TLS': notTls.port,
      silent: silent.port,
    };
    const pages: Record<string, string> = {};
    let n = 0;
    for (const [name, port] of Object.entries(cases)) {
      const res = await authorize(`https://127.0.0.1:${port}/client.json`, `192.0.2.${++n}`);
      assert.equal(res.statusCode, 400, name);
      pages[name] = visibleText(res.body);
    }
    assert.match(pages.refused!, /could not fetch the application's metadata document/);
    for (const [name, text] of Object.entries(pages)) assert.equal(text, pages.refused, `${name} reads like refused`);
    assert.ok(closed.connections + notTls.connections + silent.connections >= 3, 'each was really tried');
  });
});
