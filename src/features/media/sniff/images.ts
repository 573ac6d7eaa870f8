// Pixel dimensions of the image formats Herald accepts, read from their headers (no decoding): PNG's IHDR,
// GIF's logical screen, WebP's VP8/VP8L/VP8X headers and JPEG's start-of-frame segment, found by walking the
// marker segments at their offsets (EXIF and ICC blocks can push it far past the first kilobytes).
import type { ByteReader } from './byte-reader.ts';

export interface Dimensions {
  width: number;
  height: number;
}

/** Dimensions, or a reason they could not be read. */
export type DimensionsResult = Dimensions | { unreadable: string };

export function pngDimensions(head: Buffer): DimensionsResult {
  if (head.length < 24 || head.toString('latin1', 12, 16) !== 'IHDR')
    return { unreadable: 'the PNG has no IHDR header where the format puts it' };
  return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
}

export function gifDimensions(head: Buffer): DimensionsResult {
  if (head.length < 10) return { unreadable: 'the GIF is shorter than its header' };
  return { width: head.readUInt16LE(6), height: head.readUInt16LE(8) };
}

export function webpDimensions(head: Buffer): DimensionsResult {
  const chunk = head.toString('latin1', 12, 16);
  if (chunk === 'VP8X' && head.length >= 30) {
    // Canvas size, 24-bit little-endian minus-one values.
    return { width: head.readUIntLE(24, 3) + 1, height: head.readUIntLE(27, 3) + 1 };
  }
  if (chunk === 'VP8L' && head.length >= 25 && head[20] === 0x2f) {
    const bits = head.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8 ' && head.length >= 30 && head[23] === 0x9d && head[24] === 0x01 && head[25] === 0x2a) {
    return { width: head.readUInt16LE(26) & 0x3fff, height: head.readUInt16LE(28) & 0x3fff };
  }
  return {
    unreadable: `the WebP has no readable VP8, VP8L or VP8X header (found "${chunk.replace(/[^\x20-\x7e]/g, '?')}")`,
  };
}

// Start-of-frame markers: baseline, extended, progressive, lossless, hierarchical and arithmetic variants.
// C4 (DHT), C8 (JPG extension) and CC (DAC) share the range but are not frames.
const SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);
const MAX_SEGMENTS = 1000;

/** The EXIF Orientation (tag 0x0112 of IFD0) in an APP1 segment's data, or undefined. */
export function exifOrientation(data: Buffer): number | undefined {
  if (data.length < 14 || data.toString('latin1', 0, 6) !== 'Exif\0\0') return undefined;
  const tiff = data.subarray(6);
  const little = tiff.toString('latin1', 0, 2) === 'II';
  if (!little && tiff.toString('latin1', 0, 2) !== 'MM') return undefined;
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const ifd = u32(4);
  if (ifd + 2 > tiff.length) return undefined;
  const entries = u16(ifd);
  for (let i = 0; i < entries; i++) {
    const at = ifd + 2 + i * 12;
    if (at + 12 > tiff.length) return undefined;
    if (u16(at) === 0x0112) return u16(at + 8);
  }
  return undefined;
}

/**
 * HEIF/HEIC/AVIF: the largest `ispe` (image spatial extent) property in the head — the primary image; tiles and
 * thumbnails have smaller ones — turned by a quarter when an `irot` property says so.
 */
export function heifDimensions(head: Buffer): DimensionsResult {
  let best: Dimensions | undefined;
  let turned = false;
  for (let at = head.indexOf('ispe', 4, 'latin1'); at >= 4; at = head.indexOf('ispe', at + 4, 'latin1')) {
    if (at + 16 > head.length) break;
    const width = head.readUInt32BE(at + 8);
    const height = head.readUInt32BE(at + 12);
    if (!best || width * height > best.width * best.height) best = { width, height };
  }
  for (let at = head.indexOf('irot', 4, 'latin1'); at >= 4; at = head.indexOf('irot', at + 4, 'latin1'))
    if (at + 5 <= head.length && head.readUInt32BE(at - 4) === 9 && (head[at + 4]! & 1) === 1) turned = true;
  if (!best || best.width === 0 || best.height === 0)
    return { unreadable: 'the HEIF file has no image size (ispe) in its first 64 KiB' };
  return turned ? { width: best.height, height: best.width } : best;
}

export async function jpegDimensions(reader: ByteReader): Promise<DimensionsResult> {
  let offset = 2; // after SOI
  let orientation: number | undefined;
  for (let i = 0; i < MAX_SEGMENTS; i++) {
    const header = await reader.read(offset, 9);
    if (header.length < 4 || header[0] !== 0xff)
      return { unreadable: 'the JPEG ends or breaks off before its frame header' };
    const marker = header[1]!;
    if (marker === 0xff) {
      offset += 1; // fill byte
      continue;
    }
    // Markers without a length: TEM, RSTn, SOI.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      offset += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return { unreadable: 'the JPEG has no frame header before its image data' };
    const length = header.readUInt16BE(2);
    if (marker === 0xe1 && length > 16) orientation ??= exifOrientation(await reader.read(offset + 4, length - 2));
    if (SOF.has(marker)) {
      if (header.length < 9) return { unreadable: 'the JPEG frame header is cut short' };
      const height = header.readUInt16BE(5);
      const width = header.readUInt16BE(7);
      // A height of 0 means "defined later by a DNL marker", which Herald does not chase.
      if (height === 0 || width === 0) return { unreadable: 'the JPEG frame header gives no height (DNL marker)' };
      // EXIF orientations 5–8 turn the picture a quarter: the size is reported as the picture is shown.
      return orientation !== undefined && orientation >= 5 && orientation <= 8
        ? { width: height, height: width }
        : { width, height };
    }
    if (length < 2) return { unreadable: 'the JPEG has a malformed segment' };
    offset += 2 + length;
  }
  return { unreadable: `the JPEG has more than ${MAX_SEGMENTS} segments before its frame header` };
}
