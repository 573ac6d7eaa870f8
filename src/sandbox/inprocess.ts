// Reaching the simulators without a network: a Transport that hands each request to a Fastify instance in
// this process (light-my-request). Used to connect sandbox accounts at first start and from the CLI, where
// no server may be listening; tokens stay valid for the served simulators because both sign with the same
// secret.
import type { IncomingHttpHeaders } from 'node:http';
import Fastify from 'fastify';
import type { Readable } from 'node:stream';
import type { Transport } from '../platforms/http.ts';
import { mountSimulators } from './mount.ts';
import type { SandboxSimulators } from './simulators.ts';

async function bytes(body: string | Buffer | Uint8Array | Readable | undefined): Promise<Buffer | undefined> {
  if (body === undefined) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body);
  const parts: Buffer[] = [];
  for await (const chunk of body) parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(parts);
}

/** A transport for URLs under `sandboxUrl` (`<sandboxUrl>/<platform>/…`), served by `simulators` in-process. */
export async function inProcessTransport(
  simulators: SandboxSimulators,
  sandboxUrl: string,
): Promise<{ transport: Transport; close(): Promise<void> }> {
  const app = Fastify({ logger: false });
  // Trusted: nothing outside this process reaches this instance, so named sign-ins need no signature.
  await mountSimulators(app, await simulators.load(), '', { trusted: true });
  await app.ready();
  const base = new URL(sandboxUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const transport: Transport = async (request) => {
    const url = typeof request.url === 'string' ? new URL(request.url) : request.url;
    if (url.origin !== base.origin || !url.pathname.startsWith(`${prefix}/`))
      throw new Error(`${url.href} is not under the sandbox URL ${sandboxUrl}`);
    const started = performance.now();
    const headers = Object.fromEntries(
      Object.entries(request.headers ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]),
    );
    const res = await app.inject({
      method: request.method as 'GET',
      url: `${url.pathname.slice(prefix.length)}${url.search}`,
      headers: { ...headers, host: url.host },
      payload: await bytes(request.body),
    });
    return {
      status: res.statusCode,
      headers: res.headers as IncomingHttpHeaders,
      body: res.rawPayload,
      truncated: false,
      durationMs: Math.round(performance.now() - started),
    };
  };
  return { transport, close: () => app.close() };
}
