// The video side of the `make_media_variant` job (media.variants.ts hands it variants whose spec is `video`): the
// original is transcoded with FFmpeg to an H.264/AAC MP4 of the spec (fit/video.ts), stored beside it, and the
// variant made ready; its progress is kept on the media record (`video.transcodes`). A transcode that fails fails the
// variant — and so the targets waiting for it — with the reason, and emits `media.failed` with the media record.
import { withTransaction, type Pool } from '../../db/pool.ts';
import type { Logger } from '../../lib/logger.ts';
import { appendEvent } from '../events/outbox.ts';
import { TranscodeFailed, transcodeVideo, type VideoVariantSpec } from './fit/video.ts';
import { setTranscode, type MediaRow, type Transcode } from './media.repo.ts';
import { discardUnrecorded, markVariantFailed, markVariantReady, type VariantRow } from './media.variants.repo.ts';
import type { MediaStorage } from './storage/storage.ts';

export interface VideoVariantDeps {
  pool: Pool;
  storage: MediaStorage;
  logger: Logger;
  /** FFmpeg's ffmpeg; null: video variants cannot be made (and are not planned). */
  ffmpeg: string | null;
  /** The media record as events carry it (media.view.ts, handed in: the view reads variants). */
  render(row: MediaRow): Promise<Record<string, unknown>>;
}

/** Progress is written at most this often. */
const PROGRESS_EVERY_MS = 1000;

export async function makeVideoVariant(
  deps: VideoVariantDeps,
  variant: VariantRow,
  media: MediaRow,
  lastAttempt: boolean,
): Promise<'ready' | 'failed' | 'skipped'> {
  const entry = (status: Transcode['status'], progress: number, error: string | null): Transcode => ({
    variant_id: variant.id,
    platform: variant.platform,
    status,
    progress,
    error,
  });
  const fail = async (reason: string) => {
    await withTransaction(deps.pool, async (tx) => {
      await markVariantFailed(tx, variant.workspace_id, variant.id, reason);
      const row = await setTranscode(tx, variant.workspace_id, media.id, entry('failed', 0, reason));
      if (row) await appendEvent(tx, variant.workspace_id, 'media.failed', await deps.render(row));
    });
    deps.logger.warn({ media_id: media.id, variant_id: variant.id, reason }, 'video transcode failed');
    return 'failed' as const;
  };
  if (!deps.ffmpeg)
    return fail(`Media ${media.id} needs a transcode for ${variant.platform}, and this server has no FFmpeg.`);

  await setTranscode(deps.pool, variant.workspace_id, media.id, entry('pending', 0, null));
  let written = Date.now();
  // Progress writes go one after another, and all are done before the result is written (none lands after it).
  let progressWrites: Promise<unknown> = Promise.resolve();
  let made;
  try {
    made = await transcodeVideo(
      deps.ffmpeg,
      await deps.storage.open(media.storage_key!),
      variant.spec as unknown as VideoVariantSpec,
      media.duration_ms,
      (fraction) => {
        if (Date.now() - written < PROGRESS_EVERY_MS) return;
        written = Date.now();
        progressWrites = progressWrites
          .then(() => setTranscode(deps.pool, variant.workspace_id, media.id, entry('pending', fraction, null)))
          .catch(() => {});
      },
    );
  } catch (error) {
    await progressWrites;
    if (error instanceof TranscodeFailed || lastAttempt)
      return fail(`Media ${media.id} could not be transcoded for ${variant.platform}: ${(error as Error).message}`);
    throw error; // storage trouble: the queue tries again
  }
  await progressWrites;
  try {
    const key = deps.storage.variantKey(variant.workspace_id, media.id, variant.id);
    await deps.storage.putFile(key, made.file, made.size, 'video/mp4');
    const result = await withTransaction(deps.pool, async (tx) => {
      const stored = await markVariantReady(tx, variant.workspace_id, variant.id, {
        contentType: 'video/mp4',
        width: made.width,
        height: made.height,
        sizeBytes: made.size,
        sha256: made.sha256,
        storageKey: key,
      });
      await setTranscode(tx, variant.workspace_id, media.id, entry(stored ? 'ready' : 'failed', 1, null));
      return stored ? ('ready' as const) : ('skipped' as const);
    });
    // Not recorded (the media was deleted meanwhile): its bytes go rather than stay unnamed in storage.
    if (result === 'skipped') await discardUnrecorded(deps.pool, deps.storage, variant, key);
    return result;
  } finally {
    await made.cleanup();
  }
}
