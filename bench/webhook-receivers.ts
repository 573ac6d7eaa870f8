// Child process of bench/webhook-burst.ts: N local webhook receivers, out of the measured process as real
// receivers would be. Every request is verified with the standardwebhooks verifier and answered 200 at once;
// the parent asks for counts over IPC.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

const count = Number(process.argv[2] ?? 5);
const verifiers = new Map<number, Webhook>();
const seen = new Set<string>();
const stats = { requests: 0, unique: 0, invalid: 0, lastAt: 0 };

const ports = await Promise.all(
  Array.from({ length: count }, async () => {
    const server = http.createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const port = (server.address() as AddressInfo).port;
        stats.requests++;
        stats.lastAt = Date.now();
        try {
          verifiers.get(port)!.verify(Buffer.concat(chunks), req.headers as Record<string, string>);
          const key = `${port}:${String(req.headers['webhook-id'])}`;
          if (!seen.has(key)) {
            seen.add(key);
            stats.unique++;
          }
        } catch {
          stats.invalid++;
        }
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }),
);

process.on('message', (message: { secrets?: Record<string, string>; stats?: true }) => {
  if (message.secrets) {
    for (const [port, secret] of Object.entries(message.secrets)) verifiers.set(Number(port), new Webhook(secret));
    process.send!({ ready: true });
  }
  if (message.stats) process.send!({ stats });
});
process.on('disconnect', () => process.exit(0));
process.send!({ ports });
