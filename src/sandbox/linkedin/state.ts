// In-memory state of the LinkedIn simulator: members, the organizations they administer, posts, uploaded
// images, videos and documents, and the one-time OAuth codes already exchanged.

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
  admins: Set<string>;
}

export interface LiPost {
  /** `urn:li:share:<n>` */
  urn: string;
  /** `urn:li:person:…` or `urn:li:organization:…` */
  author: string;
  /** The member whose token created it. */
  memberId: string;
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
  parts: Array<{ firstByte: number; lastByte: number; data: Buffer | null; etag: string | null }>;
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

export interface LiState {
  members: Map<string, LiMember>;
  organizations: Map<string, LiOrganization>;
  posts: Map<string, LiPost>;
  assets: Map<string, LiAsset>;
  /** jti of exchanged authorization codes (single use). */
  spent: Set<string>;
  /** jti of revoked access and refresh tokens. */
  revoked: Set<string>;
  /** The last share id handed out (19 digits, like LinkedIn's: beyond a JS number's exact range, hence a bigint). */
  seq: bigint;
}

export function createLiState(): LiState {
  return {
    members: new Map(),
    organizations: new Map(),
    posts: new Map(),
    assets: new Map(),
    spent: new Set(),
    revoked: new Set(),
    seq: 7_100_000_000_000_000_000n,
  };
}

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
