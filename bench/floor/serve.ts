// What the database floor servers share: a bare node:http server on a free port that checks one bearer string,
// hands the method, URL and body to the server's own route, answers its JSON, prints its URL on stdout (as
// bench/lib/processes.ts reads it) and closes its pool on SIGTERM.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FloorAnswer {
  status: number;
  body: string;
}

export interface FloorRequest {
  method: string;
  url: URL;
  body: string;
  headers: http.IncomingHttpHeaders;
}

const NOT_FOUND: FloorAnswer = { status: 404, body: '{"success":false}' };

/** Serves `route` (undefined: 404) behind `bearer`; `close` runs on SIGTERM once the server has stopped. */
export function serveFloor(
  bearer: string,
  route: (request: FloorRequest) => Promise<FloorAnswer> | undefined,
  close: () => void,
): void {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const answer =
        request.headers.authorization !== bearer
          ? Promise.resolve({ status: 401, body: '{"success":false}' })
          : (route({
              method: request.method ?? 'GET',
              url: new URL(request.url ?? '/', 'http://floor'),
              body: Buffer.concat(chunks).toString('utf8'),
              headers: request.headers,
            }) ?? Promise.resolve(NOT_FOUND));
      answer.then(
        ({ status, body }) =>
          response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(body),
        (error: Error) =>
          response
            .writeHead(500, { 'content-type': 'application/json' })
            .end(JSON.stringify({ success: false, error: error.message })),
      );
    });
  });
  server.listen(0, '127.0.0.1', () =>
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`),
  );
  process.on('SIGTERM', () => server.close(close));
}
