// Pure translation between Herald's parts and X's shapes: the create body, the post URL, and the text
// comparison reconciliation needs (X returns text with every URL replaced by a t.co link and HTML
// entities escaped, so both sides are normalised before comparing).
import type { OutgoingPart, PreparedMedia } from '../types.ts';

export function createBody(part: OutgoingPart): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (part.text !== '') body.text = part.text;
  if (part.media.length > 0) body.media = { media_ids: part.media.map((m: PreparedMedia) => m.platformRef) };
  if (part.parent) body.reply = { in_reply_to_tweet_id: part.parent.id };
  return body;
}

/** https://x.com/<username>/status/<id>; the simulator serves the same path under its /web. */
export function postUrl(webBase: string, username: string, id: string): string {
  return `${webBase}/${encodeURIComponent(username)}/status/${id}`;
}

/** Text as X gives it back, reduced to what survives X's rewriting: entities decoded, URLs blanked, NFC, spaces. */
export function comparable(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\bhttps?:\/\/\S+/gi, '<url>')
    .normalize('NFC')
    .replace(/\s+/g, ' ')
    .trim();
}
