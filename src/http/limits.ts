// The HTTP server's guards against slow and numerous clients (docs/deploy.md "Timeouts and connection limits"):
// Node's own deadlines for headers and whole requests, a shorter body deadline for every route but the local upload
// URL, caps on open connections in all and per address, and the shutdown deadline after which sockets are dropped.
import type { Server, ServerOptions } from 'node:http';
import { BlockList, isIPv6, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { loggableUrl } from '../lib/logger.ts';

/**
 * Options for `Fastify({...})`. Node checks its deadlines on a timer (`connectionsCheckingInterval`, 30 s by
 * default): a tenth of the headers deadline, between 50 ms and 1 s, keeps the cut-off near the setting.
 * `requestTimeout` (Node's, for every request) is the upload allowance, the longest any request may take; the
 * shorter deadline of other routes is `registerBodyDeadline`'s. `connectionTimeout` (socket inactivity) stays off:
 * a byte every few seconds would reset it, and streamed answers may be silent for long.
 */
export function serverLimitOptions(config: Config): {
  requestTimeout: number;
  http: ServerOptions;
  trustProxy: false | string[];
} {
  const { http } = config;
  const headersTimeout = Math.min(http.headersTimeoutMs, http.uploadTimeoutMs);
  return {
    requestTimeout: http.uploadTimeoutMs,
    http: {
      headersTimeout,
      requestTimeout: http.uploadTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 10))),
    },
    trustProxy: http.trustProxy,
  };
}

/**
 * Every request with a body must be received whole within `requestTimeoutMs`, or its socket is destroyed (no
 * answer: the client is not reading one). The local upload URL is the one exception while its handler streams an
 * accepted upload (the route keeps its own idle timeout, Node's `requestTimeout` bounds it); once an answer has
 * gone out (a refused upload), the remaining body gets the same deadline as any other.
 */
export function registerBodyDeadline(app: FastifyInstance, config: Config, uploadPrefix: string): void {
  const ms = config.http.requestTimeoutMs;
  // Deadlines still pending, cleared when the app closes: a body that never ended on a socket that never closed
  // (an in-process request, a client still connected at shutdown) must not leave its timer behind.
  const pending = new Set<NodeJS.Timeout>();
  app.addHook('onClose', async () => {
    for (const timer of pending) clearTimeout(timer);
    pending.clear();
  });
  app.addHook('onRequest', async (request, reply) => {
    const raw = request.raw;
    if (raw.headers['content-length'] === undefined && raw.headers['transfer-encoding'] === undefined) return;
    if (raw.headers['content-length'] === '0') return;
    const upload = request.url.startsWith(uploadPrefix);
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      timer = setTimeout(() => {
        if (timer) pending.delete(timer);
        if (raw.complete || raw.readableEnded || raw.socket.destroyed) return;
        // An accepted upload streaming in: its own allowance. Refused later, its rest gets a fresh deadline.
        if (upload && !reply.raw.headersSent) return void reply.raw.once('finish', () => raw.complete || arm());
        request.log.info(
          { url: loggableUrl(request.url), deadline_ms: ms },
          'request body too slow: connection closed',
        );
        raw.socket.destroy();
      }, ms);
      // Unreferenced: a pending deadline must not keep a stopping process alive (closing destroys the socket).
      timer.unref();
      pending.add(timer);
    };
    arm();
    const done = () => {
      clearTimeout(timer);
      if (timer) pending.delete(timer);
    };
    raw.once('end', done);
    raw.once('close', done);
    // Answered without reading the body (refused early): nobody will read it now, so let it drain (Node does so
    // on a socket too); its end clears the deadline, and a trickling client still meets it.
    reply.raw.once('finish', () => raw.readableEnded || raw.resume());
  });
}

/** Addresses never capped per address: the trusted proxies, through which every client connects. */
function uncapped(trustProxy: Config['http']['trustProxy']): (address: string) => boolean {
  if (trustProxy === false) return () => false;
  const list = new BlockList();
  for (const item of trustProxy) {
    const [address = '', prefix] = item.split('/');
    const type = isIPv6(address) ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return (address) => list.check(address, isIPv6(address) ? 'ipv6' : 'ipv4');
}

/**
 * Caps open connections: in all (`server.maxConnections`: Node closes a connection beyond it as it is accepted)
 * and per remote address (closed here as soon as it is accepted, before any byte is read).
 */
export function limitConnections(server: Server, config: Config): void {
  const { maxConnections, maxConnectionsPerIp, trustProxy } = config.http;
  server.maxConnections = maxConnections;
  const exempt = uncapped(trustProxy);
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined || exempt(address)) return;
    const count = (open.get(address) ?? 0) + 1;
    if (count > maxConnectionsPerIp) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

/**
 * Closes the app, giving requests in flight `graceMs` to finish (idle keep-alive connections close at once); then
 * every connection still open (slow clients, long requests) is destroyed so that the close completes.
 */
export async function closeWithin(app: FastifyInstance, graceMs: number, onForce: () => void): Promise<void> {
  const timer = setTimeout(() => {
    onForce();
    app.server.closeAllConnections();
  }, graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(timer);
  }
}
