// Pure translation between Herald's parts and Facebook's shapes: the media references the adapter keeps, the
// feed post parameters, the post URL, and the text comparison reconciliation needs.
import { PlatformError, type OutgoingPart, type PreparedMedia } from '../types.ts';

/** A prepared media item's reference: an unpublished photo to attach, or an unpublished, processed video. */
export type MediaRef = { type: 'photo'; id: string } | { type: 'video'; id: string };

export function mediaRef(media: PreparedMedia): MediaRef {
  const [type, id] = media.platformRef.split(':');
  if ((type !== 'photo' && type !== 'video') || !id)
    throw new PlatformError('permanent', 'PLATFORM_REJECTED', `Not a Facebook media reference: ${media.platformRef}`);
  return { type, id };
}

/** The `/{page-id}/feed` parameters of a text, link or photo post (photos as `attached_media[n]`). */
export function feedParams(part: OutgoingPart, photoIds: string[]): Record<string, string> {
  const params: Record<string, string> = {};
  if (part.text !== '') params.message = part.text;
  const link = part.options.link;
  if (typeof link === 'string' && link !== '' && photoIds.length === 0) params.link = link;
  photoIds.forEach((id, i) => {
    params[`attached_media[${i}]`] = JSON.stringify({ media_fbid: id });
  });
  return params;
}

/** https://www.facebook.com/<page-id>/posts/<post-id>; the simulator serves the same path under its /web. */
export function postUrl(webBase: string, postId: string): string {
  const [pageId, id] = postId.includes('_') ? postId.split('_') : [undefined, postId];
  return pageId ? `${webBase}/${pageId}/posts/${id}` : `${webBase}/${id}`;
}

/** Text as compared during reconciliation: NFC, whitespace runs collapsed (Facebook keeps the text otherwise). */
export function comparable(text: string | undefined): string {
  return (text ?? '').normalize('NFC').replace(/\s+/g, ' ').trim();
}
