// The floor for the upload benchmark: a bare node:http server that streams each PUT to a new file in a directory
// and fsyncs it (flush on close), nothing else. Prints `{ "url": … }` when it listens.
//
//   node bench/floor/upload-server.ts <dir>
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

const dir = process.argv[2]!;
await mkdir(dir, { recursive: true });
const server = http.createServer((request, response) => {
  const file = path.join(dir, `bare-${randomBytes(4).toString('hex')}`);
  pipeline(request, createWriteStream(file, { flush: true, highWaterMark: 1024 * 1024 })).then(
    () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
    (error: Error) => response.writeHead(500).end(error.message),
  );
});
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(
    `${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/upload` })}\n`,
  ),
);
process.on('SIGTERM', () => server.close());
