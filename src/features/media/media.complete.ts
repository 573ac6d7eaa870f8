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
import { isUploadType, kindOf, sniffMatches, UPLOAD_TYPES, type UploadKind } from './media.types.ts';
import { probeVideo } from './probe.ts';
import { mediaJson, type ViewDeps } from './media.view.ts';
import type { ByteReader } from './sniff/byte-reader.ts';
import { sniff, type SniffResult } from './sniff/sniff.ts';
import { TEXT_HEAD_BYTES, textProblem } from './sniff/text.ts';
import type { LocalReceipt, LocalStorage, S3Storage } from './storage/storage.ts';

export interface CompleteDeps extends ViewDeps {
  pool: Pool;
  logger: Logger;
  /** The path of `ffprobe` when it is on the PATH (probe.ts); absent or null: Herald's own MP4 reader only. */
  ffprobe?: string | null;
}

type Inspection = Omit<Completion, 'storageKey' | 'sizeBytes' | 'sha256'>;

export function failed(reason: string): Inspection {
  return {
    status: 'failed',
    failureReason: reason,
    width: null,
    height: null,
    durationMs: null,
    unreadable: [],
    video: null,
  };
}

/** Where ffprobe may read the bytes (a local file), and which ffprobe; without them only the box reader runs. */
export interface ProbeSource {
  file: string | null;
  ffprobe: string | null;
}

/** What the bytes say about themselves: sizes, and for a video its duration, codecs and frame rate. */
async function facts(found: SniffResult, probe: ProbeSource | undefined): Promise<Inspection> {
  const ready = {
    status: 'ready' as const,
    failureReason: null,
    width: found.width,
    height: found.height,
    durationMs: found.durationMs,
    unreadable: found.unreadable,
    video: null,
  };
  if (
    !found.contentType ||
    !isUploadType(normaliseSniffed(found.contentType)) ||
    kindOf(normaliseSniffed(found.contentType)) !== 'video'
  )
    return ready;
  const probed = await probeVideo(found, probe?.file ?? null, probe?.ffprobe ?? null);
  return { ...ready, ...probed };
}

/** The upload type bytes sniffed as `sniffed` are stored under (an M4V is an MP4). */
function normaliseSniffed(sniffed: string): string {
  return Object.keys(UPLOAD_TYPES).find((type) => sniffMatches(type, sniffed)) ?? sniffed;
}

/** Whether the bytes are what the client declared, and what can be read from them. */
export async function inspect(reader: ByteReader, declared: string, probe?: ProbeSource): Promise<Inspection> {
  const found = await sniff(reader);
  // Text has no signature: a text type (CSV) is the bytes when they read as text (sniff/text.ts).
  if (found.contentType === null && UPLOAD_TYPES[declared]?.text) {
    const problem = textProblem(await reader.read(0, TEXT_HEAD_BYTES), reader.size <= TEXT_HEAD_BYTES);
    return problem ? failed(`The bytes are not ${declared}: ${problem}`) : facts(found, probe);
  }
  if (found.contentType === null)
    return failed(`The bytes are not a file type Herald recognises; ${declared} was declared.`);
  if (!sniffMatches(declared, found.contentType)) {
    const advice = isUploadType(found.contentType)
      ? ` Request a new upload URL with content_type ${found.contentType}.`
      : '';
    return failed(`The bytes are ${found.contentType}, not the declared ${declared}.${advice}`);
  }
  return facts(found, probe);
}

/**
 * Bytes fetched from a URL, which declared nothing: the type they sniff as, if Herald takes it and they are within
 * that kind's size cap.
 */
export async function inspectFetched(
  reader: ByteReader,
  maxBytes: Record<UploadKind, number>,
  probe: ProbeSource,
): Promise<Inspection & { contentType: string | null; kind: UploadKind | null }> {
  const found = await sniff(reader);
  const type = found.contentType ? normaliseSniffed(found.contentType) : null;
  if (!type || !isUploadType(type)) {
    const what = found.contentType ? `${found.contentType}` : 'not a file type Herald recognises';
    return {
      ...failed(`The bytes at the URL are ${what}; Herald takes ${Object.keys(UPLOAD_TYPES).join(', ')}.`),
      contentType: null,
      kind: null,
    };
  }
  const kind = kindOf(type);
  if (reader.size > maxBytes[kind])
    return {
      ...failed(`The file at the URL is ${reader.size} bytes; ${kind} media are limited to ${maxBytes[kind]} bytes.`),
      contentType: type,
      kind,
    };
  return { ...(await facts(found, probe)), contentType: type, kind };
}

/**
 * The answer to an upload whose bytes were refused (the PUT to a local upload URL, `POST /media/{id}/complete`):
 * 422 with the reason, never a 200 with `status: failed` inside. The media stays `failed`, and `media.failed` was
 * emitted with it.
 */
export function refusedUpload(row: MediaRow): AppError {
  const reason = row.failure_reason ?? 'The bytes did not pass the checks.';
  return new AppError(
    'PUBLIC_API_VALIDATION_FAILED',
    `The upload of media ${row.id} was refused: ${reason} The media is now failed; request a new upload URL to try again.`,
    { details: [{ path: '/body', rule: 'upload_refused', platform: null, message: reason }] },
  );
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
      inspection = await inspect(reader, row.content_type!, { file: receipt.tempPath, ffprobe: deps.ffprobe ?? null });
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
  const inspection = await inspect(await storage.reader(finalKey, size), row.content_type!);
  const sha256 = await storage.hash(finalKey);
  return { ...inspection, sizeBytes: size, sha256, storageKey: inspection.status === 'ready' ? finalKey : null };
}
