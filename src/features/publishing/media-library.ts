// The seam between publishing and media storage: the engine asks for a post's media as MediaSources and never
// learns where the bytes live. `mediaLibraryFrom` reads them from the media feature (local disk or S3); a
// media item deleted or no longer ready since the post was checked fails the target with a clear reason.
import type { Queryable } from '../../db/pool.ts';
import type { MediaService } from '../media/media.service.ts';
import { PlatformError, type MediaSource } from '../../platforms/types.ts';

export interface MediaLibrary {
  /**
   * The media items, in the order given; throws PlatformError (media_rejected) for one that is missing or not ready.
   */
  sources(workspaceId: string, mediaIds: string[]): Promise<MediaSource[]>;
}

/** How long a URL handed to a platform that pulls media stays valid. */
const PULL_URL_TTL_SECONDS = 3600;

export function mediaLibraryFrom(
  media: Pick<MediaService, 'mediaForPost' | 'openMediaStream' | 'signedReadUrl'>,
  db: Queryable,
): MediaLibrary {
  return {
    async sources(workspaceId, mediaIds) {
      const rows = await media.mediaForPost(db, workspaceId, mediaIds);
      return rows.map((row, i) => {
        if (!row || row.status !== 'ready' || !row.storage_key || row.size_bytes === null) {
          throw new PlatformError(
            'media_rejected',
            'PLATFORM_MEDIA_REJECTED',
            `Media ${mediaIds[i]} is no longer available (${row ? row.status : 'deleted'}).`,
          );
        }
        const storageKey = row.storage_key;
        return {
          id: row.id,
          kind: row.content_type === 'image/gif' ? 'gif' : row.kind,
          contentType: row.content_type,
          sizeBytes: row.size_bytes,
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
