// Turns a presented bearer token into a principal. Positive answers are cached for at most one second; a
// revocation NOTIFY only evicts sooner, so a lost notification can never extend a revoked key's life.
// `last_used_at` is written behind in batches, not on every request.
import pg from 'pg';
import type { Pool } from '../../db/pool.ts';
import { isWellFormedApiKey, sha256 } from '../../lib/crypto.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import { findGrantByHash, touchKeys, type KeyProfile } from './keys.repo.ts';
import type { WorkspaceMode } from '../../app/context.ts';
import type { MemberRole } from '../workspaces/workspaces.repo.ts';

export interface Principal {
  /**
   * The key's id, or for a dashboard session (src/features/users/session-principal.ts) `session:<user id>`: the
   * name its rate-limit budget and logs go by.
   */
  keyId: string;
  /** `session`: a signed-in browser (cookie); absent or `api_key`: a bearer key. */
  kind?: 'api_key' | 'session';
  /** When the key expires (null: never); a key it creates may not outlive it (docs/api.md "Keys"). */
  expiresAt?: Date | null;
  userId: string;
  scopes: ReadonlySet<string>;
  /**
   * Workspaces this key reaches (the user's memberships narrowed by the key's restriction), each with the user's
   * role there as of this lookup: cached like the rest, so a role change applies within a second.
   */
  reachable: ReadonlyArray<{ id: string; mode: WorkspaceMode; default_brand_id: string | null; role: MemberRole }>;
  /** Brands the key is limited to, or null for all brands of its workspaces. */
  brandIds: readonly string[] | null;
  /** `actions` (docs/gpt-actions.md): writes without Idempotency-Key are deduplicated by content; smaller pages. */
  profile: KeyProfile;
}

export type AuthResult =
  { ok: true; principal: Principal } | { ok: false; code: 'PUBLIC_API_KEY_INVALID' | 'PUBLIC_API_KEY_EXPIRED' };

interface CacheEntry {
  result: AuthResult;
  keyId: string | undefined;
  expiresAt: Date | null;
  cachedUntil: number;
}

export interface Authenticator {
  authenticate(token: string): Promise<AuthResult>;
  /** Forgets a key in this process at once (its revocation committed; other processes hear the NOTIFY). */
  evict(keyId: string): void;
  /** Starts listening for revocations (call once per process that serves requests). */
  listen(connectionString: string): Promise<void>;
  close(): Promise<void>;
}

const CACHE_TTL_MS = 1000;
const TOUCH_FLUSH_MS = 10_000;

export function createAuthenticator(deps: { pool: Pool; clock: Clock; logger: Logger }): Authenticator {
  const cache = new Map<string, CacheEntry>();
  const uses = new Map<string, Date>();
  let listener: pg.Client | undefined;
  let closed = false;
  let reconnectTimer: NodeJS.Timeout | undefined;

  const flushTimer = setInterval(() => void flushUses(), TOUCH_FLUSH_MS);
  flushTimer.unref();

  async function flushUses(): Promise<void> {
    if (uses.size === 0) return;
    const batch = new Map(uses);
    uses.clear();
    try {
      await touchKeys(deps.pool, batch);
    } catch (error) {
      // Losing a last-used timestamp is harmless; keep the newest for the next flush.
      for (const [id, at] of batch) if (!uses.has(id)) uses.set(id, at);
      deps.logger.warn({ err: error }, 'could not record key last-use times');
    }
  }

  function evictKey(keyId: string): void {
    for (const [hash, entry] of cache) if (entry.keyId === keyId) cache.delete(hash);
  }

  async function lookup(token: string): Promise<CacheEntry> {
    const hash = sha256(token).toString('hex');
    const now = Date.now();
    const cached = cache.get(hash);
    if (cached && cached.cachedUntil > now) return cached;
    const grant = await findGrantByHash(deps.pool, sha256(token));
    let entry: CacheEntry;
    if (!grant || grant.revoked_at) {
      entry = {
        result: { ok: false, code: 'PUBLIC_API_KEY_INVALID' },
        keyId: grant?.id,
        expiresAt: null,
        cachedUntil: 0,
      };
    } else {
      const principal: Principal = {
        keyId: grant.id,
        userId: grant.user_id,
        scopes: new Set(grant.scopes),
        reachable: grant.reachable,
        brandIds: grant.brand_ids,
        profile: grant.profile,
        kind: 'api_key',
        expiresAt: grant.expires_at,
      };
      entry = {
        result: { ok: true, principal },
        keyId: grant.id,
        expiresAt: grant.expires_at,
        cachedUntil: now + CACHE_TTL_MS,
      };
      cache.set(hash, entry);
      if (cache.size > 10_000) cache.delete(cache.keys().next().value!);
    }
    return entry;
  }

  async function connectListener(connectionString: string): Promise<void> {
    const client = new pg.Client({ connectionString, application_name: 'herald-key-listener' });
    client.on('notification', (msg) => {
      if (msg.channel === 'herald_key_revoked' && msg.payload) evictKey(msg.payload);
    });
    client.on('error', () => {
      // The TTL still bounds staleness to one second; reconnect in the background.
      listener = undefined;
      scheduleReconnect(connectionString);
    });
    await client.connect();
    await client.query('LISTEN herald_key_revoked');
    listener = client;
  }

  function scheduleReconnect(connectionString: string): void {
    if (closed || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      connectListener(connectionString).catch(() => scheduleReconnect(connectionString));
    }, 1000);
    reconnectTimer.unref();
  }

  return {
    async authenticate(token) {
      if (!isWellFormedApiKey(token)) return { ok: false, code: 'PUBLIC_API_KEY_INVALID' };
      const entry = await lookup(token);
      if (!entry.result.ok) return entry.result;
      if (entry.expiresAt && entry.expiresAt.getTime() <= deps.clock.now().getTime())
        return { ok: false, code: 'PUBLIC_API_KEY_EXPIRED' };
      uses.set(entry.result.principal.keyId, deps.clock.now());
      return entry.result;
    },
    evict(keyId) {
      evictKey(keyId);
    },
    async listen(connectionString) {
      await connectListener(connectionString);
    },
    async close() {
      closed = true;
      clearInterval(flushTimer);
      if (reconnectTimer) clearTimeout(reconnectTimer);
      await flushUses();
      await listener?.end().catch(() => {});
    },
  };
}
