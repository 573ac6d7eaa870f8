// Settings of the HTTP server, the database, secrets, logging and request budgets (the README lists them first).
import { isIP } from 'node:net';
import { email, integer, list, oneOf, secret, text, url } from './parsers.ts';
import { optionalSetting, setting, type Parser } from './setting.ts';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Which peers may say who the client is (X-Forwarded-For): none, or the proxies at these addresses and CIDRs. */
export type TrustProxy = false | string[];

/**
 * off, or a comma-separated list of IP addresses and CIDRs (handed to Fastify's `trustProxy`). No hop count:
 * Fastify ignores one (it cannot tell the proxy from a direct client claiming hops), so accepting it would only
 * pretend to work.
 */
const trustProxy: Parser<TrustProxy> = {
  read(raw, name, report) {
    if (['off', 'false', 'no', '0'].includes(raw.trim().toLowerCase())) return false;
    const items = list.read(raw, name, report) ?? [];
    const wrong = items.filter((item) => {
      const [address = '', prefix, ...rest] = item.split('/');
      const family = isIP(address);
      if (family === 0 || rest.length > 0) return true;
      return prefix !== undefined && !(/^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
    });
    if (items.length === 0 || wrong.length > 0) {
      report(`${name} must be off or comma-separated IP addresses and CIDRs of the proxies (got "${raw}")`);
      return undefined;
    }
    return items;
  },
  show: (value) => (value === false ? 'off' : value.join(',')),
};

export const SERVER_SETTINGS = {
  port: setting({ name: 'PORT', default: 8080, parse: integer(0, 65535), description: 'TCP port of the HTTP server.' }),
  host: setting({
    name: 'HOST',
    default: '127.0.0.1',
    parse: text,
    description: 'Interface the HTTP server binds to (`0.0.0.0` to listen on every interface).',
  }),
  dataDir: setting({
    name: 'HERALD_DATA_DIR',
    default: './.herald',
    parse: text,
    description:
      'Where Herald keeps its files: the embedded PostgreSQL cluster, the generated secret key, local media.',
  }),
  databaseUrl: optionalSetting({
    name: 'DATABASE_URL',
    parse: url(['postgres:', 'postgresql:']),
    description:
      'PostgreSQL connection string. Unset: Herald starts an embedded PostgreSQL in the data dir and stops it on exit.',
  }),
  databasePoolSize: setting({
    name: 'HERALD_DB_POOL_SIZE',
    default: 20,
    parse: integer(1, 1000),
    description: 'Connections per process in the PostgreSQL pool.',
  }),
  redisUrl: optionalSetting({
    name: 'REDIS_URL',
    parse: url(['redis:', 'rediss:']),
    description:
      'Redis connection string. Set it when several API processes must share rate-limit budgets; unset, budgets are per process.',
  }),
  publicUrl: optionalSetting({
    name: 'HERALD_PUBLIC_URL',
    shownDefault: 'http://HOST:PORT',
    parse: url(['http:', 'https:']),
    description:
      'The address clients use to reach Herald; signed URLs and links are built from it. Required by `--role worker`, which has no HOST:PORT of its own and reaches the simulators through it.',
  }),
  secretKey: optionalSetting({
    name: 'HERALD_SECRET_KEY',
    shownDefault: '(generated)',
    parse: secret(32),
    description:
      'Secret for encryption at rest and signatures (at least 32 characters). Unset with the embedded database: generated into the data dir with a warning. Required with `DATABASE_URL`.',
  }),
  previousSecretKeys: setting({
    name: 'HERALD_SECRET_KEYS_PREVIOUS',
    default: [],
    shownDefault: '(unset)',
    parse: list,
    description: 'Comma-separated former secret keys, still accepted to decrypt and verify after a rotation.',
  }),
  logLevel: setting<(typeof LOG_LEVELS)[number]>({
    name: 'HERALD_LOG_LEVEL',
    default: 'info',
    parse: oneOf(LOG_LEVELS),
    description: 'fatal, error, warn, info, debug, trace or silent.',
  }),
  logFormat: setting<'auto' | 'pretty' | 'json'>({
    name: 'HERALD_LOG_FORMAT',
    default: 'auto',
    parse: oneOf(['auto', 'pretty', 'json'] as const),
    description: 'auto (readable coloured lines when stdout is a terminal, JSON lines otherwise), pretty or json.',
  }),
  bodyLimitBytes: setting({
    name: 'HERALD_BODY_LIMIT_BYTES',
    default: 1024 * 1024,
    parse: integer(1024, 100 * 1024 * 1024),
    description: 'Largest JSON request body accepted (413 above it).',
  }),
  rateLimitReadPerMinute: setting({
    name: 'HERALD_RATE_LIMIT_READ_PER_MIN',
    default: 1200,
    parse: integer(1),
    description: 'Read budget per API key per minute (GET and other non-mutating calls).',
  }),
  rateLimitWritePerMinute: setting({
    name: 'HERALD_RATE_LIMIT_WRITE_PER_MIN',
    default: 300,
    parse: integer(1),
    description: 'Write budget per API key per minute (POST, PATCH, PUT, DELETE).',
  }),
  rateLimitAnonymousPerMinute: setting({
    name: 'HERALD_RATE_LIMIT_ANON_PER_MIN',
    default: 60,
    parse: integer(1),
    description: 'Budget per client IP for calls without a valid key.',
  }),
  trustProxy: setting<TrustProxy>({
    name: 'HERALD_TRUST_PROXY',
    default: false,
    parse: trustProxy,
    description:
      'Reverse proxies trusted to name the client in `X-Forwarded-For` (budgets per client address key on it): `off`, or the comma-separated addresses and CIDRs of the proxies.',
  }),
  headersTimeoutMs: setting({
    name: 'HERALD_HEADERS_TIMEOUT_MS',
    default: 10_000,
    parse: integer(100, 600_000),
    description: 'A client must send its request headers within this time; the connection is closed otherwise.',
  }),
  requestTimeoutMs: setting({
    name: 'HERALD_REQUEST_TIMEOUT_MS',
    default: 30_000,
    parse: integer(100, 3_600_000),
    description:
      'A client must send a whole request (headers and body) within this time, the local upload URL excepted; the connection is closed otherwise.',
  }),
  uploadTimeoutMs: setting({
    name: 'HERALD_UPLOAD_TIMEOUT_MS',
    default: 7_200_000,
    parse: integer(1_000, 86_400_000),
    description: 'The same deadline for an accepted upload to the local signed upload URL (large videos take long).',
  }),
  maxConnections: setting({
    name: 'HERALD_MAX_CONNECTIONS',
    default: 4096,
    parse: integer(1, 1_000_000),
    description: 'Open HTTP connections a process accepts in all; connections beyond are closed at once.',
  }),
  maxConnectionsPerIp: setting({
    name: 'HERALD_MAX_CONNECTIONS_PER_IP',
    // Herald's own workers count too: one reaching the simulators through an API node holds up to its publish
    // concurrency (400) of sockets from one address; at 128 the 10,000-post burst took 96 s instead of 6 s.
    default: 1024,
    parse: integer(1, 1_000_000),
    description:
      'Open HTTP connections accepted from one address (trusted proxies in `HERALD_TRUST_PROXY` excepted); connections beyond are closed at once.',
  }),
  shutdownTimeoutMs: setting({
    name: 'HERALD_SHUTDOWN_TIMEOUT_MS',
    default: 10_000,
    parse: integer(0, 600_000),
    description:
      'On SIGINT/SIGTERM, how long requests in flight get to finish; connections still open then are closed.',
  }),
  metricsToken: optionalSetting({
    name: 'HERALD_METRICS_TOKEN',
    parse: secret(16),
    description:
      'Bearer token `/metrics` requires (at least 16 characters). Unset: `/metrics` on the API port answers only clients on the loopback address, and not requests a proxy forwarded.',
  }),
  metricsPort: optionalSetting({
    name: 'HERALD_METRICS_PORT',
    parse: integer(0, 65535),
    description:
      'A port of its own serving `/metrics` (every role, workers included, which have no HTTP port otherwise). Unset: no metrics listener.',
  }),
  metricsHost: setting({
    name: 'HERALD_METRICS_HOST',
    default: '127.0.0.1',
    parse: text,
    description:
      'Interface the metrics listener binds to. Without `HERALD_METRICS_TOKEN` it answers anyone who can reach it, so keep it private.',
  }),
  ownerEmail: setting({
    name: 'HERALD_OWNER_EMAIL',
    default: 'owner@herald.local',
    parse: email,
    description: 'Email of the owner account created at first start.',
  }),
};
