// Real photos made in the tests with sharp (no binary blobs in the repository): a picture with detail (so that
// it does not compress to nothing), in any format sharp writes, with an EXIF orientation and a GPS position when
// asked; and the readers that check what came out (orientation, GPS, format, pixel size).
import sharp from 'sharp';
import { gif } from './media-fixtures.ts';

export interface PhotoOptions {
  /** EXIF orientation 1–8 (JPEG only). */
  orientation?: number;
  /** Adds a GPS position to the EXIF (JPEG, and PNG in an `eXIf` chunk). */
  gps?: boolean;
  /** Random detail on top of the gradient: 0 (smooth) to 1 (noise), which decides how big the file is. */
  detail?: number;
  format?: 'jpeg' | 'png' | 'webp' | 'avif' | 'gif';
  quality?: number;
}

/** A `width`×`height` picture (as stored: an orientation of 5–8 shows it turned a quarter). */
export async function photo(width: number, height: number, options: PhotoOptions = {}): Promise<Buffer> {
  const detail = options.detail ?? 0.3;
  const pixels = Buffer.alloc(width * height * 3);
  let seed = 12345;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const noise = ((seed >> 16) & 0xff) * detail;
      const i = (y * width + x) * 3;
      pixels[i] = ((x / width) * 255 * (1 - detail) + noise) & 0xff;
      pixels[i + 1] = ((y / height) * 255 * (1 - detail) + noise) & 0xff;
      pixels[i + 2] = (128 * (1 - detail) + noise) & 0xff;
    }
  const image = sharp(pixels, { raw: { width, height, channels: 3 } });
  const format = options.format ?? 'jpeg';
  const exif = {
    IFD0: { Make: 'HeraldCam', Model: 'Test 1' },
    ...(options.gps && {
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '48/1 51/1 24/1',
        GPSLongitudeRef: 'E',
        GPSLongitude: '2/1 21/1 3/1',
      },
    }),
  };
  // A PNG with a position carries it in an `eXIf` chunk, as phones and editors write it.
  if (format === 'png' && options.gps) return image.png().withExif(exif).toBuffer();
  if (format !== 'jpeg') return image.toFormat(format, { quality: options.quality ?? 80 }).toBuffer();
  let jpeg = await image
    .jpeg({ quality: options.quality ?? 90 })
    .withExif(exif)
    .toBuffer();
  if (options.orientation && options.orientation !== 1)
    jpeg = await sharp(jpeg).keepExif().withMetadata({ orientation: options.orientation }).jpeg().toBuffer();
  return jpeg;
}

/** What a file holds, read back with sharp: format, size, orientation, and whether EXIF and a GPS position remain. */
export async function inspectImage(data: Buffer) {
  const m = await sharp(data).metadata();
  const exif = m.exif ?? null;
  return {
    format: m.format,
    width: m.width,
    height: m.height,
    orientation: m.orientation ?? 1,
    exif: exif !== null,
    // The GPS IFD pointer (tag 0x8825), in either byte order.
    gps: exif !== null && (exif.includes(Buffer.from([0x88, 0x25])) || exif.includes(Buffer.from([0x25, 0x88]))),
    pages: m.pages ?? 1,
  };
}

/** The mean colour of a region (padding is white; a picture's own pixels are not). */
export async function meanOf(data: Buffer, region: { left: number; top: number; width: number; height: number }) {
  const part = await sharp(data).extract(region).png().toBuffer();
  const { channels } = await sharp(part).stats();
  return channels.slice(0, 3).map((c) => Math.round(c.mean));
}

/** A two-frame GIF (the same frame twice: a GIF with more than one image is animated to every reader). */
export function animatedGif(width = 20, height = 20): Buffer {
  const one = gif(width, height);
  // Header (13 bytes) and the two-entry global colour table (6), then the frame, then the trailer (0x3b).
  const frame = one.subarray(19, one.length - 1);
  return Buffer.concat([one.subarray(0, 19), frame, frame, Buffer.from([0x3b])]);
}
