// A local webhook receiver for tests: records every request (headers, raw body) and answers what the test
// says — a status, a hang, or a dropped connection.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { waitFor } from './wait.ts';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang' | 'destroy';

export interface Receiver {
  /** `http://<host>:<port>` */
  origin: string;
  port: number;
  requests: ReceivedRequest[];
  /** TCP connections accepted, whether or not an HTTP request came over them. */
  connections: number;
  /** How to answer the next requests (default 200 "ok"). */
  answer(fn: (request: ReceivedRequest, index: number) => Answer): void;
  /** Waits until `count` requests have arrived (polling, generous ceiling); prints the wait. */
  waitForRequests(count: number, label?: string, ceilingMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startReceiver(host = '127.0.0.1'): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let connections = 0;
  let respond: (request: ReceivedRequest, index: number) => Answer = () => ({ status: 200, body: 'ok' });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      requests.push(received);
      const answer = respond(received, requests.length - 1);
      if (answer === 'hang') return;
      if (answer === 'destroy') return void req.socket.destroy();
      res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? '');
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host}:${port}`,
    port,
    requests,
    get connections() {
      return connections;
    },
    answer(fn) {
      respond = fn;
    },
    async waitForRequests(count, label = `${count} webhook request(s)`, ceilingMs = 15_000) {
      await waitFor(() => requests.length >= count, { label, ceilingMs });
      return requests.slice(0, count);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Verifies a received request with the reference Standard Webhooks verifier; returns the parsed payload. */
export function verify(secret: string, request: ReceivedRequest): Record<string, unknown> {
  return new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Record<string, unknown>;
}
