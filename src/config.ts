// The only reader of process.env. Every setting is declared once in SETTINGS (name, default, meaning, parser);
// loadConfig validates all of them, reports every problem at once, and returns a frozen Config. The README's
// configuration table is checked against SETTINGS by a test, so the two cannot drift.
import path from 'node:path';
import { LINKEDIN_DEFAULT_VERSION } from './platforms/linkedin/version.ts';

export type Role = 'all' | 'api' | 'worker';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Unset: Herald runs its embedded PostgreSQL in the data dir. */
  databaseUrl: string | undefined;
  databasePoolSize: number;
  redisUrl: string | undefined;
  publicUrl: string;
  /** Unset: generated into the data dir (embedded default only). */
  secretKey: string | undefined;
  previousSecretKeys: string[];
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  bodyLimitBytes: number;
  rateLimits: { readPerMinute: number; writePerMinute: number; anonymousPerMinute: number };
  ownerEmail: string;
  /** Worker: how often graphile-worker polls for jobs that are due (ms). */
  workerPollIntervalMs: number;
  workerConcurrency: number;
  /** Publish jobs one worker process fetches and locks per query (graphile-worker's local queue); 1 = one at a time. */
  workerLocalQueue: number;
  /** Hosts, IPs and CIDRs exempt from the SSRF guard (user-chosen destinations only). */
  outboundAllowlist: string[];
  /** The simulated platforms (src/sandbox) and where sandbox connections reach them. */
  sandbox: { enabled: boolean; url: string; control: boolean; rateLimitFactor: number };
  /** Platform-wide adapter settings (real accounts). */
  platforms: {
    x: { apiUrl: string; clientId: string | undefined; clientSecret: string | undefined };
    bluesky: { serviceUrl: string };
    linkedin: { apiUrl: string; version: string; clientId: string | undefined; clientSecret: string | undefined };
    meta: { graphVersion: string };
  };
  /** The OAuth app (client id and secret) Herald signs users in with, per platform that has one configured. */
  platformApps: Partial<Record<OAuthAppPlatform, { clientId: string; clientSecret: string | undefined }>>;
  /** How long a connect link (`POST /v1/connections/connect-links`) can be used. */
  connectLinkTtlSeconds: number;
  /** Deadline of one platform API call (uploads get longer). */
  platformTimeoutMs: number;
  /** Publishing engine: worker liveness, overdue threshold, retry budget. */
  publishing: { heartbeatIntervalMs: number; workerDeadAfterMs: number; overdueAfterMs: number; maxAttempts: number };
  /** Browser origins besides the public URL's that may call /mcp (normalised origins). */
  mcpAllowedOrigins: string[];
  oauth: { accessTokenTtlSeconds: number; grantTtlDays: number };
  /** How long a dashboard / consent sign-in lasts. */
  sessionTtlHours: number;
  webhooks: {
    /** Deliveries one worker process sends at the same time (its own runner, apart from publishing). */
    concurrency: number;
    /** Deadline of one delivery attempt, connect to last byte. */
    timeoutMs: number;
    /** An endpoint whose every attempt has failed for this long is disabled. */
    disableAfterMs: number;
  };
  media: MediaConfig;
}

export interface S3Config {
  bucket: string;
  /** Unset: AWS S3 itself. Set for R2, MinIO and other S3-compatible stores. */
  endpoint: string | undefined;
  region: string;
  /** Both unset: the AWS SDK's default credential chain (instance roles, AWS_* variables). */
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  forcePathStyle: boolean;
}

export interface MediaConfig {
  storage: 'local' | 's3';
  /** Where the local driver keeps bytes: `$HERALD_DATA_DIR/media`. */
  localDir: string;
  /** Largest upload per kind, in bytes. */
  maxBytes: { image: number; video: number; document: number };
  uploadUrlTtlSeconds: number;
  readUrlTtlSeconds: number;
  /** Media no post refers to are deleted this many days after upload. */
  retentionDays: number;
  /** Set when `storage` is `s3`. */
  s3: S3Config | undefined;
}

/** Platforms whose OAuth app comes from configuration (`HERALD_<PLATFORM>_CLIENT_ID` / `_CLIENT_SECRET`). */
export const OAUTH_APP_PLATFORMS = ['x', 'linkedin', 'instagram', 'facebook', 'threads'] as const;
export type OAuthAppPlatform = (typeof OAUTH_APP_PLATFORMS)[number];
const OAUTH_APP_NAMES: Record<OAuthAppPlatform, string> = {
  x: 'X',
  linkedin: 'LinkedIn',
  instagram: 'Instagram',
  facebook: 'Facebook',
  threads: 'Threads',
};

export interface SettingSpec {
  name: string;
  default: string;
  description: string;
}

type Env = Record<string, string | undefined>;

class Problems {
  readonly list: string[] = [];
  add(message: string): void {
    this.list.push(message);
  }
}

function int(
  env: Env,
  name: string,
  fallback: number,
  problems: Problems,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    problems.add(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
    return fallback;
  }
  return value;
}

function url(env: Env, name: string, problems: Problems, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  try {
    const parsed = new URL(raw);
    if (!protocols.includes(parsed.protocol))
      problems.add(`${name} must use ${protocols.join(' or ')} (got "${parsed.protocol}")`);
    return raw;
  } catch {
    problems.add(`${name} is not a valid URL`);
    return undefined;
  }
}

/** A LinkedIn-Version: YYYYMM (LinkedIn also takes YYYYMM.NN patch versions). */
function linkedinVersion(env: Env, problems: Problems): string {
  const raw = env.HERALD_LINKEDIN_VERSION?.trim();
  if (raw === undefined || raw === '') return LINKEDIN_DEFAULT_VERSION;
  const m = /^(\d{4})(\d{2})(\.\d{2})?$/.exec(raw);
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 12) {
    problems.add(
      `HERALD_LINKEDIN_VERSION must be a LinkedIn API version in YYYYMM form, e.g. ${LINKEDIN_DEFAULT_VERSION} (got "${raw}")`,
    );
    return LINKEDIN_DEFAULT_VERSION;
  }
  return raw;
}

function flag(env: Env, name: string, fallback: boolean, problems: Problems): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['on', 'true', '1', 'yes'].includes(raw)) return true;
  if (['off', 'false', '0', 'no'].includes(raw)) return false;
  problems.add(`${name} must be on or off (got "${env[name]}")`);
  return fallback;
}

/** A comma-separated list of http(s) origins, each normalised to `scheme://host[:port]`. */
function origins(env: Env, name: string, problems: Problems): string[] {
  const list: string[] = [];
  for (const raw of (env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    try {
      const parsed = new URL(raw);
      if (
        (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') ||
        (parsed.pathname !== '/' && parsed.pathname !== '') ||
        parsed.search ||
        parsed.hash
      )
        throw new Error();
      list.push(parsed.origin);
    } catch {
      problems.add(`${name}: "${raw}" is not an origin like https://app.example.com`);
    }
  }
  return list;
}

/** Every environment variable Herald reads, with its default, in the order the README lists them. */
export const SETTINGS: SettingSpec[] = [
  { name: 'PORT', default: '8080', description: 'TCP port of the HTTP server.' },
  {
    name: 'HOST',
    default: '127.0.0.1',
    description: 'Interface the HTTP server binds to (`0.0.0.0` to listen on every interface).',
  },
  {
    name: 'HERALD_DATA_DIR',
    default: './.herald',
    description:
      'Where Herald keeps its files: the embedded PostgreSQL cluster, the generated secret key, local media.',
  },
  {
    name: 'DATABASE_URL',
    default: '(unset)',
    description:
      'PostgreSQL connection string. Unset: Herald starts an embedded PostgreSQL in the data dir and stops it on exit.',
  },
  { name: 'HERALD_DB_POOL_SIZE', default: '20', description: 'Connections per process in the PostgreSQL pool.' },
  {
    name: 'REDIS_URL',
    default: '(unset)',
    description:
      'Redis connection string. Set it when several API processes must share rate-limit budgets; unset, budgets are per process.',
  },
  {
    name: 'HERALD_PUBLIC_URL',
    default: 'http://HOST:PORT',
    description: 'The address clients use to reach Herald; signed URLs and links are built from it.',
  },
  {
    name: 'HERALD_SECRET_KEY',
    default: '(generated)',
    description:
      'Secret for encryption at rest and signatures (at least 32 characters). Unset with the embedded database: generated into the data dir with a warning. Required with `DATABASE_URL`.',
  },
  {
    name: 'HERALD_SECRET_KEYS_PREVIOUS',
    default: '(unset)',
    description: 'Comma-separated former secret keys, still accepted to decrypt and verify after a rotation.',
  },
  { name: 'HERALD_LOG_LEVEL', default: 'info', description: 'fatal, error, warn, info, debug, trace or silent.' },
  {
    name: 'HERALD_BODY_LIMIT_BYTES',
    default: '1048576',
    description: 'Largest JSON request body accepted (413 above it).',
  },
  {
    name: 'HERALD_RATE_LIMIT_READ_PER_MIN',
    default: '1200',
    description: 'Read budget per API key per minute (GET and other non-mutating calls).',
  },
  {
    name: 'HERALD_RATE_LIMIT_WRITE_PER_MIN',
    default: '300',
    description: 'Write budget per API key per minute (POST, PATCH, PUT, DELETE).',
  },
  {
    name: 'HERALD_RATE_LIMIT_ANON_PER_MIN',
    default: '60',
    description: 'Budget per client IP for calls without a valid key.',
  },
  {
    name: 'HERALD_OWNER_EMAIL',
    default: 'owner@herald.local',
    description: 'Email of the owner account created at first start.',
  },
  {
    name: 'HERALD_WORKER_POLL_INTERVAL_MS',
    default: '1000',
    description: 'How often the worker looks for jobs that have become due.',
  },
  {
    name: 'HERALD_WORKER_CONCURRENCY',
    default: '400',
    description:
      'Publish jobs one worker process runs at the same time (they mostly wait on platforms; their database work is batched).',
  },
  {
    name: 'HERALD_WORKER_LOCAL_QUEUE',
    default: '400',
    description: 'Publish jobs one worker process fetches and locks with one query; 1 fetches them one at a time.',
  },
  {
    name: 'HERALD_SANDBOX',
    default: 'on',
    description:
      'Serve the simulated platforms under `/sandbox/<platform>` (`off` to disable; test workspaces then cannot publish).',
  },
  {
    name: 'HERALD_SANDBOX_URL',
    default: 'HERALD_PUBLIC_URL/sandbox',
    description: 'Where workers reach the simulators of sandbox connections (any Herald API node serves them).',
  },
  {
    name: 'HERALD_SANDBOX_CONTROL',
    default: 'off',
    description:
      "Expose the simulators' control surface (`/_sandbox/faults`, `/_sandbox/posts`, `/_sandbox/reset`); for test rigs only.",
  },
  {
    name: 'HERALD_SANDBOX_RATE_LIMIT_FACTOR',
    default: '1',
    description: 'Multiplies every simulated rate limit (raise it for load tests).',
  },
  { name: 'HERALD_X_API_URL', default: 'https://api.x.com', description: 'X API host for real X connections.' },
  {
    name: 'HERALD_X_CLIENT_ID',
    default: '(unset)',
    description:
      'OAuth 2.0 client id of your X app (connect links and token refresh of real X connections). Unset: live workspaces cannot connect X accounts.',
  },
  {
    name: 'HERALD_X_CLIENT_SECRET',
    default: '(unset)',
    description: 'OAuth 2.0 client secret of your X app (confidential clients).',
  },
  {
    name: 'HERALD_BLUESKY_SERVICE_URL',
    default: 'https://bsky.social',
    description: 'Default PDS for `herald connections add bluesky` without `--service`.',
  },
  {
    name: 'HERALD_LINKEDIN_API_URL',
    default: 'https://api.linkedin.com',
    description: 'LinkedIn API host for real LinkedIn connections.',
  },
  {
    name: 'HERALD_LINKEDIN_VERSION',
    default: LINKEDIN_DEFAULT_VERSION,
    description:
      'The `LinkedIn-Version` (YYYYMM) sent on every LinkedIn REST call. LinkedIn retires each version about a year after its release; then targets fail with `PLATFORM_API_VERSION_RETIRED` until this is set to an active one.',
  },
  {
    name: 'HERALD_LINKEDIN_CLIENT_ID',
    default: '(unset)',
    description: 'Client id of your LinkedIn app (connecting real LinkedIn accounts, token refresh).',
  },
  { name: 'HERALD_LINKEDIN_CLIENT_SECRET', default: '(unset)', description: 'Client secret of your LinkedIn app.' },
  {
    name: 'HERALD_PLATFORM_TIMEOUT_MS',
    default: '15000',
    description:
      'Deadline of one platform API call; a call sent and unanswered by then has an unknown outcome and is reconciled, never blindly repeated.',
  },
  {
    name: 'HERALD_HEARTBEAT_INTERVAL_MS',
    default: '5000',
    description: 'How often each worker process records that it is alive.',
  },
  {
    name: 'HERALD_WORKER_DEAD_AFTER_MS',
    default: '30000',
    description: 'A worker silent this long is dead: its jobs are unlocked and its posts taken over.',
  },
  {
    name: 'HERALD_OVERDUE_AFTER_MS',
    default: '120000',
    description:
      'A post target due this long ago and not yet started is overdue: requeued, and /health/ready reports not ready.',
  },
  {
    name: 'HERALD_PUBLISH_MAX_ATTEMPTS',
    default: '8',
    description: 'Attempts per target for transient failures and rate limits before it fails.',
  },
  {
    name: 'HERALD_WEBHOOK_CONCURRENCY',
    default: '20',
    description:
      'Webhook deliveries one worker process sends at the same time. Deliveries have their own job runner, so a burst never delays publishing.',
  },
  {
    name: 'HERALD_WEBHOOK_TIMEOUT_MS',
    default: '10000',
    description:
      'Deadline of one webhook delivery attempt (connect to last byte); slower answers count as failures and are retried.',
  },
  {
    name: 'HERALD_WEBHOOK_DISABLE_AFTER_HOURS',
    default: '120',
    description:
      'A webhook endpoint whose every attempt has failed for this long (5 days by default) is disabled, and `webhook_endpoint.disabled` is emitted.',
  },
  {
    name: 'HERALD_MEDIA_STORAGE',
    default: 'local',
    description:
      'Where uploaded media go: `local` (`$HERALD_DATA_DIR/media`, signed URLs served by Herald; one API host only) or `s3` (any S3-compatible store; needed with more than one API host).',
  },
  { name: 'HERALD_MEDIA_MAX_IMAGE_BYTES', default: '20971520', description: 'Largest image upload (20 MiB).' },
  {
    name: 'HERALD_MEDIA_MAX_VIDEO_BYTES',
    default: '4294967296',
    description: 'Largest video upload (4 GiB). Each cap is at most 5 GiB, the most one S3 PUT takes.',
  },
  {
    name: 'HERALD_MEDIA_MAX_DOCUMENT_BYTES',
    default: '104857600',
    description: 'Largest document (PDF) upload (100 MiB).',
  },
  {
    name: 'HERALD_MEDIA_UPLOAD_URL_TTL_SECONDS',
    default: '3600',
    description: 'How long a signed upload URL stays valid (60 s to 7 days); the upload must start before it expires.',
  },
  {
    name: 'HERALD_MEDIA_READ_URL_TTL_SECONDS',
    default: '900',
    description: 'How long the signed download URL in a media record (`url`) stays valid (10 s to 7 days).',
  },
  {
    name: 'HERALD_MEDIA_RETENTION_DAYS',
    default: '30',
    description:
      'Media that no post refers to are deleted this many days after upload; uploads never completed go once their URL has expired.',
  },
  {
    name: 'HERALD_S3_BUCKET',
    default: '(unset)',
    description: 'Bucket for media with `HERALD_MEDIA_STORAGE=s3` (required then).',
  },
  {
    name: 'HERALD_S3_ENDPOINT',
    default: '(unset)',
    description: 'Endpoint of an S3-compatible store (R2, MinIO, …); unset: AWS S3.',
  },
  { name: 'HERALD_S3_REGION', default: 'us-east-1', description: 'Region of the bucket (`auto` for R2).' },
  {
    name: 'HERALD_S3_ACCESS_KEY_ID',
    default: '(unset)',
    description:
      'Access key for the bucket; with the secret below. Both unset: the AWS SDK default credential chain (instance role, `AWS_*` variables).',
  },
  { name: 'HERALD_S3_SECRET_ACCESS_KEY', default: '(unset)', description: 'Secret for `HERALD_S3_ACCESS_KEY_ID`.' },
  {
    name: 'HERALD_S3_FORCE_PATH_STYLE',
    default: 'false',
    description: '`true` for stores that need `endpoint/bucket/key` addressing (MinIO, most self-hosted stores).',
  },
  {
    name: 'HERALD_OUTBOUND_ALLOWLIST',
    default: '(empty)',
    description:
      'Comma-separated hostnames, IPs or CIDRs that user-chosen destinations (webhooks, Mastodon/Bluesky instances, media URLs) may reach although they are private or loopback; plain `http://` is accepted only for these.',
  },
  {
    name: 'HERALD_MCP_ALLOWED_ORIGINS',
    default: '(empty)',
    description:
      "Comma-separated browser origins (e.g. `https://app.example.com`) allowed to call `/mcp` besides the public URL's own; a request with any other `Origin` header gets 403.",
  },
  {
    name: 'HERALD_OAUTH_ACCESS_TOKEN_TTL_SECONDS',
    default: '3600',
    description: 'Life of the API key an OAuth client receives as its access token; a refresh replaces it.',
  },
  {
    name: 'HERALD_OAUTH_GRANT_TTL_DAYS',
    default: '30',
    description: 'Life of an OAuth grant (what a person consented to): after it, the client must ask the person again.',
  },
  {
    name: 'HERALD_SESSION_TTL_HOURS',
    default: '168',
    description: 'How long a browser sign-in (consent screen, dashboard) lasts.',
  },
  {
    name: 'HERALD_META_GRAPH_VERSION',
    default: 'v23.0',
    description:
      'Graph API version Herald speaks to Meta (Instagram, Facebook Pages), e.g. `v23.0`; raise it when Meta retires the one in use. Threads has its own `v1.0`.',
  },
  ...OAUTH_APP_PLATFORMS.filter((p) => p !== 'x' && p !== 'linkedin').flatMap((p) => [
    {
      name: `HERALD_${p.toUpperCase()}_CLIENT_ID`,
      default: '(unset)',
      description: `Client id of your ${OAUTH_APP_NAMES[p]} app. Unset: live workspaces cannot connect ${OAUTH_APP_NAMES[p]} accounts (test workspaces use the simulator).`,
    },
    {
      name: `HERALD_${p.toUpperCase()}_CLIENT_SECRET`,
      default: '(unset)',
      description: `Client secret of your ${OAUTH_APP_NAMES[p]} app.`,
    },
  ]),
  {
    name: 'HERALD_CONNECT_LINK_TTL_SECONDS',
    default: '1800',
    description: 'How long a connect link stays usable (60 s to 1 day); it works once.',
  },
];

function platformApps(env: Env, problems: Problems): Config['platformApps'] {
  const apps: Config['platformApps'] = {};
  for (const p of OAUTH_APP_PLATFORMS) {
    const clientId = env[`HERALD_${p.toUpperCase()}_CLIENT_ID`] || undefined;
    const clientSecret = env[`HERALD_${p.toUpperCase()}_CLIENT_SECRET`] || undefined;
    if (clientSecret && !clientId)
      problems.add(`HERALD_${p.toUpperCase()}_CLIENT_SECRET is set without HERALD_${p.toUpperCase()}_CLIENT_ID`);
    if (clientId) apps[p] = { clientId, clientSecret };
  }
  return apps;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** HERALD_META_GRAPH_VERSION: `v<major>.<minor>` as Meta names its Graph API versions. */
function graphVersion(env: Env, problems: Problems): string {
  const raw = (env.HERALD_META_GRAPH_VERSION ?? '').trim();
  if (!raw) return 'v23.0';
  if (!/^v\d{1,3}\.\d{1,2}$/.test(raw)) problems.add(`HERALD_META_GRAPH_VERSION must look like v23.0 (got "${raw}")`);
  return raw;
}

function bool(env: Env, name: string, fallback: boolean, problems: Problems): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  problems.add(`${name} must be true or false (got "${raw}")`);
  return fallback;
}

const MIB = 1024 * 1024;
const WEEK_SECONDS = 7 * 24 * 3600;

function mediaConfig(env: Env, dataDir: string, problems: Problems): MediaConfig {
  const storage = env.HERALD_MEDIA_STORAGE || 'local';
  if (storage !== 'local' && storage !== 's3')
    problems.add(`HERALD_MEDIA_STORAGE must be local or s3 (got "${storage}")`);
  let s3: S3Config | undefined;
  if (storage === 's3') {
    const bucket = env.HERALD_S3_BUCKET || '';
    if (!bucket) problems.add('HERALD_S3_BUCKET is required when HERALD_MEDIA_STORAGE is s3');
    const accessKeyId = env.HERALD_S3_ACCESS_KEY_ID || undefined;
    const secretAccessKey = env.HERALD_S3_SECRET_ACCESS_KEY || undefined;
    if ((accessKeyId === undefined) !== (secretAccessKey === undefined))
      problems.add('HERALD_S3_ACCESS_KEY_ID and HERALD_S3_SECRET_ACCESS_KEY go together: set both or neither');
    s3 = {
      bucket,
      endpoint: url(env, 'HERALD_S3_ENDPOINT', problems, ['http:', 'https:']),
      region: env.HERALD_S3_REGION || 'us-east-1',
      accessKeyId,
      secretAccessKey,
      forcePathStyle: bool(env, 'HERALD_S3_FORCE_PATH_STYLE', false, problems),
    };
  }
  return {
    storage: storage === 's3' ? 's3' : 'local',
    localDir: path.join(dataDir, 'media'),
    // 5 GiB is the most one S3 PUT (and one CopyObject) takes; the local driver keeps the same ceiling.
    maxBytes: {
      image: int(env, 'HERALD_MEDIA_MAX_IMAGE_BYTES', 20 * MIB, problems, 1, 5 * 1024 * MIB),
      video: int(env, 'HERALD_MEDIA_MAX_VIDEO_BYTES', 4096 * MIB, problems, 1, 5 * 1024 * MIB),
      document: int(env, 'HERALD_MEDIA_MAX_DOCUMENT_BYTES', 100 * MIB, problems, 1, 5 * 1024 * MIB),
    },
    uploadUrlTtlSeconds: int(env, 'HERALD_MEDIA_UPLOAD_URL_TTL_SECONDS', 3600, problems, 60, WEEK_SECONDS),
    readUrlTtlSeconds: int(env, 'HERALD_MEDIA_READ_URL_TTL_SECONDS', 900, problems, 10, WEEK_SECONDS),
    retentionDays: int(env, 'HERALD_MEDIA_RETENTION_DAYS', 30, problems, 1, 36_500),
    s3,
  };
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Reads and validates the environment. Throws a ConfigError listing every problem found. */
export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const problems = new Problems();
  const port = int(env, 'PORT', 8080, problems, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const publicUrl =
    url(env, 'HERALD_PUBLIC_URL', problems, ['http:', 'https:']) ??
    `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const databaseUrl = url(env, 'DATABASE_URL', problems, ['postgres:', 'postgresql:']);
  const secretKey = env.HERALD_SECRET_KEY || undefined;
  if (secretKey !== undefined && secretKey.length < 32)
    problems.add('HERALD_SECRET_KEY must be at least 32 characters');
  const previousSecretKeys = (env.HERALD_SECRET_KEYS_PREVIOUS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const logLevel = (env.HERALD_LOG_LEVEL || 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) problems.add(`HERALD_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const mcpAllowedOrigins = origins(env, 'HERALD_MCP_ALLOWED_ORIGINS', problems);
  const ownerEmail = env.HERALD_OWNER_EMAIL || 'owner@herald.local';
  if (!/^[^\s@]+@[^\s@]+$/.test(ownerEmail)) problems.add('HERALD_OWNER_EMAIL must be an email address');

  const dataDir = path.resolve(env.HERALD_DATA_DIR || './.herald');
  const config: Config = {
    port,
    host,
    dataDir,
    databaseUrl,
    databasePoolSize: int(env, 'HERALD_DB_POOL_SIZE', 20, problems, 1, 1000),
    redisUrl: url(env, 'REDIS_URL', problems, ['redis:', 'rediss:']),
    publicUrl: publicUrl.replace(/\/+$/, ''),
    secretKey,
    previousSecretKeys,
    logLevel,
    bodyLimitBytes: int(env, 'HERALD_BODY_LIMIT_BYTES', 1024 * 1024, problems, 1024, 100 * 1024 * 1024),
    rateLimits: {
      readPerMinute: int(env, 'HERALD_RATE_LIMIT_READ_PER_MIN', 1200, problems, 1),
      writePerMinute: int(env, 'HERALD_RATE_LIMIT_WRITE_PER_MIN', 300, problems, 1),
      anonymousPerMinute: int(env, 'HERALD_RATE_LIMIT_ANON_PER_MIN', 60, problems, 1),
    },
    ownerEmail,
    workerPollIntervalMs: int(env, 'HERALD_WORKER_POLL_INTERVAL_MS', 1000, problems, 50, 60_000),
    workerConcurrency: int(env, 'HERALD_WORKER_CONCURRENCY', 400, problems, 1, 1000),
    workerLocalQueue: int(env, 'HERALD_WORKER_LOCAL_QUEUE', 400, problems, 1, 10_000),
    outboundAllowlist: (env.HERALD_OUTBOUND_ALLOWLIST ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    sandbox: {
      enabled: flag(env, 'HERALD_SANDBOX', true, problems),
      url: (
        url(env, 'HERALD_SANDBOX_URL', problems, ['http:', 'https:']) ?? `${publicUrl.replace(/\/+$/, '')}/sandbox`
      ).replace(/\/+$/, ''),
      control: flag(env, 'HERALD_SANDBOX_CONTROL', false, problems),
      rateLimitFactor: int(env, 'HERALD_SANDBOX_RATE_LIMIT_FACTOR', 1, problems, 1, 1_000_000),
    },
    platforms: {
      x: {
        apiUrl: (url(env, 'HERALD_X_API_URL', problems, ['http:', 'https:']) ?? 'https://api.x.com').replace(
          /\/+$/,
          '',
        ),
        clientId: env.HERALD_X_CLIENT_ID || undefined,
        clientSecret: env.HERALD_X_CLIENT_SECRET || undefined,
      },
      bluesky: {
        serviceUrl: (
          url(env, 'HERALD_BLUESKY_SERVICE_URL', problems, ['http:', 'https:']) ?? 'https://bsky.social'
        ).replace(/\/+$/, ''),
      },
      linkedin: {
        apiUrl: (
          url(env, 'HERALD_LINKEDIN_API_URL', problems, ['http:', 'https:']) ?? 'https://api.linkedin.com'
        ).replace(/\/+$/, ''),
        version: linkedinVersion(env, problems),
        clientId: env.HERALD_LINKEDIN_CLIENT_ID || undefined,
        clientSecret: env.HERALD_LINKEDIN_CLIENT_SECRET || undefined,
      },
      meta: { graphVersion: graphVersion(env, problems) },
    },
    platformApps: platformApps(env, problems),
    connectLinkTtlSeconds: int(env, 'HERALD_CONNECT_LINK_TTL_SECONDS', 1800, problems, 60, 86_400),
    platformTimeoutMs: int(env, 'HERALD_PLATFORM_TIMEOUT_MS', 15_000, problems, 100, 600_000),
    publishing: {
      heartbeatIntervalMs: int(env, 'HERALD_HEARTBEAT_INTERVAL_MS', 5000, problems, 100, 60_000),
      workerDeadAfterMs: int(env, 'HERALD_WORKER_DEAD_AFTER_MS', 30_000, problems, 500, 3_600_000),
      overdueAfterMs: int(env, 'HERALD_OVERDUE_AFTER_MS', 120_000, problems, 1000, 86_400_000),
      maxAttempts: int(env, 'HERALD_PUBLISH_MAX_ATTEMPTS', 8, problems, 1, 100),
    },
    mcpAllowedOrigins,
    oauth: {
      accessTokenTtlSeconds: int(env, 'HERALD_OAUTH_ACCESS_TOKEN_TTL_SECONDS', 3600, problems, 60, 7 * 86_400),
      grantTtlDays: int(env, 'HERALD_OAUTH_GRANT_TTL_DAYS', 30, problems, 1, 3650),
    },
    sessionTtlHours: int(env, 'HERALD_SESSION_TTL_HOURS', 168, problems, 1, 24 * 365),
    webhooks: {
      concurrency: int(env, 'HERALD_WEBHOOK_CONCURRENCY', 20, problems, 1, 1000),
      timeoutMs: int(env, 'HERALD_WEBHOOK_TIMEOUT_MS', 10_000, problems, 100, 60_000),
      disableAfterMs: int(env, 'HERALD_WEBHOOK_DISABLE_AFTER_HOURS', 120, problems, 1, 24 * 365) * 3_600_000,
    },
    media: mediaConfig(env, dataDir, problems),
    ...overrides,
  };
  if (config.databaseUrl && !config.secretKey) {
    problems.add(
      'HERALD_SECRET_KEY is required when DATABASE_URL is set (every process sharing the database must use the same key)',
    );
  }
  if (problems.list.length > 0) throw new ConfigError(problems.list);
  return Object.freeze(config);
}
