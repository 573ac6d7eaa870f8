// Completing an upload: the bytes are measured, hashed and sniffed, and the media becomes `ready` or `failed`
// (with a reason) in one transaction with its `media.ready` / `media.failed` event. Whoever completes first wins:
// the update is conditional on `pending_upload`, so a second completion (a concurrent PUT, a replayed URL, a
// GET racing a POST /complete) changes nothing and cleans up after itself.
import { randomUUID } from 'node:crypto';
import { withTransaction, type Pool } from '../../db/pool.ts';
import { AppError } from '../../app/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import { appendEvent } from '../events/outbox.ts';
import { completeMedia, findMedia, type Completion, type MediaRow } from './media.repo.ts';
import { isUploadType, sniffMatches } from './media.types.ts';
import { mediaJson, type ViewDeps } from './media.view.ts';
import type { ByteReader } from './sniff/byte-reader.ts';
import { sniff } from './sniff/sniff.ts';
import type { LocalReceipt, LocalStorage, S3Storage } from './storage/storage.ts';

export interface CompleteDeps extends ViewDeps {
  pool: Pool;
  logger: Logger;
}

type Inspection = Omit<Completion, 'storageKey' | 'sizeBytes' | 'sha256'>;

function failed(reason: string): Inspection {
  return { status: 'failed', failureReason: reason, width: null, height: null, durationMs: null, unreadable: [] };
}

/** Whether the bytes are what the client declared, and what can be read from them. */
export async function inspect(reader: ByteReader, declared: string): Promise<Inspection> {
  const found = await sniff(reader);
  if (found.contentType === null)
    return failed(`The bytes are not a file type Herald recognises; ${declared} was declared.`);
  if (!sniffMatches(declared, found.contentType)) {
    const advice = isUploadType(found.contentType)
      ? ` Request a new upload URL with content_type ${found.contentType}.`
      : '';
    return failed(`The bytes are ${found.contentType}, not the declared ${declared}.${advice}`);
  }
  return {
    status: 'ready',
    failureReason: null,
    width: found.width,
    height: found.height,
    durationMs: found.durationMs,
    unreadable: found.unreadable,
  };
}

/** The media as another completion left it, or undefined when it is still pending. */
async function stillPending(deps: CompleteDeps, row: MediaRow): Promise<MediaRow | undefined> {
  const current = await findMedia(deps.pool, row.workspace_id, row.id);
  return current && current.status !== 'pending_upload' ? current : undefined;
}

/** Records the completion and its event; undefined when the media was no longer pending. */
async function record(
  deps: CompleteDeps,
  row: MediaRow,
  completion: Completion,
  beforeCommit?: () => Promise<void>,
): Promise<MediaRow | undefined> {
  return withTransaction(deps.pool, async (tx) => {
    const current = await findMedia(tx, row.workspace_id, row.id, true);
    if (!current || current.status !== 'pending_upload') return undefined;
    await beforeCommit?.();
    const done = (await completeMedia(tx, row.workspace_id, row.id, completion))!;
    await appendEvent(
      tx,
      row.workspace_id,
      done.status === 'ready' ? 'media.ready' : 'media.failed',
      await mediaJson(deps, done),
    );
    return done;
  });
}

/** Local driver: the PUT's bytes are in a temporary file; publish them under the media's key if they pass. */
export async function completeLocal(
  deps: CompleteDeps & { storage: LocalStorage },
  row: MediaRow,
  receipt: LocalReceipt,
): Promise<MediaRow> {
  try {
    const reader = await deps.storage.readerForFile(receipt.tempPath);
    let inspection: Inspection;
    try {
      inspection = await inspect(reader, row.content_type);
    } finally {
      await reader.close();
    }
    const ready = inspection.status === 'ready';
    const completion: Completion = {
      ...inspection,
      sizeBytes: receipt.size,
      sha256: receipt.sha256,
      storageKey: ready ? row.upload_key : null,
    };
    // The rename happens under the row lock, so only the completion that commits puts bytes under the key.
    const publish = ready ? () => deps.storage.commit(receipt.tempPath, row.upload_key) : undefined;
    let done: MediaRow | undefined;
    try {
      done = await record(deps, row, completion, publish);
    } catch (error) {
      if (ready) await deps.storage.remove(row.upload_key).catch(() => {});
      throw error;
    }
    if (!done) {
      throw new AppError(
        'PUBLIC_API_STATE_CONFLICT',
        'This upload URL was already used: the media is no longer waiting for an upload. Request a new upload URL.',
      );
    }
    return done;
  } finally {
    await deps.storage.discard(receipt.tempPath); // nothing left when it was renamed
  }
}

/** s3 driver: what became of the upload, or 'not_uploaded' while nothing is at the upload key. */
export async function completeRemote(
  deps: CompleteDeps & { storage: S3Storage },
  row: MediaRow,
  attempt = 1,
): Promise<MediaRow | 'not_uploaded'> {
  const { storage } = deps;
  const object = await storage.stat(row.upload_key);
  if (!object) return (await stillPending(deps, row)) ?? 'not_uploaded';

  let completion: Completion;
  let finalKey: string | null = null;
  const problem = sizeProblem(row, object.size);
  if (problem) {
    completion = { ...failed(problem), sizeBytes: object.size, sha256: null, storageKey: null };
  } else {
    // Check a private copy, not the upload key: the presigned PUT stays usable until it expires, and a replay
    // must not change bytes after they were checked. Each completion copies to its own key, and removes it
    // unless it is the one recorded (a store may leave a partial object behind a failed copy, too).
    finalKey = `media/${row.workspace_id}/${row.id}/${randomUUID()}`;
    let checked: Completion | 'source_gone' | 'source_changed';
    try {
      checked = await checkCopy(storage, row, object.etag, finalKey);
    } catch (error) {
      await storage.remove(finalKey).catch(() => {});
      // A completion that finished meanwhile deletes the upload key under our copy: its result stands.
      const finished = await stillPending(deps, row);
      if (finished) return finished;
      throw error;
    }
    if (checked === 'source_gone' || checked === 'source_changed') {
      await storage.remove(finalKey);
      // Gone: another completion finished first. Changed: a replayed PUT replaced it; measure again, a few times at
      // most.
      if (checked === 'source_gone') return (await stillPending(deps, row)) ?? 'not_uploaded';
      if (attempt >= 3) throw new Error(`The upload of ${row.id} keeps changing while it is being completed`);
      return completeRemote(deps, row, attempt + 1);
    }
    completion = checked;
  }

  const done = await record(deps, row, completion);
  if (finalKey && done?.storage_key !== finalKey) await storage.remove(finalKey);
  if (!done) return (await findMedia(deps.pool, row.workspace_id, row.id)) ?? row;
  // The upload key has served its purpose; a purge or the cleanup job retries this if it fails now.
  await storage
    .remove(row.upload_key)
    .catch((error: unknown) => deps.logger.warn({ err: error, media_id: row.id }, 'could not delete an upload key'));
  return done;
}

function sizeProblem(row: MediaRow, size: number): string | null {
  if (size > row.max_bytes) return `The object is ${size} bytes, more than the ${row.max_bytes} allowed (max_bytes).`;
  if (row.declared_size !== null && size !== row.declared_size)
    return `The object is ${size} bytes, not the ${row.declared_size} announced (size_bytes).`;
  return null;
}

/** Copies the measured upload object to `finalKey` and checks the copy: its size, type and hash. */
async function checkCopy(
  storage: S3Storage,
  row: MediaRow,
  etag: string | null,
  finalKey: string,
): Promise<Completion | 'source_gone' | 'source_changed'> {
  const copy = await storage.copy(row.upload_key, finalKey, etag);
  if (copy !== 'copied') return copy;
  const size = (await storage.stat(finalKey))?.size ?? 0;
  const problem = sizeProblem(row, size);
  if (problem) return { ...failed(problem), sizeBytes: size, sha256: null, storageKey: null };
  const inspection = await inspect(await storage.reader(finalKey, size), row.content_type);
  const sha256 = await storage.hash(finalKey);
  return { ...inspection, sizeBytes: size, sha256, storageKey: inspection.status === 'ready' ? finalKey : null };
}
