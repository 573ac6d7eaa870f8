// The seam between publishing and media storage: the engine asks for a post's media as MediaSources and never
// learns where the bytes live. `mediaLibraryFrom` reads them from the media feature (local disk or S3); a
// media item deleted or no longer ready since the post was checked fails the target with a clear reason. Given the
// target (platform, rules, options), each image comes as the variant fitted to that platform's rules: one not made
// yet defers the target (MediaPreparing, not an attempt), one that could not be made fails it.
import type { Queryable } from '../../db/pool.ts';
import type { Clock } from '../../lib/clock.ts';
import type { MediaService } from '../media/media.service.ts';
import { variantWaitMs, type FitTarget } from '../media/media.variants.ts';
import { PlatformError, type MediaSource } from '../../platforms/types.ts';

export interface MediaLibrary {
  /**
   * The media items, in the order given; throws PlatformError (media_rejected) for one that is missing or not ready,
   * or whose variant for `target` failed, and MediaPreparing while a variant is still being made.
   */
  sources(workspaceId: string, mediaIds: string[], target?: FitTarget): Promise<MediaSource[]>;
}

/** A variant the target needs is still being made: the target waits (a deferral, not a failed attempt). */
export class MediaPreparing extends Error {
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs: number) {
    super(message);
    this.name = 'MediaPreparing';
    this.retryAfterMs = retryAfterMs;
  }
}

/** How long a URL handed to a platform that pulls media stays valid. */
const PULL_URL_TTL_SECONDS = 3600;
/** How soon a target waiting for its variants looks again. */
const VARIANT_WAIT_MS = 2000;

export function mediaLibraryFrom(
  media: Pick<MediaService, 'mediaForPost' | 'openMediaStream' | 'signedReadUrl' | 'mediaForTarget' | 'lateIssues'>,
  db: Queryable,
  clock?: Clock,
): MediaLibrary {
  return {
    async sources(workspaceId, mediaIds, target) {
      const rows = await media.mediaForPost(db, workspaceId, mediaIds);
      const ready = rows.map((row, i) => {
        if (!row || row.status !== 'ready' || !row.storage_key || row.size_bytes === null || !row.content_type) {
          throw new PlatformError(
            'media_rejected',
            'PLATFORM_MEDIA_REJECTED',
            row?.status === 'failed' && row.failure_reason
              ? `Media ${mediaIds[i]} failed: ${row.failure_reason}`
              : row?.status === 'processing'
                ? `Media ${mediaIds[i]} is still being fetched from its URL, past its deadline.`
                : `Media ${mediaIds[i]} is no longer available (${row ? row.status : 'deleted'}).`,
          );
        }
        return row;
      });
      // Media fetched from a URL were unknown when the post was checked: the target's rules are checked now.
      const late = target ? media.lateIssues(ready, target) : [];
      if (late.length > 0)
        throw new PlatformError('media_rejected', 'PLATFORM_MEDIA_REJECTED', late.map((i) => i.message).join(' '));
      const fitted = target
        ? await media.mediaForTarget(db, workspaceId, ready, target)
        : ready.map((row) => ({ use: 'original' as const, media: row }));
      const now = (clock?.now() ?? new Date()).getTime();
      for (const item of fitted) {
        if (item.use === 'failed')
          throw new PlatformError(
            'media_rejected',
            'PLATFORM_MEDIA_CONVERSION_FAILED',
            item.variant.error ?? `Media ${item.media.id} could not be fitted to ${item.variant.platform}'s rules.`,
          );
        if (item.use === 'pending' && now - item.variant.created_at.getTime() > variantWaitMs(item.variant))
          throw new PlatformError(
            'media_rejected',
            'PLATFORM_MEDIA_CONVERSION_FAILED',
            `Media ${item.media.id} was not fitted to ${item.variant.platform}'s rules within ${variantWaitMs(item.variant) / 60_000} minutes; check that a worker is running.`,
          );
      }
      const waiting = fitted.filter((item) => item.use === 'pending');
      if (waiting.length > 0)
        throw new MediaPreparing(
          `Waiting for ${waiting.length} media item${waiting.length === 1 ? '' : 's'} to be fitted to ${target!.limits.displayName}'s rules.`,
          VARIANT_WAIT_MS,
        );
      return fitted.map((item): MediaSource => {
        const row = item.media;
        if (item.use === 'variant') {
          const v = item.variant;
          const storageKey = v.storage_key!;
          return {
            id: row.id,
            kind: row.kind === 'video' ? 'video' : 'image',
            contentType: v.content_type!,
            sizeBytes: v.size_bytes!,
            width: v.width,
            height: v.height,
            durationMs: row.kind === 'video' ? row.duration_ms : null,
            altText: null,
            open: () => media.openMediaStream(storageKey),
            signedUrl: async () =>
              (
                await media.signedReadUrl(
                  {
                    workspace_id: row.workspace_id,
                    id: row.id,
                    storage_key: storageKey,
                    content_type: v.content_type,
                    filename: row.filename,
                    variant_id: v.id,
                  },
                  PULL_URL_TTL_SECONDS,
                )
              ).url,
          };
        }
        const storageKey = row.storage_key!;
        return {
          id: row.id,
          kind: row.content_type === 'image/gif' ? 'gif' : row.kind!,
          contentType: row.content_type!,
          sizeBytes: row.size_bytes!,
          width: row.width,
          height: row.height,
          durationMs: row.duration_ms,
          altText: null,
          open: () => media.openMediaStream(storageKey),
          // signedReadUrl answers { url, expiresAt }: the platform gets the URL itself.
          signedUrl: async () => (await media.signedReadUrl(row, PULL_URL_TTL_SECONDS)).url,
        };
      });
    },
  };
}
