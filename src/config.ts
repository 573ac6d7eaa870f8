// The only reader of process.env. Each setting is declared once in src/config/ (name, parser, default, meaning);
// loadConfig reads them from the environment, reports every problem at once, and returns a frozen Config. The
// configuration tables of the README and docs/api.md are generated from the same declarations and tested.
import path from 'node:path';
import { ACCESS_SETTINGS } from './config/access.ts';
import { aiConfig, type AiConfig } from './config/ai.ts';
import { mailConfig, type MailConfig } from './config/mail.ts';
import { MEDIA_SETTINGS, S3_SETTINGS } from './config/media.ts';
import { resolveProgram } from './lib/executables.ts';
import {
  CONNECT_LINK_SETTINGS,
  META_SETTINGS,
  OAUTH_APP_PLATFORMS,
  OAUTH_APP_SETTINGS,
  PLATFORM_API_SETTINGS,
  SANDBOX_SETTINGS,
  type OAuthAppPlatform,
} from './config/platforms.ts';
import { SERVER_SETTINGS, type TrustProxy } from './config/server.ts';
import { settingsReader, type Env, type ReadSetting, type Report } from './config/setting.ts';
import { PUBLISHING_SETTINGS, WEBHOOK_SETTINGS, WORKER_SETTINGS } from './config/workers.ts';
import { ANALYTICS_SETTINGS } from './config/analytics.ts';
import { AUTOMATION_SETTINGS } from './config/automations.ts';
import { INBOX_INGEST_SETTINGS } from './config/inbox-ingest.ts';

export { OAUTH_APP_PLATFORMS, type OAuthAppPlatform } from './config/platforms.ts';
export type { AiConfig } from './config/ai.ts';
export { SETTINGS } from './config/table.ts';
export type { Setting } from './config/setting.ts';

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
  /** True when HERALD_PUBLIC_URL was not set and `publicUrl` is this process's own HOST:PORT (see requireAddresses). */
  publicUrlDefaulted?: boolean;
  /** Unset: generated into the data dir (embedded default only). */
  secretKey: string | undefined;
  previousSecretKeys: string[];
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  logFormat: 'auto' | 'pretty' | 'json';
  bodyLimitBytes: number;
  rateLimits: { readPerMinute: number; writePerMinute: number; anonymousPerMinute: number };
  ownerEmail: string;
  /** Who may read /metrics (a bearer token; unset: loopback clients only), and the optional listener of its own. */
  metrics: { token: string | undefined; port: number | undefined; host: string };
  /** The HTTP server's guards against slow and numerous clients, and whom it believes about the client's address. */
  http: {
    trustProxy: TrustProxy;
    headersTimeoutMs: number;
    /** Whole request (headers and body), the local upload URL excepted. */
    requestTimeoutMs: number;
    /** Whole request for an accepted upload to the local signed upload URL. */
    uploadTimeoutMs: number;
    maxConnections: number;
    maxConnectionsPerIp: number;
    /** Grace of in-flight requests at shutdown; connections still open then are destroyed. */
    shutdownTimeoutMs: number;
  };
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
    pinterest: { apiUrl: string };
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
  /** Metrics sync (docs/analytics.md "Sync"): days a published target keeps being read, targets per pass. */
  analytics: { syncMaxAgeDays: number; syncBatchSize: number };
  /** Content automations (docs/automations.md "Settings"): feed poll interval, auto-pause, scheduler batch. */
  automations: { rssPollMinutes: number; pauseAfterFailures: number; schedulerBatch: number };
  /** Inbox ingestion (docs/inbox.md "Ingestion"): poll interval, streams per pass, pages per poll; sandbox trickle. */
  inboxIngest: { pollSeconds: number; batchSize: number; maxPages: number; sandboxEverySeconds: number };
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
    /** Days events stay readable through GET /v1/events before the hourly prune removes them (≥ 30). */
    eventRetentionDays: number;
  };
  media: MediaConfig;
  ai: AiConfig;
  /** Outgoing email (invites): off unless an SMTP server is configured. */
  mail: MailConfig;
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
  /** The most one fetch of media by URL may take. */
  fetchTimeoutSeconds: number;
  /** Hosts a custom GPT action's file references (`openaiFileIdRefs`) may be fetched from. */
  actionsFileHosts: string[];
  /** FFmpeg's ffprobe (HERALD_FFPROBE, or found on the PATH); null: Herald's own MP4/MOV reader only. */
  ffprobe: string | null;
  /** FFmpeg's ffmpeg (HERALD_FFMPEG, or found on the PATH); null: videos are not transcoded. */
  ffmpeg: string | null;
  /** Media no post refers to are deleted this many days after upload. */
  retentionDays: number;
  /** Conversions (media variants) one process runs at once. */
  conversions: number;
  /** Set when `storage` is `s3`. */
  s3: S3Config | undefined;
}

function platformApps(read: ReadSetting, report: Report): Config['platformApps'] {
  const apps: Config['platformApps'] = {};
  for (const p of OAUTH_APP_PLATFORMS) {
    const { clientId: idSetting, clientSecret: secretSetting } = OAUTH_APP_SETTINGS[p];
    const clientId = read(idSetting);
    const clientSecret = read(secretSetting);
    if (clientSecret && !clientId) report(`${secretSetting.name} is set without ${idSetting.name}`);
    if (clientId) apps[p] = { clientId, clientSecret };
  }
  return apps;
}

function mediaConfig(
  read: ReadSetting,
  dataDir: string,
  report: Report,
  pathVariable: string | undefined,
): MediaConfig {
  const storage = read(MEDIA_SETTINGS.storage);
  let s3: S3Config | undefined;
  // The bucket's settings are read (and checked) only for the s3 driver.
  if (storage === 's3') {
    const bucket = read(S3_SETTINGS.bucket) ?? '';
    if (!bucket) report('HERALD_S3_BUCKET is required when HERALD_MEDIA_STORAGE is s3');
    const accessKeyId = read(S3_SETTINGS.accessKeyId);
    const secretAccessKey = read(S3_SETTINGS.secretAccessKey);
    if ((accessKeyId === undefined) !== (secretAccessKey === undefined))
      report('HERALD_S3_ACCESS_KEY_ID and HERALD_S3_SECRET_ACCESS_KEY go together: set both or neither');
    s3 = {
      bucket,
      endpoint: read(S3_SETTINGS.endpoint),
      region: read(S3_SETTINGS.region),
      accessKeyId,
      secretAccessKey,
      forcePathStyle: read(S3_SETTINGS.forcePathStyle),
    };
  }
  return {
    storage,
    localDir: path.join(dataDir, 'media'),
    maxBytes: {
      image: read(MEDIA_SETTINGS.maxImageBytes),
      video: read(MEDIA_SETTINGS.maxVideoBytes),
      document: read(MEDIA_SETTINGS.maxDocumentBytes),
    },
    uploadUrlTtlSeconds: read(MEDIA_SETTINGS.uploadUrlTtlSeconds),
    readUrlTtlSeconds: read(MEDIA_SETTINGS.readUrlTtlSeconds),
    conversions: read(MEDIA_SETTINGS.conversions),
    fetchTimeoutSeconds: read(MEDIA_SETTINGS.fetchTimeoutSeconds),
    actionsFileHosts: read(MEDIA_SETTINGS.actionsFileHosts).map((h) => h.toLowerCase()),
    ffprobe: resolveProgram(read(MEDIA_SETTINGS.ffprobe), 'ffprobe', pathVariable),
    ffmpeg: resolveProgram(read(MEDIA_SETTINGS.ffmpeg), 'ffmpeg', pathVariable),
    retentionDays: read(MEDIA_SETTINGS.retentionDays),
    s3,
  };
}

/**
 * The addresses a role needs that it cannot default. A worker has no HTTP port, so "its own HOST:PORT" (the
 * default of HERALD_PUBLIC_URL, and through it of HERALD_SANDBOX_URL) is an address nobody listens on: it would
 * publish to nowhere and retry each post until it fails. It refuses to start instead, naming the setting.
 */
export function requireAddresses(config: Config, role: Role): void {
  if (role !== 'worker' || !config.publicUrlDefaulted) return;
  throw new ConfigError([
    'HERALD_PUBLIC_URL is not set. A worker (--role worker) has no HTTP port of its own, so it cannot default to HOST:PORT: set HERALD_PUBLIC_URL to the address every process shares (the load balancer in front of the API processes; docs/deploy.md). Workers reach the simulated platforms, and build the media links platforms fetch, through it.',
  ]);
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
  const problems: string[] = [];
  const report: Report = (problem) => problems.push(problem);
  const read = settingsReader(env, report);
  // Settings are read in the order their problems are listed.
  const port = read(SERVER_SETTINGS.port);
  const host = read(SERVER_SETTINGS.host);
  const publicUrlSetting = read(SERVER_SETTINGS.publicUrl);
  const publicUrl = (publicUrlSetting ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(
    /\/+$/,
    '',
  );
  const databaseUrl = read(SERVER_SETTINGS.databaseUrl);
  const secretKey = read(SERVER_SETTINGS.secretKey);
  const previousSecretKeys = read(SERVER_SETTINGS.previousSecretKeys);
  const logLevel = read(SERVER_SETTINGS.logLevel);
  const mcpAllowedOrigins = read(ACCESS_SETTINGS.mcpAllowedOrigins);
  const ownerEmail = read(SERVER_SETTINGS.ownerEmail);

  const dataDir = path.resolve(read(SERVER_SETTINGS.dataDir));
  const config: Config = {
    port,
    host,
    dataDir,
    databaseUrl,
    databasePoolSize: read(SERVER_SETTINGS.databasePoolSize),
    redisUrl: read(SERVER_SETTINGS.redisUrl),
    publicUrl,
    publicUrlDefaulted: publicUrlSetting === undefined,
    secretKey,
    previousSecretKeys,
    logLevel,
    logFormat: read(SERVER_SETTINGS.logFormat),
    bodyLimitBytes: read(SERVER_SETTINGS.bodyLimitBytes),
    rateLimits: {
      readPerMinute: read(SERVER_SETTINGS.rateLimitReadPerMinute),
      writePerMinute: read(SERVER_SETTINGS.rateLimitWritePerMinute),
      anonymousPerMinute: read(SERVER_SETTINGS.rateLimitAnonymousPerMinute),
    },
    ownerEmail,
    metrics: {
      token: read(SERVER_SETTINGS.metricsToken),
      port: read(SERVER_SETTINGS.metricsPort),
      host: read(SERVER_SETTINGS.metricsHost),
    },
    http: {
      trustProxy: read(SERVER_SETTINGS.trustProxy),
      headersTimeoutMs: read(SERVER_SETTINGS.headersTimeoutMs),
      requestTimeoutMs: read(SERVER_SETTINGS.requestTimeoutMs),
      uploadTimeoutMs: read(SERVER_SETTINGS.uploadTimeoutMs),
      maxConnections: read(SERVER_SETTINGS.maxConnections),
      maxConnectionsPerIp: read(SERVER_SETTINGS.maxConnectionsPerIp),
      shutdownTimeoutMs: read(SERVER_SETTINGS.shutdownTimeoutMs),
    },
    workerPollIntervalMs: read(WORKER_SETTINGS.pollIntervalMs),
    workerConcurrency: read(WORKER_SETTINGS.concurrency),
    workerLocalQueue: read(WORKER_SETTINGS.localQueue),
    outboundAllowlist: read(ACCESS_SETTINGS.outboundAllowlist),
    sandbox: {
      enabled: read(SANDBOX_SETTINGS.enabled),
      url: read(SANDBOX_SETTINGS.url) ?? `${publicUrl}/sandbox`,
      control: read(SANDBOX_SETTINGS.control),
      rateLimitFactor: read(SANDBOX_SETTINGS.rateLimitFactor),
    },
    platforms: {
      x: {
        apiUrl: read(PLATFORM_API_SETTINGS.xApiUrl),
        clientId: read(PLATFORM_API_SETTINGS.xClientId),
        clientSecret: read(PLATFORM_API_SETTINGS.xClientSecret),
      },
      bluesky: { serviceUrl: read(PLATFORM_API_SETTINGS.blueskyServiceUrl) },
      pinterest: { apiUrl: read(PLATFORM_API_SETTINGS.pinterestApiUrl) },
      linkedin: {
        apiUrl: read(PLATFORM_API_SETTINGS.linkedinApiUrl),
        version: read(PLATFORM_API_SETTINGS.linkedinVersion),
        clientId: read(PLATFORM_API_SETTINGS.linkedinClientId),
        clientSecret: read(PLATFORM_API_SETTINGS.linkedinClientSecret),
      },
      meta: { graphVersion: read(META_SETTINGS.graphVersion) },
    },
    platformApps: platformApps(read, report),
    connectLinkTtlSeconds: read(CONNECT_LINK_SETTINGS.ttlSeconds),
    platformTimeoutMs: read(PUBLISHING_SETTINGS.platformTimeoutMs),
    publishing: {
      heartbeatIntervalMs: read(PUBLISHING_SETTINGS.heartbeatIntervalMs),
      workerDeadAfterMs: read(PUBLISHING_SETTINGS.workerDeadAfterMs),
      overdueAfterMs: read(PUBLISHING_SETTINGS.overdueAfterMs),
      maxAttempts: read(PUBLISHING_SETTINGS.maxAttempts),
    },
    analytics: {
      syncMaxAgeDays: read(ANALYTICS_SETTINGS.syncMaxAgeDays),
      syncBatchSize: read(ANALYTICS_SETTINGS.syncBatchSize),
    },
    automations: {
      rssPollMinutes: read(AUTOMATION_SETTINGS.rssPollMinutes),
      pauseAfterFailures: read(AUTOMATION_SETTINGS.pauseAfterFailures),
      schedulerBatch: read(AUTOMATION_SETTINGS.schedulerBatch),
    },
    inboxIngest: {
      pollSeconds: read(INBOX_INGEST_SETTINGS.pollSeconds),
      batchSize: read(INBOX_INGEST_SETTINGS.pollBatchSize),
      maxPages: read(INBOX_INGEST_SETTINGS.maxPages),
      sandboxEverySeconds: read(INBOX_INGEST_SETTINGS.sandboxEverySeconds),
    },
    mcpAllowedOrigins,
    oauth: {
      accessTokenTtlSeconds: read(ACCESS_SETTINGS.oauthAccessTokenTtlSeconds),
      grantTtlDays: read(ACCESS_SETTINGS.oauthGrantTtlDays),
    },
    sessionTtlHours: read(ACCESS_SETTINGS.sessionTtlHours),
    webhooks: {
      concurrency: read(WEBHOOK_SETTINGS.concurrency),
      timeoutMs: read(WEBHOOK_SETTINGS.timeoutMs),
      disableAfterMs: read(WEBHOOK_SETTINGS.disableAfterHours) * 3_600_000,
      eventRetentionDays: read(WEBHOOK_SETTINGS.eventRetentionDays),
    },
    media: mediaConfig(read, dataDir, report, env.PATH),
    ai: aiConfig(read, report),
    mail: mailConfig(read, publicUrl),
    ...overrides,
  };
  if (config.databaseUrl && !config.secretKey) {
    report(
      'HERALD_SECRET_KEY is required when DATABASE_URL is set (every process sharing the database must use the same key)',
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}
