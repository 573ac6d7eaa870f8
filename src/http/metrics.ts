// Who may read /metrics, on the API port and on the metrics listener of its own (HERALD_METRICS_PORT, the only way
// a worker, which has no HTTP port, shows its counters). With HERALD_METRICS_TOKEN set, both ask for
// `Authorization: Bearer <token>`. Without it, the API port answers only clients on the loopback address (a fresh
// install scraped from the same machine keeps working; a public API port does not hand out its metrics), unless the
// request came through a proxy (it carries X-Forwarded-For, Forwarded or X-Real-IP): a reverse proxy on the same
// host connects from loopback on behalf of anyone on the internet, so its requests are refused too; and the
// metrics listener answers whoever can reach the address it is bound to (HERALD_METRICS_HOST, 127.0.0.1 by default).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import type { Metrics } from '../lib/metrics.ts';
import { http } from '../lib/node-http.ts';

type Verdict = { ok: true } | { ok: false; status: 401 | 403; message: string };

const digest = (value: string) => createHash('sha256').update(value).digest();

function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/** Decides one request for /metrics. `loopbackOnly` applies when no token is configured (the API port). */
export function metricsVerdict(
  token: string | undefined,
  request: { authorization: string | undefined; remoteAddress: string | undefined; forwarded?: boolean },
  loopbackOnly: boolean,
): Verdict {
  if (token !== undefined) {
    const match = /^Bearer\s+(.+)$/i.exec(request.authorization ?? '');
    if (match?.[1] && timingSafeEqual(digest(match[1].trim()), digest(token))) return { ok: true };
    return { ok: false, status: 401, message: 'Metrics need Authorization: Bearer <HERALD_METRICS_TOKEN>.' };
  }
  if (!loopbackOnly || (isLoopback(request.remoteAddress) && !request.forwarded)) return { ok: true };
  return {
    ok: false,
    status: 403,
    message:
      'Metrics on the API port answer loopback clients only (not requests forwarded by a proxy); set HERALD_METRICS_TOKEN to scrape them from elsewhere.',
  };
}

/** Headers a proxy adds: a loopback peer sending one is a proxy speaking for another client. */
const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'] as const;

function refusal(verdict: Exclude<Verdict, { ok: true }>) {
  return JSON.stringify({
    error: { code: verdict.status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN', message: verdict.message },
  });
}

/** GET /metrics on the API port. */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics, token: string | undefined): void {
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const verdict = metricsVerdict(
      token,
      {
        authorization: request.headers.authorization,
        remoteAddress: request.socket.remoteAddress,
        forwarded: FORWARDING_HEADERS.some((name) => request.headers[name] !== undefined),
      },
      true,
    );
    if (!verdict.ok) {
      if (verdict.status === 401) reply.header('www-authenticate', 'Bearer realm="metrics"');
      return reply.code(verdict.status).type('application/json; charset=utf-8').send(refusal(verdict));
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}

export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

/** The listener of HERALD_METRICS_PORT: GET /metrics and nothing else. */
export async function startMetricsListener(
  metrics: Metrics,
  settings: Pick<Config['metrics'], 'token' | 'host'> & { port: number },
): Promise<MetricsListener> {
  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'This port serves GET /metrics only.' } }));
      return;
    }
    const verdict = metricsVerdict(
      settings.token,
      { authorization: request.headers.authorization, remoteAddress: request.socket.remoteAddress },
      false,
    );
    if (!verdict.ok) {
      response.writeHead(verdict.status, {
        'content-type': 'application/json; charset=utf-8',
        'www-authenticate': 'Bearer realm="metrics"',
      });
      response.end(refusal(verdict));
      return;
    }
    const body = await metrics.registry.metrics();
    response.writeHead(200, { 'content-type': metrics.registry.contentType });
    response.end(request.method === 'HEAD' ? undefined : body);
  };
  const server = http.createServer((request, response) => {
    answer(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify({ error: { code: 'INTERNAL', message: 'Reading the metrics failed.' } }));
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  return {
    url: `http://${host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
