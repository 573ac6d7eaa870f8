// State of the LinkedIn simulator, kept in the sandbox store so that it survives a restart and every API node shares
// it: the organizations members administer, posts (ids from a store counter that never repeats), uploaded images,
// videos and documents (each uploaded part's bytes a store blob of its own), the OAuth codes already exchanged and
// the tokens revoked. A member needs no document: everything about them follows from the username in their token.

export interface LiMember {
  /** The OpenID `sub`, also the id in `urn:li:person:<id>`. */
  id: string;
  username: string;
  name: string;
}

export interface LiOrganization {
  id: string;
  name: string;
  vanityName: string;
  /** Members with the ADMINISTRATOR role. */
  admins: string[];
}

export interface LiPost {
  /** `urn:li:share:<n>` */
  urn: string;
  /** `urn:li:person:…` or `urn:li:organization:…` */
  author: string;
  /** The member whose token created it. */
  memberId: string;
  /** How the page shows the author (a member's name, or their page's), fixed when the post is made. */
  by: { name: string; handle: string };
  /** The commentary as sent (little text, escapes included). */
  commentary: string;
  /** The commentary as readers see it (escapes removed): what the control surface reports. */
  plain: string;
  visibility: string;
  content: Record<string, unknown> | undefined;
  mediaCount: number;
  createdAt: number;
  deleted: boolean;
}

export type AssetKind = 'image' | 'video' | 'document';

export interface LiAsset {
  /** `urn:li:image:…`, `urn:li:video:…`, `urn:li:document:…` */
  urn: string;
  kind: AssetKind;
  owner: string;
  memberId: string;
  /** Declared size (videos), else unknown until the bytes arrive. */
  declaredBytes: number | null;
  /** Byte ranges the client must PUT (videos: several; images and documents: one, open-ended). */
  parts: LiAssetPart[];
  uploadToken: string;
  /** Set when the bytes are complete (image/document PUT, video finalize). */
  uploadedAt: number | null;
  readyAt: number;
  failed: string | null;
  /** A media fault taken at initialize, applied when processing starts. */
  fault: { fault: string; delayMs?: number } | undefined;
  sniffed: string | undefined;
  bytes: number;
  createdAt: number;
}

export interface LiAssetPart {
  firstByte: number;
  lastByte: number;
  /** The store blob holding the part's bytes once uploaded (named by their hash, so a re-sent part never clobbers). */
  blob: string | null;
  etag: string | null;
  /** The part's sniffed type: the first part's is the file's. */
  sniffed: string | undefined;
}

/**
 * The store's kinds: `organization` by id, `post` by URN (owner: the author URN), `asset` by URN (owner: the
 * member), `commentary` by author and commentary hash (the claim on that text, for the duplicate check),
 * `spent-code` and `revoked` by token jti.
 */
export const KIND = {
  organization: 'organization',
  post: 'post',
  asset: 'asset',
  commentary: 'commentary',
  spentCode: 'spent-code',
  revoked: 'revoked',
} as const;

/**
 * An author's claim on one commentary: the post that holds it, whole, written before that post is. LinkedIn refuses
 * the same commentary while that post is live and younger than the duplicate window; a claim whose post was never
 * written (its node stopped in between) is finished by the next request that meets it.
 */
export interface LiCommentary {
  post: LiPost;
}

/** The share counter and its first value (19 digits, like LinkedIn's: beyond a JS number's exact range). */
export const SHARE_COUNTER = 'share';
export const FIRST_SHARE = 7_100_000_000_000_000_001n;

/** LinkedIn's error body: `{ status, serviceErrorCode?, code?, message }` (docs/platforms/linkedin.md "Errors"). */
export function liError(
  status: number,
  message: string,
  extra: { code?: string; serviceErrorCode?: number; errorDetails?: unknown; errorDetailType?: string } = {},
): Record<string, unknown> {
  return {
    status,
    ...(extra.serviceErrorCode !== undefined && { serviceErrorCode: extra.serviceErrorCode }),
    ...(extra.code && { code: extra.code }),
    message,
    ...(extra.errorDetailType && { errorDetailType: extra.errorDetailType }),
    ...(extra.errorDetails !== undefined && { errorDetails: extra.errorDetails }),
  };
}

/** A 422 naming the offending field, in the `errorDetails.inputErrors` form LinkedIn uses for validation. */
export function inputError(field: string, code: string, description: string): Record<string, unknown> {
  return liError(422, `${description} (${field})`, {
    errorDetailType: 'com.linkedin.common.error.BadRequest',
    errorDetails: { inputErrors: [{ description, input: { inputPath: { fieldPath: field } }, code }] },
  });
}
