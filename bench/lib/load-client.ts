// The load generator, always its own process so that its CPU is never charged to the server measured:
// `node bench/lib/load-client.ts '<json LoadSpec>'` runs autocannon and prints one JSON line of results.
// With `unique`, every `[<id>]` in the body and headers becomes a fresh id per request (idempotency keys, texts).
import autocannon from 'autocannon';
import type { LoadResult, LoadSpec } from './load.ts';

const spec = JSON.parse(process.argv[2]!) as LoadSpec;
const result = await autocannon({
  url: spec.url,
  method: spec.method,
  headers: spec.headers,
  body: spec.body,
  connections: spec.connections,
  duration: spec.seconds,
  ...(spec.amount ? { amount: spec.amount } : {}),
  idReplacement: spec.unique ?? false,
  timeout: 30,
});
const ok = result['2xx'];
const out: LoadResult = {
  requestsPerSecond: ok / (result.duration || spec.seconds),
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  ok,
  non2xx: result.non2xx,
  errors: result.errors + result.timeouts,
  seconds: result.duration,
};
process.stdout.write(`${JSON.stringify(out)}\n`);
