// A bare stand-in for a platform's "create post" endpoint, for the scheduler benchmark's call floor: a node:http
// server that answers every POST with a small Mastodon-like status (id, url, created_at, content), nothing else.
// Prints `{ "url": … }` when it listens.
//
//   node bench/floor/platform-stub.ts
import http from 'node:http';
import type { AddressInfo } from 'node:net';

let next = 0;
const server = http.createServer((request, response) => {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk: string) => (body += chunk));
  request.on('end', () => {
    const id = String(++next);
    const { status } = JSON.parse(body || '{}') as { status?: string };
    const answer = JSON.stringify({
      id,
      url: `http://stub.invalid/@bench/${id}`,
      created_at: new Date().toISOString(),
      content: status ?? '',
    });
    response
      .writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) })
      .end(answer);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(
    `${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/statuses` })}\n`,
  ),
);
process.on('SIGTERM', () => server.close());
