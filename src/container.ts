// The composition root: builds every long-lived object once, from the config, as plain objects. The HTTP
// server, the worker, the CLI and the tests all start from here.
import type { Config } from './config.ts';
import { createPool, type Pool } from './db/pool.ts';
import { createAiService, type AiService } from './features/ai/ai.service.ts';
import { createRepurposeService, type RepurposeService } from './features/repurpose/repurpose.service.ts';
import { createBulkImportService, type BulkImportService } from './features/bulk-import/bulk-import.service.ts';
import { createAutomationsService, type AutomationsService } from './features/automations/automations.service.ts';
import { feedCaps } from './features/automations/automations.feed.ts';
import { createInboxService, type InboxService } from './features/inbox/inbox.service.ts';
import { createInboxAutomationsService, type InboxAutomationsService } from './features/inbox/automations.service.ts';
import { sendPlatformReply } from './features/inbox/platform-reply.ts';
import type { ReplySender } from './features/inbox/replies.ts';
import { createAuthenticator, type Authenticator } from './features/keys/authenticator.ts';
import { createMediaService, type MediaService } from './features/media/media.service.ts';
import { createMediaStorage } from './features/media/storage/create.ts';
import { signedReadUrlRules } from './features/media/storage/read-url-rules.ts';
import { createPostsService, type PostsService } from './features/posts/posts.service.ts';
import { createQueueClaims } from './features/queues/queues.claims.ts';
import { createQueuesService, type QueuesService } from './features/queues/queues.service.ts';
import { createApprovalsService, type ApprovalsService } from './features/approvals/approvals.service.ts';
import { createWebhooksService, type WebhooksService } from './features/webhooks/webhooks.service.ts';
import { createEventsService, type EventsService } from './features/events/events.service.ts';
import { createAnalyticsService, type AnalyticsService } from './features/analytics/analytics.service.ts';
import { createCalendarService, type CalendarService } from './features/calendar/calendar.service.ts';
import { createRecyclingService, type RecyclingService } from './features/recycling/recycling.service.ts';
import { createMemoryStore, createRateLimiter, createRedisStore, type RateLimiter } from './app/rate-limit.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import type { SecretKeyring } from './lib/crypto.ts';
import type { Logger } from './lib/logger.ts';
import { createSmtpMailer, type Mailer } from './lib/mailer.ts';
import { createMetrics, type Metrics } from './lib/metrics.ts';
import { registerFleetGauges } from './jobs/fleet-metrics.ts';
import { createOutboundGuard, type LookupFn, type OutboundGuard } from './lib/ssrf.ts';
import { INSTAGRAM_API_URL } from './platforms/instagram/index.ts';
import { THREADS_API_URL } from './platforms/threads/index.ts';
import { TIKTOK_API_URL } from './platforms/tiktok/index.ts';
import { YOUTUBE_API_URL } from './platforms/youtube/index.ts';
import { GOOGLEBUSINESS_API_URL } from './platforms/googlebusiness/index.ts';
import { hmac } from './lib/crypto.ts';
import type { PlatformAccess } from './features/connections/platform-access.ts';
import { mediaLibraryFrom, type MediaLibrary } from './features/publishing/media-library.ts';
import { createPlatformRegistry, type PlatformRegistry } from './platforms/registry.ts';
import { FACEBOOK_GRAPH_URL } from './platforms/facebook/client.ts';
import { pgStore } from './sandbox/framework/store-pg.ts';
import { simulatorsOnFirstUse, type SandboxSimulators } from './sandbox/simulators.ts';

export interface Container {
  config: Config;
  logger: Logger;
  clock: Clock;
  pool: Pool;
  /** The database the pool talks to (for LISTEN connections and child processes). */
  connectionString: string;
  keyring: SecretKeyring;
  metrics: Metrics;
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  /** The SSRF guard for user-chosen destinations (webhooks, instances, media URLs). */
  outboundGuard: OutboundGuard;
  posts: PostsService;
  /** The review queue and its policy; decisions act on posts through `posts`. */
  approvals: ApprovalsService;
  /** The platform adapters Herald has. */
  platforms: PlatformRegistry;
  /** How the engine reaches the platform behind a connection (hosts, SSRF guard, sealed credentials). */
  platformAccess: PlatformAccess;
  /** The simulated platforms this process serves under /sandbox (none when HERALD_SANDBOX=off), built on first use. */
  simulators: SandboxSimulators;
  webhooks: WebhooksService;
  /** The events API: the outbox read back (GET /v1/events). */
  events: EventsService;
  /** Analytics: post metrics, summaries, the CSV export and insights (docs/analytics.md). */
  analytics: AnalyticsService;
  /** The calendar over posts and automation runs, and its ICS feeds (docs/calendar.md). */
  calendar: CalendarService;
  /** Posting queues with weekly time slots (docs/queues.md); posts join them through `posts`. */
  queues: QueuesService;
  /** Evergreen recycling's rules (docs/queues.md "Recycling"); the worker's `recycle_posts` task makes the copies. */
  recycling: RecyclingService;
  /** Uploads, media records, and the streams and signed URLs the publishing engine reads media through. */
  media: MediaService;
  /** Where publishing reads a post's media from (the media feature's storage). */
  mediaLibrary: MediaLibrary;
  /** Text generation: the configured provider with the deterministic engine behind it (docs/ai.md). */
  ai: AiService;
  /** Repurpose jobs (docs/repurpose.md); the worker's `repurpose` task does their work. */
  repurpose: RepurposeService;
  /** Bulk imports of posts (docs/queues.md "Bulk import"); the worker's `import_posts` task creates the posts. */
  bulkImport: BulkImportService;
  /** Content automations (docs/automations.md); the worker's `schedule_automations` and `run_automation` run them. */
  automations: AutomationsService;
  /** The inbox API (docs/inbox.md): items, drafts, replies. */
  inbox: InboxService;
  /** Inbox automations and their runs (docs/inbox.md "Automations"). */
  inboxAutomations: InboxAutomationsService;
  /** Where every inbox reply goes: the platform through its adapter (tests replace `send`). */
  inboxSender: { send: ReplySender };
  /** Sends invite emails through HERALD_SMTP_URL; unset without it (invites are then links only). */
  mailer: Mailer | undefined;
  close(): Promise<void>;
}

export interface ContainerOptions {
  config: Config;
  logger: Logger;
  connectionString: string;
  keyring: SecretKeyring;
  clock?: Clock;
  /** DNS resolution for the SSRF guard; tests inject one to map names without a network. */
  lookup?: LookupFn;
  /** Replaces the media feature as the engine's source of media bytes (tests). */
  mediaLibrary?: MediaLibrary;
}

/** The adapters and how to reach each connection's platform, from the config (the CLI builds the same). */
export function createPlatformAccess(
  config: Config,
  keyring: SecretKeyring,
  guard: OutboundGuard,
  clock: Clock = systemClock,
): PlatformAccess {
  return {
    registry: createPlatformRegistry({
      ...Object.fromEntries(
        Object.entries(config.platformApps).map(([p, app]) => [
          p,
          { clientId: app.clientId, clientSecret: app.clientSecret },
        ]),
      ),
      x: {
        apiUrl: config.platforms.x.apiUrl,
        clientId: config.platforms.x.clientId,
        clientSecret: config.platforms.x.clientSecret,
      },
      linkedin: {
        apiUrl: config.platforms.linkedin.apiUrl,
        clientId: config.platforms.linkedin.clientId,
        clientSecret: config.platforms.linkedin.clientSecret,
        apiVersion: config.platforms.linkedin.version,
      },
      instagram: { ...config.platformApps.instagram, apiVersion: config.platforms.meta.graphVersion },
      facebook: { ...config.platformApps.facebook, apiVersion: config.platforms.meta.graphVersion },
    }),
    keyring,
    guard,
    sandboxUrl: config.sandbox.url,
    timeoutMs: config.platformTimeoutMs,
    clock,
    publicUrl: config.publicUrl,
    sandboxEnabled: config.sandbox.enabled,
    apps: Object.fromEntries(
      Object.entries(config.platformApps).map(([p, app]) => [
        p,
        { clientId: app.clientId, clientSecret: app.clientSecret ?? null },
      ]),
    ),
    platformUrls: {
      x: config.platforms.x.apiUrl,
      bluesky: config.platforms.bluesky.serviceUrl,
      linkedin: config.platforms.linkedin.apiUrl,
      facebook: FACEBOOK_GRAPH_URL,
      instagram: INSTAGRAM_API_URL,
      threads: THREADS_API_URL,
      tiktok: TIKTOK_API_URL,
      youtube: YOUTUBE_API_URL,
      pinterest: config.platforms.pinterest.apiUrl,
      googlebusiness: GOOGLEBUSINESS_API_URL,
    },
  };
}

/**
 * The simulators, when the sandbox is on. Their tokens are signed with a key derived from Herald's secret, so
 * sandbox connections survive restarts and a CLI process can connect accounts the server's simulators accept.
 * Nothing of them is loaded until their first use: a deployment on real platforms never pays for them.
 */
export function createConfiguredSimulators(config: Config, keyring: SecretKeyring, pool: Pool): SandboxSimulators {
  if (!config.sandbox.enabled) return simulatorsOnFirstUse(null);
  // Simulators that fetch media by URL (Instagram, Threads) fetch Herald's own signed read URLs and nothing else:
  // anyone can get a simulator token, and any other URL would let them probe what Herald reaches.
  const mediaFetchUrls = signedReadUrlRules(config);
  return simulatorsOnFirstUse({
    secret: hmac(keyring, 'sandbox-simulators', 'v1'),
    control: config.sandbox.control,
    rateLimitFactor: config.sandbox.rateLimitFactor,
    settings: { mediaFetchUrls, inboxEverySeconds: config.inboxIngest.sandboxEverySeconds },
    // Their state is in PostgreSQL (the `sandbox` schema): it survives restarts and every API node shares it.
    store: (name) => pgStore(pool, name),
  });
}

export function buildContainer(options: ContainerOptions): Container {
  const { config, logger, connectionString, keyring } = options;
  const clock = options.clock ?? systemClock;
  const pool = createPool(connectionString, config.databasePoolSize);
  const metrics = createMetrics();
  metrics.watchPool('main', pool);
  // Every node serves the fleet's gauges (read from the database), so any one scrape sees the workers' state.
  registerFleetGauges(metrics.registry, pool, config.publishing);
  const authenticator = createAuthenticator({ pool, clock, logger });
  const store = config.redisUrl
    ? createRedisStore(config.redisUrl, logger, () => metrics.rateLimitStoreErrors.inc())
    : createMemoryStore();
  const rateLimiter = createRateLimiter(store);
  const outboundGuard = createOutboundGuard({ allowlist: config.outboundAllowlist, lookup: options.lookup });
  const platformAccess = createPlatformAccess(config, keyring, outboundGuard, clock);
  const platforms = platformAccess.registry;
  const simulators = createConfiguredSimulators(config, keyring, pool);
  const media = createMediaService({
    pool,
    storage: createMediaStorage(config, keyring),
    config: config.media,
    clock,
    logger,
    guard: outboundGuard,
  });
  // Queue slot claims run on a pool of their own: adds wait for them while holding a connection of the main pool.
  const claimsPool = createPool(connectionString, 4, 'herald-queue-claims');
  const posts = createPostsService({ clock, media, platforms, queueClaims: createQueueClaims(claimsPool) });
  const approvals = createApprovalsService({ clock, posts });
  const webhooks = createWebhooksService({ clock, keyring, guard: outboundGuard });
  const ai = createAiService({ config: config.ai, pool, clock, logger, metrics });
  const inboxSender: { send: ReplySender } = {
    send: (item, text, opts) => sendPlatformReply({ pool, access: platformAccess, logger, clock }, item, text, opts),
  };
  return {
    config,
    logger,
    clock,
    pool,
    connectionString,
    keyring,
    metrics,
    authenticator,
    rateLimiter,
    outboundGuard,
    posts,
    approvals,
    webhooks,
    events: createEventsService(),
    analytics: createAnalyticsService({ ai, clock }),
    calendar: createCalendarService({ clock, posts, publicUrl: config.publicUrl }),
    recycling: createRecyclingService({ clock }),
    queues: createQueuesService({ clock, media }),
    media,
    platforms,
    platformAccess,
    simulators,
    mediaLibrary: options.mediaLibrary ?? mediaLibraryFrom(media, pool, clock),
    ai,
    repurpose: createRepurposeService({ clock, guard: outboundGuard }),
    bulkImport: createBulkImportService({ guard: outboundGuard, posts, media }),
    automations: createAutomationsService({
      clock,
      guard: outboundGuard,
      ai,
      posts,
      caps: feedCaps(outboundGuard, config.media.fetchTimeoutSeconds),
      rssPollMinutes: config.automations.rssPollMinutes,
    }),
    inbox: createInboxService({ clock, ai, sender: inboxSender }),
    inboxAutomations: createInboxAutomationsService(),
    inboxSender,
    mailer: config.mail.smtpUrl
      ? createSmtpMailer({ url: config.mail.smtpUrl, from: config.mail.from, fromName: 'Herald' })
      : undefined,
    async close() {
      await authenticator.close();
      await rateLimiter.close();
      await claimsPool.end();
      await pool.end();
    },
  };
}
