// Media by URL (docs/api.md "Media by URL"): `POST /media` with `url` makes a `processing` media and queues the
// `fetch_media` job in the same transaction; the job fetches the bytes through the SSRF guard (media.fetch.ts),
// checks them exactly as an upload's (sniffed, probed, within the kind's cap), stores them, and makes the media
// `ready` or `failed` with its `media.ready` / `media.failed` event. Posts may use the media at once: their targets
// wait for the fetch (publishing/targets.repo.ts `targetsAwaitingMedia`) and fail with its reason if it fails.
import { randomUUID } from 'node:crypto';
import { withTransaction, type Queryable } from '../../db/pool.ts';
import type { ServiceContext } from '../../app/context.ts';
import { AppError } from '../../app/errors.ts';
import type { MediaConfig } from '../../config.ts';
import { newId } from '../../lib/ids.ts';
import { OutboundBlockedError, type OutboundGuard } from '../../lib/ssrf.ts';
import { initialMetadata } from '../../app/metadata.ts';
import { appendEvent } from '../events/outbox.ts';
import { failed, inspectFetched, type CompleteDeps } from './media.complete.ts';
import { fetchToSink, FetchFailure, temporarySink, type BodySink } from './media.fetch.ts';
import * as repo from './media.repo.ts';
import type { MediaRow } from './media.repo.ts';
import type { MediaFromUrlBody } from './media.schemas.ts';
import { mediaJson } from './media.view.ts';
import { fileReader } from './sniff/byte-reader.ts';
import type { MediaStorage } from './storage/storage.ts';

export interface FetchDeps extends CompleteDeps {
  storage: MediaStorage;
  config: MediaConfig;
  guard: OutboundGuard;
}

/** Attempts of the job (a crash or a database failure mid-fetch); the last one records a failure. */
const FETCH_ATTEMPTS = 3;

export async function queueMediaFetch(db: Queryable, workspaceId: string, mediaId: string): Promise<void> {
  await db.query(
    `SELECT graphile_worker.add_job('fetch_media', json_build_object('workspace_id', $1::text, 'media_id', $2::text),
              job_key => 'fetch_media:' || $2, max_attempts => $3)`,
    [workspaceId, mediaId, FETCH_ATTEMPTS],
  );
}

/**
 * How long after its creation a media by URL may stay `processing`: every attempt at its full time cap, plus a
 * margin for the queue. Targets wait for it until then; past it, the cleanup sweep fails it.
 */
export const fetchDeadlineMs = (config: MediaConfig) => (FETCH_ATTEMPTS * config.fetchTimeoutSeconds + 900) * 1000;

/** The largest cap of any kind: the most a fetch takes before the bytes say what they are. */
const largestCap = (config: MediaConfig) => Math.max(...Object.values(config.maxBytes));

function nameFrom(url: URL): string {
  const last = url.pathname.split('/').filter(Boolean).pop();
  let name = last;
  try {
    name = last ? decodeURIComponent(last) : undefined;
  } catch {
    // keep the encoded segment
  }
  return (name ?? '').replace(/[/\\]/g, '').slice(0, 255) || 'download';
}

/** `POST /media` with `url`: the media, `processing`, and its fetch job, in the caller's transaction. */
export async function createFromUrl(deps: FetchDeps, ctx: ServiceContext, body: MediaFromUrlBody) {
  try {
    // Checked now too, so an address the guard refuses is a 422 at once rather than a failed media later.
    await deps.guard.checkUrl(body.url);
  } catch (error) {
    if (!(error instanceof OutboundBlockedError)) throw error;
    throw new AppError('PUBLIC_API_VALIDATION_FAILED', `The URL cannot be fetched: ${error.message}`, {
      details: [{ path: '/url', rule: `url_${error.code}`, message: error.message, platform: null }],
    });
  }
  const url = new URL(body.url);
  const id = newId('med');
  const filename = body.filename ? body.filename.split(/[/\\]/).pop() || body.filename : nameFrom(url);
  const row = await repo.insertFetchedMedia(ctx.db, {
    id,
    workspaceId: ctx.workspaceId,
    filename,
    sourceUrl: url.toString(),
    maxBytes: largestCap(deps.config),
    storageDriver: deps.storage.driver,
    uploadKey: `${ctx.workspaceId}/${id}`,
    deadline: new Date(deps.clock.now().getTime() + fetchDeadlineMs(deps.config)),
    createdBy: ctx.userId,
    metadata: initialMetadata(body.metadata),
  });
  await queueMediaFetch(ctx.db, ctx.workspaceId, id);
  return mediaJson(deps, row);
}

/** Records the end of the fetch with its event; undefined when the media is no longer processing (deleted). */
async function record(
  deps: CompleteDeps,
  row: MediaRow,
  completion: Parameters<typeof repo.completeFetchedMedia>[3],
  beforeCommit?: () => Promise<void>,
): Promise<MediaRow | undefined> {
  return withTransaction(deps.pool, async (tx) => {
    const current = await repo.findMedia(tx, row.workspace_id, row.id, true);
    if (!current || current.status !== 'processing') return undefined;
    await beforeCommit?.();
    const done = (await repo.completeFetchedMedia(tx, row.workspace_id, row.id, completion))!;
    await appendEvent(
      tx,
      row.workspace_id,
      done.status === 'ready' ? 'media.ready' : 'media.failed',
      await mediaJson(deps, done),
    );
    return done;
  });
}

const failure = (reason: string) => ({
  ...failed(reason),
  sizeBytes: null,
  sha256: null,
  storageKey: null,
  contentType: null,
  kind: null,
});

/** Fails a media whose fetch outlived its deadline (the cleanup sweep): its job is gone or never ran. */
export async function failStalledFetch(deps: CompleteDeps, row: MediaRow): Promise<boolean> {
  const done = await record(
    deps,
    row,
    failure(
      'The fetch did not finish before its deadline (no worker ran it, or it kept failing); create the media again.',
    ),
  );
  return done !== undefined;
}

/** The `fetch_media` job: one fetch of one media; `lastAttempt` turns an unexpected error into a failed media. */
export async function runMediaFetch(
  deps: FetchDeps,
  workspaceId: string,
  mediaId: string,
  lastAttempt: boolean,
): Promise<MediaRow | undefined> {
  const row = await repo.findMedia(deps.pool, workspaceId, mediaId);
  if (!row || row.status !== 'processing' || !row.source_url) return row;
  try {
    return await fetchAndStore(deps, row);
  } catch (error) {
    if (!lastAttempt) throw error;
    deps.logger.error({ err: error, media_id: mediaId }, 'fetching media by URL failed unexpectedly');
    return record(deps, row, failure('Herald could not fetch the file (an internal error); create the media again.'));
  }
}

async function fetchAndStore(deps: FetchDeps, row: MediaRow): Promise<MediaRow | undefined> {
  const { storage } = deps;
  const temporary = storage.driver === 's3' ? await temporarySink() : undefined;
  // The local driver receives into its own temporary directory, so the file is published by a rename.
  const sink: BodySink =
    storage.driver === 'local'
      ? async (body, maxBytes) => {
          const receipt = await storage.receive(body, { maxBytes, exactBytes: null });
          return { file: receipt.tempPath, size: receipt.size, sha256: receipt.sha256 };
        }
      : temporary!.sink;
  let file: string | undefined;
  let storedKey: string | undefined;
  try {
    let fetched: Awaited<ReturnType<typeof fetchToSink>>;
    try {
      fetched = await fetchToSink(
        row.source_url!,
        { guard: deps.guard, maxBytes: row.max_bytes, timeoutMs: deps.config.fetchTimeoutSeconds * 1000 },
        sink,
      );
    } catch (error) {
      if (!(error instanceof FetchFailure)) throw error;
      return await record(deps, row, failure(error.message));
    }
    file = fetched.file;
    const reader = await fileReader(file);
    let inspection: Awaited<ReturnType<typeof inspectFetched>>;
    try {
      inspection = await inspectFetched(reader, deps.config.maxBytes, { file, ffprobe: deps.ffprobe ?? null });
    } finally {
      await reader.close();
    }
    const ready = inspection.status === 'ready';
    const key = storage.driver === 's3' ? `media/${row.workspace_id}/${row.id}/${randomUUID()}` : row.upload_key;
    const completion = {
      ...inspection,
      sizeBytes: fetched.size,
      sha256: fetched.sha256,
      storageKey: ready ? key : null,
    };
    let publish: (() => Promise<void>) | undefined;
    if (ready && storage.driver === 's3') {
      await storage.putFile(key, file, fetched.size, inspection.contentType!);
      storedKey = key;
    } else if (ready && storage.driver === 'local') {
      const temp = file;
      publish = async () => {
        await storage.commit(temp, key);
        storedKey = key;
      };
    }
    const done = await record(deps, row, completion, publish);
    if (done) storedKey = undefined; // the media owns the bytes now
    return done ?? (await repo.findMedia(deps.pool, row.workspace_id, row.id));
  } finally {
    if (storedKey) await storage.remove(storedKey).catch(() => {});
    if (storage.driver === 'local' && file) await storage.discard(file).catch(() => {});
    await temporary?.cleanup();
  }
}
