// A streaming upload client, run as its own process by the upload benchmark and the memory test so that the
// server's RSS is measured without the client in it: `node test/helpers/upload-client.ts <url> <bytes>`.
// Sends an MP4 header then filler, with backpressure, and prints `{ status, body }` as JSON.
import http from 'node:http';
import { mp4Prefix } from './media-fixtures.ts';

const [url, sizeArg, contentType = 'video/mp4'] = process.argv.slice(2);
const size = Number(sizeArg);
const prefix = mp4Prefix(size);
const filler = Buffer.alloc(1024 * 1024, 0x42);

const request = http.request(
  url!,
  { method: 'PUT', headers: { 'content-type': contentType, 'content-length': String(size) } },
  (response) => {
    let body = '';
    response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    response.on('end', () =>
      process.stdout.write(JSON.stringify({ status: response.statusCode, body: body.slice(0, 4000) })),
    );
  },
);
request.on('error', (error) => {
  process.stderr.write(`upload client: ${error.message}\n`);
  process.exitCode = 1;
});

let sent = 0;
function pump(): void {
  while (sent < size) {
    const chunk = sent === 0 ? prefix : filler.subarray(0, Math.min(filler.length, size - sent));
    sent += chunk.length;
    if (!request.write(chunk)) {
      request.once('drain', pump);
      return;
    }
  }
  request.end();
}
pump();
