// Pure translation between Herald's parts and LinkedIn's shapes: the little-text escaping of the commentary,
// the author URN, the create body and the post URL.
import type { ConnectionInfo, OutgoingPart, PartOptions } from '../types.ts';

/** Little text's reserved characters: each must be backslash-escaped or LinkedIn may cut the post short. */
const RESERVED = /[\\|{}@[\]()<>#*_~]/g;

export function escapeLittleText(text: string): string {
  return text.replace(RESERVED, (c) => `\\${c}`);
}

/** The connection's account as an author URN (connections store the URN; a bare member id is accepted too). */
export function connectionAuthor(connection: Pick<ConnectionInfo, 'accountId'>): string {
  return connection.accountId.startsWith('urn:li:') ? connection.accountId : `urn:li:person:${connection.accountId}`;
}

/** Who the post is by: `platform_options.linkedin.organization` (a page the member administers) or the account. */
export function authorOf(connection: Pick<ConnectionInfo, 'accountId'>, options: PartOptions): string {
  return typeof options.organization === 'string' ? options.organization : connectionAuthor(connection);
}

export function createBody(part: OutgoingPart, author: string): Record<string, unknown> {
  const o = part.options;
  const body: Record<string, unknown> = {
    author,
    commentary: escapeLittleText(part.text),
    visibility: typeof o.visibility === 'string' ? o.visibility : 'PUBLIC',
    distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
    lifecycleState: 'PUBLISHED',
    isReshareDisabledByAuthor: o.disable_reshare === true,
  };
  if (part.media.length === 1) {
    const m = part.media[0]!;
    const media: Record<string, unknown> = { id: m.platformRef };
    if (m.kind === 'document')
      media.title = typeof o.document_title === 'string' && o.document_title.trim() ? o.document_title : 'Document';
    if ((m.kind === 'image' || m.kind === 'gif') && m.altText) media.altText = m.altText;
    body.content = { media };
  } else if (part.media.length > 1) {
    body.content = {
      multiImage: {
        images: part.media.map((m) => ({ id: m.platformRef, ...(m.altText ? { altText: m.altText } : {}) })),
      },
    };
  }
  return body;
}

/** https://www.linkedin.com/feed/update/<urn>; the simulator serves the same path under its /web. */
export function postUrl(webBase: string, urn: string): string {
  return `${webBase}/feed/update/${urn}`;
}
