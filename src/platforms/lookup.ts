// What every reconciliation look-up checks before it calls a listed platform post this part's
// (src/platforms/README.md "What an adapter must get right"): the post was created after the part's first send began,
// no other part of the connection holds it, and it carries the part's media. Each adapter adds the text and reply
// parent, compared in its platform's terms.
// A wrong hit is worse than a miss: it marks a Herald post published with another post's id, while a miss re-sends,
// which a platform with a duplicate check refuses and the others are spared by their keys or containers.
import type { OutgoingPart } from './types.ts';

/**
 * How long before the part's first send a listed post's creation time may read and still be this part's. It covers
 * whole-second timestamps (X, Graph: up to 1 s) and the difference between the clocks of Herald's database (which
 * stamps `firstSentAt`) and of the platform: NTP keeps them within a second, but a host whose sync lapsed (a resumed
 * VM, a container without its own clock discipline) drifts by seconds, and a post the look-up misses for that is sent
 * twice. 15 s covers that with room, and costs little: a post made in those seconds is adopted only if it also has the
 * part's text, reply parent and media, and is held by no other Herald part (`heldElsewhere`, and the unique index
 * behind it), so only a post made outside Herald with the same content in the 15 s before the send could be taken.
 */
export const LOOKUP_CLOCK_ALLOWANCE_MS = 15_000;

/** The earliest creation time (ms since the epoch) a look-up accepts for the part: what to ask the platform from. */
export function lookupSince(part: Pick<OutgoingPart, 'firstSentAt'>): number {
  return part.firstSentAt.getTime() - LOOKUP_CLOCK_ALLOWANCE_MS;
}

/**
 * Whether a listed post may be the part's: created since `lookupSince` (a post without a creation time cannot be
 * shown to be) and held by no other part of the connection.
 */
export function mayBeThisPart(
  part: Pick<OutgoingPart, 'firstSentAt' | 'heldElsewhere'>,
  post: { id: string; createdAt: number | undefined },
): boolean {
  if (part.heldElsewhere?.has(post.id)) return false;
  return post.createdAt !== undefined && !Number.isNaN(post.createdAt) && post.createdAt >= lookupSince(part);
}

/**
 * Whether a listed post carries the part's media: the same platform ids when this attempt sent them and the platform
 * lists them (`ids`), else as many (`count`; an earlier attempt's uploads are not kept, only how many there were).
 */
export function sameMedia(
  part: Pick<OutgoingPart, 'media' | 'mediaCount'>,
  listed: { ids?: readonly string[]; count: number },
): boolean {
  const expected = part.media.length > 0 ? part.media.length : (part.mediaCount ?? 0);
  if (listed.count !== expected) return false;
  const ids = listed.ids;
  if (part.media.length === 0 || ids === undefined) return true;
  return part.media.every((m) => ids.includes(m.platformRef));
}
