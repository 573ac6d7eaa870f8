// Idempotent mutations (docs/api.md "Idempotency"). Every mutating handler runs inside one transaction that also
// stores its answer under (workspace, user, Idempotency-Key), so the effects and the stored answer commit
// together; the answer is replayed only to a key of that user that reaches every brand the first key reached. A transaction-scoped advisory lock on that triple lets exactly one request with a key run at a
// time; a concurrent one gets 409 at once instead of waiting. Only 2xx answers are stored: an error rolls
// everything back and frees the key.
import type { Pool, PoolClient } from '../db/pool.ts';
import { decrypt, encrypt, sha256, type SecretKeyring } from '../lib/crypto.ts';
import { AppError } from './errors.ts';
import { successBody } from './envelope.ts';

const NIL_WORKSPACE = '00000000-0000-0000-0000-000000000000';
/** How long a stored answer can be replayed (docs/api.md "Idempotency": 24 hours). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/**
 * How long a write made without a key of the caller's own (an MCP tool call, an `actions` key's call) is
 * recognised by its content: long enough to absorb an assistant's retry, short enough that the same text sent
 * again on purpose tomorrow is a new post (docs/api.md "Writes without an Idempotency-Key").
 */
export const CONTENT_DEDUP_TTL_SECONDS = 10 * 60;

/**
 * The start of the content claims of one API key under the face's namespace (`mcp`, `rest`), and within it of one
 * `scope` when given (the item a write acts on: its claims can then be superseded together).
 */
export function contentClaimPrefix(namespace: string, apiKeyId: string, scope?: string): string {
  const within = scope === undefined ? '' : `${sha256(scope).toString('hex').slice(0, 32)}:`;
  return `${namespace}:auto:${apiKeyId}:${within}`;
}

/**
 * The idempotency key of a write deduplicated by its content: a prefix naming the calling API key
 * (contentClaimPrefix) and what the call asks for (`parts`: the operation and its canonical input).
 */
export function contentClaimKey(prefix: string, ...parts: string[]): string {
  return `${prefix}${sha256(parts.join('\n')).toString('hex')}`;
}
const PURPOSE = 'idempotency-body';

export interface MutationResult {
  status: number;
  data: unknown;
}

export interface MutationOptions {
  /** The answer holds a secret shown once (a webhook secret): encrypt it at rest. */
  secret?: boolean;
}

export interface IdempotencyDeps {
  pool: Pool;
  keyring: SecretKeyring;
}

function lockKey(workspaceId: string, userId: string, key: string): bigint {
  return sha256(`${workspaceId}\n${userId}\n${key}`).readBigInt64BE(0);
}

/** Who may replay an answer, under which key, for which request, and for how long. */
export interface IdempotencyClaim {
  /** The workspace of the call; the nil UUID for calls outside a workspace. */
  workspaceId: string | null;
  userId: string;
  key: string;
  fingerprint: Buffer;
  ttlSeconds: number;
  /** The calling key's brand restriction (null: every brand). A replay needs a key that reaches all of these. */
  brandIds: readonly string[] | null;
  /** When the request runs (is not a replay), the stored answers under keys starting with this are forgotten. */
  supersedes?: string;
}

/**
 * Whether a key limited to `caller` brands could have made a request made by a key limited to `stored` brands:
 * the stored answer may concern any brand the first key reached, so the caller must reach each of them too.
 */
function reachesAll(caller: readonly string[] | null, stored: readonly string[] | null): boolean {
  if (caller === null) return true;
  if (stored === null) return false;
  return stored.every((id) => caller.includes(id));
}

export interface IdempotentAnswer {
  status: number;
  /** The enveloped answer as stored (a replay carries the first request's request_id). */
  text: string;
  replayed: boolean;
}

interface StoredAnswer {
  fingerprint: Buffer;
  response_status: number;
  response_body: Buffer;
  encrypted: boolean;
  brand_ids: string[] | null;
}

const STORED = `fingerprint, response_status, response_body, encrypted, brand_ids`;

/** An earlier answer under the claim's key, replayed when the caller may see it and asked the same thing. */
function replay(deps: IdempotencyDeps, claim: IdempotencyClaim, stored: StoredAnswer): IdempotentAnswer {
  // Access before replay: a key of the same user with narrower brand access (not a rotation of the first key)
  // gets a conflict, neither the answer nor a second run of the request.
  if (!reachesAll(claim.brandIds, stored.brand_ids)) {
    throw new AppError(
      'PUBLIC_API_IDEMPOTENCY_CONFLICT',
      'This Idempotency-Key was already used by a key that reaches brands this key cannot; use a new key.',
    );
  }
  if (!stored.fingerprint.equals(claim.fingerprint)) {
    throw new AppError(
      'PUBLIC_API_IDEMPOTENCY_CONFLICT',
      'This Idempotency-Key was already used for a different request; use a new key for a new request.',
    );
  }
  const body = stored.encrypted ? decrypt(deps.keyring, PURPOSE, stored.response_body) : stored.response_body;
  return { status: stored.response_status, text: body.toString('utf8'), replayed: true };
}

const inProgress = () =>
  new AppError(
    'PUBLIC_API_IDEMPOTENCY_IN_PROGRESS',
    'A request with this Idempotency-Key (or, sent without one, the same request) is still running; retry in a second.',
    { headers: { 'retry-after': '1' } },
  );

/** The answer stored meanwhile by a request that held the key until just before this one took it. */
class AnsweredMeanwhile extends Error {}

/**
 * The core of every idempotent write, REST or MCP: claims the key, runs `handler` in a transaction, stores its
 * enveloped answer in that same transaction, or returns the stored answer of an earlier identical request.
 *
 * The lock and the look-up of a stored answer are one statement, whose snapshot can predate the moment the lock
 * was taken: a request that held the key and committed in between is not seen by the look-up. The store then
 * finds its live answer (it only overwrites an expired one), everything this request did is rolled back, and
 * that answer is replayed instead.
 */
export async function runIdempotent(
  deps: IdempotencyDeps,
  claim: IdempotencyClaim,
  requestId: string,
  handler: (tx: PoolClient) => Promise<MutationResult>,
  options: MutationOptions = {},
): Promise<IdempotentAnswer> {
  const workspaceId = claim.workspaceId ?? NIL_WORKSPACE;
  const client = await deps.pool.connect();
  let broken = false;
  let open = false;
  try {
    await client.query('BEGIN');
    open = true;
    const { rows } = await client.query<{ ok: boolean } & Partial<StoredAnswer>>(
      `SELECT l.ok, k.fingerprint, k.response_status, k.response_body, k.encrypted, k.brand_ids
         FROM (SELECT pg_try_advisory_xact_lock($4) AS ok) l
         LEFT JOIN idempotency_keys k
           ON l.ok AND k.workspace_id = $1 AND k.user_id = $2 AND k.key = $3 AND k.expires_at > now()`,
      [workspaceId, claim.userId, claim.key, lockKey(workspaceId, claim.userId, claim.key).toString()],
    );
    if (!rows[0]?.ok) throw inProgress();
    if (rows[0].fingerprint) {
      await client.query('ROLLBACK');
      open = false;
      return replay(deps, claim, rows[0] as StoredAnswer);
    }
    // SKIP LOCKED: a row another write is deleting at the same moment is gone anyway, and waiting for it could
    // deadlock two writes of one key.
    if (claim.supersedes !== undefined)
      await client.query(
        `DELETE FROM idempotency_keys WHERE (workspace_id, user_id, key) IN (
           SELECT workspace_id, user_id, key FROM idempotency_keys
            WHERE workspace_id = $1 AND user_id = $2 AND starts_with(key, $3) FOR UPDATE SKIP LOCKED)`,
        [workspaceId, claim.userId, claim.supersedes],
      );
    const result = await handler(client);
    const text = JSON.stringify(successBody(requestId, result.data));
    const bytes = Buffer.from(text, 'utf8');
    const { rowCount } = await client.query(
      `INSERT INTO idempotency_keys
         (workspace_id, user_id, key, fingerprint, response_status, response_body, encrypted, expires_at, brand_ids)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8), $9)
       ON CONFLICT (workspace_id, user_id, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint,
         response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body,
         encrypted = EXCLUDED.encrypted, created_at = now(), expires_at = EXCLUDED.expires_at,
         brand_ids = EXCLUDED.brand_ids
       WHERE idempotency_keys.expires_at <= now()`,
      [
        workspaceId,
        claim.userId,
        claim.key,
        claim.fingerprint,
        result.status,
        options.secret ? encrypt(deps.keyring, PURPOSE, bytes) : bytes,
        Boolean(options.secret),
        claim.ttlSeconds,
        claim.brandIds === null ? null : [...claim.brandIds],
      ],
    );
    if (rowCount === 0) throw new AnsweredMeanwhile();
    await client.query('COMMIT');
    open = false;
    return { status: result.status, text, replayed: false };
  } catch (error) {
    if (open) {
      await client.query('ROLLBACK').catch(() => {
        broken = true; // the connection itself failed: do not return it to the pool
      });
    }
    if (error instanceof AnsweredMeanwhile && !broken) {
      const { rows } = await client.query<StoredAnswer>(
        `SELECT ${STORED} FROM idempotency_keys
          WHERE workspace_id = $1 AND user_id = $2 AND key = $3 AND expires_at > now()`,
        [workspaceId, claim.userId, claim.key],
      );
      if (rows[0]) return replay(deps, claim, rows[0]);
      throw inProgress();
    }
    throw error;
  } finally {
    client.release(broken);
  }
}

/** Deletes answers older than 24 h (run periodically by the worker). */
export async function deleteExpiredIdempotencyKeys(pool: Pool): Promise<number> {
  const { rowCount } = await pool.query('DELETE FROM idempotency_keys WHERE expires_at <= now()');
  return rowCount ?? 0;
}
