// The two URLs the local driver serves itself, as plain functions (the routes only translate HTTP):
// the signed upload (`PUT /uploads/…`), which answers once the media is ready or failed, and the signed
// download (`GET /files/…`). Every refusal happens before a byte is stored, and leaves the media as it was.
import type { Readable } from 'node:stream';
import { AppError } from '../../app/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { completeLocal, refusedUpload, type CompleteDeps } from './media.complete.ts';
import { findMedia, type MediaRow } from './media.repo.ts';
import { findVariant } from './media.variants.repo.ts';
import { normaliseContentType } from './media.types.ts';
import { mediaJson } from './media.view.ts';
import type { ByteRange, LocalStorage } from './storage/storage.ts';

export const MEDIA_ID = /^med_[0-9a-z]{26}$/;
const VARIANT_ID = /^var_[0-9a-z]{26}$/;

export interface SignedRequest {
  workspaceId: string;
  mediaId: string;
  /** The `expires` and `signature` query parameters as sent. */
  expires: unknown;
  signature: unknown;
}

export interface LocalUploadRequest extends SignedRequest {
  contentType: string | undefined;
  contentLength: string | undefined;
  body: Readable;
}

type LocalDeps = CompleteDeps & { storage: LocalStorage };

const invalidUrl = () =>
  new AppError(
    'PUBLIC_API_SIGNED_URL_INVALID',
    'This signed URL is not valid: it was altered, is for another media, or was not issued by this server.',
  );

/** Parses what every signed URL carries; anything malformed is an invalid URL, never a 500 or a database query. */
function parseSigned(request: SignedRequest): { expiresAt: Date; signature: string } {
  const { workspaceId, mediaId, expires, signature } = request;
  if (
    !isUuid(workspaceId) ||
    !MEDIA_ID.test(mediaId) ||
    typeof expires !== 'string' ||
    !/^\d{1,12}$/.test(expires) ||
    typeof signature !== 'string' ||
    !/^[A-Za-z0-9_-]{20,100}$/.test(signature)
  ) {
    throw invalidUrl();
  }
  return { expiresAt: new Date(Number(expires) * 1000), signature };
}

function checkExpiry(expiresAt: Date, now: Date): void {
  if (expiresAt.getTime() <= now.getTime()) {
    throw new AppError(
      'PUBLIC_API_SIGNED_URL_EXPIRED',
      `This signed URL expired at ${expiresAt.toISOString()}; request a new one.`,
    );
  }
}

export async function acceptLocalUpload(
  deps: LocalDeps,
  request: LocalUploadRequest,
): Promise<Record<string, unknown>> {
  const { expiresAt, signature } = parseSigned(request);
  const row = await findMedia(deps.pool, request.workspaceId.toLowerCase(), request.mediaId);
  const signed =
    row &&
    deps.storage.verifyUpload(
      {
        workspaceId: row.workspace_id,
        mediaId: row.id,
        contentType: row.content_type ?? '', // null only for media by URL, which have no upload URL
        maxBytes: row.max_bytes,
        declaredSize: row.declared_size,
        expiresAt,
      },
      signature,
    );
  if (!row || !signed) throw invalidUrl();
  checkExpiry(expiresAt, deps.clock.now());
  if (row.status !== 'pending_upload') {
    throw new AppError(
      'PUBLIC_API_STATE_CONFLICT',
      `This upload URL was already used: the media is ${row.status}. Request a new upload URL to upload other bytes.`,
    );
  }
  const sent = normaliseContentType(request.contentType);
  if (sent !== row.content_type) {
    throw new AppError(
      'PUBLIC_API_UNSUPPORTED_MEDIA_TYPE',
      `This URL takes Content-Type ${row.content_type}; the request sent ${request.contentType ?? 'none'}.`,
    );
  }
  const length = request.contentLength === undefined ? null : Number(request.contentLength);
  if (length !== null) {
    if (length > row.max_bytes)
      throw new AppError(
        'PUBLIC_API_PAYLOAD_TOO_LARGE',
        `The upload is ${length} bytes; this URL accepts at most ${row.max_bytes} (max_bytes).`,
      );
    if (row.declared_size !== null && length !== row.declared_size) {
      throw new AppError(
        'PUBLIC_API_BODY_INVALID',
        `This URL expects exactly ${row.declared_size} bytes (the size_bytes you announced); Content-Length is ${length}.`,
      );
    }
    if (length === 0) throw new AppError('PUBLIC_API_BODY_INVALID', "The upload is empty; PUT the file's bytes.");
  }
  const receipt = await deps.storage.receive(request.body, {
    maxBytes: row.max_bytes,
    exactBytes: row.declared_size,
    expectedBytes: length ?? row.declared_size,
  });
  if (receipt.size === 0) {
    await deps.storage.discard(receipt.tempPath);
    throw new AppError('PUBLIC_API_BODY_INVALID', "The upload is empty; PUT the file's bytes.");
  }
  const done = await completeLocal(deps, row, receipt);
  if (done.status === 'failed') throw refusedUpload(done);
  return mediaJson(deps, done);
}

export interface LocalFile {
  status: 200 | 206;
  /** The bytes (the range, for a 206); not opened until asked for, so a HEAD reads nothing. */
  open(): Promise<Readable>;
  size: number;
  /** Set for a 206 answer. */
  range: ByteRange | null;
  media: MediaRow;
}

/** One `bytes=` range of RFC 9110 §14.1.2; null (send everything) for several ranges or an unsatisfiable one. */
export function parseRange(header: string | undefined, size: number): ByteRange | null {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || size === 0) return null;
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Math.min(Number(last), size);
    return suffix === 0 ? null : { start: size - suffix, end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return start < size && start <= end ? { start, end } : null;
}

export async function openLocalFile(
  deps: LocalDeps,
  request: SignedRequest & { range: string | undefined; variant?: unknown },
): Promise<LocalFile> {
  const { expiresAt, signature } = parseSigned(request);
  if (request.variant !== undefined && (typeof request.variant !== 'string' || !VARIANT_ID.test(request.variant)))
    throw invalidUrl();
  const found = await findMedia(deps.pool, request.workspaceId.toLowerCase(), request.mediaId);
  // A variant's URL (media.variants.ts) names it in `variant`; its signature covers the variant's own key.
  const variant =
    found && typeof request.variant === 'string'
      ? await findVariant(deps.pool, found.workspace_id, request.variant)
      : undefined;
  if (variant && (variant.media_id !== found?.id || variant.status !== 'ready')) throw invalidUrl();
  const row: MediaRow | undefined =
    found && variant
      ? {
          ...found,
          storage_key: variant.storage_key,
          content_type: variant.content_type,
          size_bytes: variant.size_bytes,
          sha256: variant.sha256,
        }
      : request.variant === undefined
        ? found
        : undefined;
  const signed =
    row?.storage_key &&
    deps.storage.verifyRead(
      { workspaceId: row.workspace_id, mediaId: row.id, storageKey: row.storage_key, expiresAt },
      signature,
    );
  if (!row || !signed) throw invalidUrl();
  checkExpiry(expiresAt, deps.clock.now());
  const size = row.size_bytes ?? 0;
  const range = parseRange(request.range, size);
  return {
    status: range ? 206 : 200,
    open: () => deps.storage.open(row.storage_key!, range ?? undefined),
    size,
    range,
    media: row,
  };
}
