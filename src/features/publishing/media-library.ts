// The seam between publishing and media storage: the engine asks for a post's media as MediaSources and never
// learns where the bytes live. The media feature provides the real library; until it is wired, a post
// carrying media fails its targets with a clear reason instead of publishing without them.
import { PlatformError, type MediaSource } from '../../platforms/types.ts';

export interface MediaLibrary {
  /** The media items, in the order given; throws PlatformError (media_rejected) for one that is missing or not ready. */
  sources(workspaceId: string, mediaIds: string[]): Promise<MediaSource[]>;
}

export const noMediaLibrary: MediaLibrary = {
  async sources(_workspaceId, mediaIds) {
    if (mediaIds.length === 0) return [];
    throw new PlatformError('media_rejected', 'PLATFORM_MEDIA_REJECTED', 'This server has no media storage wired to publishing; the post\'s media cannot be read.');
  },
};
