// The content types Herald accepts for upload, the kind each belongs to (which decides the size cap), and the
// one way declared and sent Content-Types are compared: lower-case type/subtype, parameters ignored.
import type { MediaKind } from '../../platforms/limits.ts';

/** Kinds as far as storage and caps are concerned; `gif` is a platform-rule distinction only (X), not a cap. */
export type UploadKind = Exclude<MediaKind, 'gif'>;

/**
 * Every content type some platform in the catalogue takes (a test keeps this in step with PLATFORM_LIMITS), and the
 * image types Herald converts for them.
 * `sniffedAs` lists what the sniffer may report for bytes of this type: an M4V file is an MP4 with another brand.
 */
export const UPLOAD_TYPES: Record<
  string,
  { kind: UploadKind; sniffedAs: readonly string[]; maxBytes?: number; text?: true }
> = {
  'image/jpeg': { kind: 'image', sniffedAs: ['image/jpeg'] },
  'image/png': { kind: 'image', sniffedAs: ['image/png'] },
  'image/gif': { kind: 'image', sniffedAs: ['image/gif'] },
  'image/webp': { kind: 'image', sniffedAs: ['image/webp'] },
  // Phone photos: no platform takes them, Herald converts them (src/features/media/fit/). A HEIF file's brand says
  // heic or mif1, which the sniffer reports as image/heic or image/heif: either declared type takes both.
  'image/heic': { kind: 'image', sniffedAs: ['image/heic', 'image/heif'] },
  'image/heif': { kind: 'image', sniffedAs: ['image/heif', 'image/heic'] },
  'image/avif': { kind: 'image', sniffedAs: ['image/avif'] },
  'video/mp4': { kind: 'video', sniffedAs: ['video/mp4', 'video/x-m4v'] },
  'video/quicktime': { kind: 'video', sniffedAs: ['video/quicktime'] },
  'video/webm': { kind: 'video', sniffedAs: ['video/webm'] },
  'application/pdf': { kind: 'document', sniffedAs: ['application/pdf'] },
  // Bulk imports (docs/queues.md "Bulk import"): a document no platform takes, read by Herald only. Text has no
  // signature: the bytes must be UTF-8 without control characters (sniff/text.ts); it is never processed as an image.
  'text/csv': { kind: 'document', sniffedAs: ['text/csv'], maxBytes: 10 * 1024 * 1024, text: true },
};

/** Spellings clients send that mean a supported type. */
const ALIASES: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'video/x-quicktime': 'video/quicktime',
};

/** `Image/PNG; charset=x` → `image/png`; anything that is not a type/subtype pair → undefined. */
export function normaliseContentType(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const essence = raw.split(';', 1)[0]!.trim().toLowerCase();
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(essence)) return undefined;
  return ALIASES[essence] ?? essence;
}

export function isUploadType(contentType: string): boolean {
  return Object.hasOwn(UPLOAD_TYPES, contentType);
}

export function kindOf(contentType: string): UploadKind {
  const entry = UPLOAD_TYPES[contentType];
  if (!entry) throw new Error(`Not an upload type: ${contentType}`);
  return entry.kind;
}

/** The size cap of an upload of this type: its own (CSV), else its kind's. */
export function capOf(contentType: string, kindCaps: Record<UploadKind, number>): number {
  return UPLOAD_TYPES[contentType]?.maxBytes ?? kindCaps[kindOf(contentType)];
}

/** Whether bytes sniffed as `sniffed` may be stored under the declared type. */
export function sniffMatches(declared: string, sniffed: string): boolean {
  return UPLOAD_TYPES[declared]?.sniffedAs.includes(sniffed) ?? false;
}
