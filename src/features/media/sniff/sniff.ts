// What uploaded bytes really are: the content type from their magic bytes (`file-type`, which knows far more
// formats than Herald accepts, so a mismatch can say what the bytes are), plus pixel size and, for MP4/MOV,
// duration. A value Herald cannot read is null and listed in `unreadable` with the reason, never guessed.
import { fileTypeFromBuffer } from 'file-type';
import { withHead, type ByteReader } from './byte-reader.ts';
import {
  gifDimensions,
  heifDimensions,
  jpegDimensions,
  pngDimensions,
  webpDimensions,
  type DimensionsResult,
} from './images.ts';
import { readVideoInfo } from './isobmff.ts';

export type MetadataField = 'width' | 'height' | 'duration_ms' | 'video_codec' | 'frame_rate';

export interface Unreadable {
  field: MetadataField;
  reason: string;
}

export interface SniffResult {
  /** The type the bytes are, e.g. `image/png`; null when no known signature matches. */
  contentType: string | null;
  width: number | null;
  height: number | null;
  durationMs: number | null;
  unreadable: Unreadable[];
  /** MP4/MOV only: codecs and frame rate read from the box tree (null members are listed in `unreadable`). */
  tracks?: { videoCodec: string | null; audioCodec: string | null; frameRate: number | null };
}

// Enough for every signature file-type checks on the formats Herald takes, and for PNG/GIF/WebP headers.
const HEAD_BYTES = 64 * 1024;

function fromDimensions(contentType: string, result: DimensionsResult): SniffResult {
  if ('unreadable' in result) {
    return {
      contentType,
      width: null,
      height: null,
      durationMs: null,
      unreadable: [
        { field: 'width', reason: result.unreadable },
        { field: 'height', reason: result.unreadable },
      ],
    };
  }
  return { contentType, width: result.width, height: result.height, durationMs: null, unreadable: [] };
}

export async function sniff(source: ByteReader): Promise<SniffResult> {
  const reader = withHead(source, HEAD_BYTES);
  const head = await reader.head();
  const detected = head.length > 0 ? await fileTypeFromBuffer(head) : undefined;
  const contentType = detected?.mime ?? null;
  switch (contentType) {
    case 'image/png':
      return fromDimensions(contentType, pngDimensions(head));
    case 'image/gif':
      return fromDimensions(contentType, gifDimensions(head));
    case 'image/webp':
      return fromDimensions(contentType, webpDimensions(head));
    case 'image/jpeg':
      return fromDimensions(contentType, await jpegDimensions(reader));
    case 'image/heic':
    case 'image/heif':
    case 'image/avif':
      return fromDimensions(contentType, heifDimensions(head));
    case 'video/mp4':
    case 'video/x-m4v':
    case 'video/quicktime': {
      const info = await readVideoInfo(reader);
      return {
        contentType,
        width: info.width,
        height: info.height,
        durationMs: info.durationMs,
        unreadable: info.unreadable,
        tracks: { videoCodec: info.videoCodec, audioCodec: info.audioCodec, frameRate: info.frameRate },
      };
    }
    case 'video/webm': {
      const reason = 'Herald does not read WebM (Matroska) metadata';
      return {
        contentType,
        width: null,
        height: null,
        durationMs: null,
        unreadable: (['width', 'height', 'duration_ms', 'video_codec', 'frame_rate'] as const).map((field) => ({
          field,
          reason,
        })),
      };
    }
    default:
      // Documents (PDF) and anything unrecognised: no pixel size or duration applies.
      return { contentType, width: null, height: null, durationMs: null, unreadable: [] };
  }
}
