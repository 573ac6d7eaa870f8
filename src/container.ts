// The composition root: builds every long-lived object once, from the config, as plain objects. The HTTP
// server, the worker, the CLI and the tests all start from here.
import type { Config } from './config.ts';
import { createPool, type Pool } from './db/pool.ts';
import { createAuthenticator, type Authenticator } from './features/keys/authenticator.ts';
import { createMediaService, type MediaService } from './features/media/media.service.ts';
import { createMediaStorage } from './features/media/storage/create.ts';
import { createPostsService, type PostsService } from './features/posts/posts.service.ts';
import { createWebhooksService, type WebhooksService } from './features/webhooks/webhooks.service.ts';
import { createMemoryStore, createRateLimiter, createRedisStore, type RateLimiter } from './http/rate-limit.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import type { SecretKeyring } from './lib/crypto.ts';
import type { Logger } from './lib/logger.ts';
import { createMetrics, type Metrics } from './lib/metrics.ts';
import { createOutboundGuard, type LookupFn, type OutboundGuard } from './lib/ssrf.ts';

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
  webhooks: WebhooksService;
  /** Uploads, media records, and the streams and signed URLs the publishing engine reads media through. */
  media: MediaService;
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
}

export function buildContainer(options: ContainerOptions): Container {
  const { config, logger, connectionString, keyring } = options;
  const clock = options.clock ?? systemClock;
  const pool = createPool(connectionString, config.databasePoolSize);
  const metrics = createMetrics();
  const authenticator = createAuthenticator({ pool, clock, logger });
  const store = config.redisUrl ? createRedisStore(config.redisUrl, logger, () => metrics.rateLimitStoreErrors.inc()) : createMemoryStore();
  const rateLimiter = createRateLimiter(store);
  const outboundGuard = createOutboundGuard({ allowlist: config.outboundAllowlist, lookup: options.lookup });
  const media = createMediaService({ pool, storage: createMediaStorage(config, keyring), config: config.media, clock, logger });
  const posts = createPostsService({ clock, media });
  const webhooks = createWebhooksService({ clock, keyring, guard: outboundGuard });
  return {
    config, logger, clock, pool, connectionString, keyring, metrics, authenticator, rateLimiter, outboundGuard, posts, webhooks, media,
    async close() {
      await authenticator.close();
      await rateLimiter.close();
      await pool.end();
    },
  };
}
