// Making an image variant: decode (sharp/libvips; HEIC and HEIF through heic-decode, a WebAssembly build of
// libheif with an HEVC decoder, since prebuilt sharp has none), apply the EXIF orientation, pad or crop to the
// aspect range, scale into the pixel bounds, encode, and recompress (then shrink) until the file is under the byte
// limit. Metadata is dropped unless the spec keeps it. Pure computation on buffers: storage and rows are the
// caller's.
import type sharpFactory from 'sharp';
import type { Metadata, Sharp } from 'sharp';
import { fittedSize, type ImageVariantSpec } from './plan.ts';

export interface ConvertedImage {
  data: Buffer;
  contentType: string;
  width: number;
  height: number;
}

type SharpFactory = typeof sharpFactory;
let sharpLoaded: Promise<SharpFactory> | undefined;

/**
 * sharp (libvips, about 22 MiB resident) and heic-decode (about 27 MiB of WebAssembly) load on the first conversion,
 * not at start-up: an API process never converts, and a worker only when a post needs a variant. Conversions run a
 * few at once (HERALD_MEDIA_CONVERSIONS), each on its own image: one libvips thread per image and no operation cache
 * keep a 12-megapixel photo's working memory to its own buffers (bench/media-convert.ts).
 */
function loadSharp(): Promise<SharpFactory> {
  return (sharpLoaded ??= import('sharp').then(({ default: sharp }) => {
    sharp.cache(false);
    sharp.concurrency(1);
    return sharp;
  }));
}

/** A conversion that cannot succeed (animated GIF to a still-only platform, undecodable bytes): the reason. */
export class ConversionRefused extends Error {}

const QUALITIES = [85, 78, 70, 62, 55, 48];
/** Each further step scales by this much when even the lowest quality is over the byte limit. */
const SHRINK = 0.8;
const MIN_SIDE = 320;
/** Padding colour (white, as a printed photo's border). */
const PAD = { r: 255, g: 255, b: 255, alpha: 1 };

/** The decoder of the source: sharp itself, or raw pixels from heic-decode for HEIC/HEIF. */
async function source(input: Buffer, contentType: string): Promise<{ image: () => Sharp; meta: Metadata | null }> {
  const sharp = await loadSharp();
  if (contentType === 'image/heic' || contentType === 'image/heif') {
    let decoded: { width: number; height: number; data: Uint8ClampedArray };
    try {
      const { default: decodeHeic } = await import('heic-decode');
      decoded = await decodeHeic({ buffer: input });
    } catch (error) {
      throw new ConversionRefused(`the HEIC/HEIF file could not be decoded (${(error as Error).message})`);
    }
    const pixels = Buffer.from(decoded.data.buffer, decoded.data.byteOffset, decoded.data.byteLength);
    const raw = { width: decoded.width, height: decoded.height, channels: 4 as const };
    return { image: () => sharp(pixels, { raw }), meta: null };
  }
  let meta: Metadata;
  try {
    meta = await sharp(input).metadata();
  } catch (error) {
    throw new ConversionRefused(`the image could not be read (${(error as Error).message})`);
  }
  if ((meta.pages ?? 1) > 1 && contentType === 'image/gif')
    throw new ConversionRefused(
      'it is an animated GIF, which this platform takes only as a still image; upload a still image or a video',
    );
  return { image: () => sharp(input, { failOn: 'error', limitInputPixels: 268_402_689 }), meta };
}

function encode(pipeline: Sharp, contentType: string, quality: number, palette: boolean): Sharp {
  // A palette PNG stays a palette PNG (a truecolour copy of one can be several times its size); at quality 100
  // without dithering, libimagequant keeps an image of at most 256 colours exactly.
  if (contentType === 'image/png') return pipeline.png(palette ? { palette: true, quality: 100, dither: 0 } : {});
  if (contentType === 'image/webp') return pipeline.webp({ quality });
  // No optimised Huffman coding: it holds every coefficient of the image in memory (171 vs 44 MiB for a
  // 12-megapixel photo) and takes 2.5 times as long, for files about 15 % smaller.
  return pipeline.flatten({ background: PAD }).jpeg({ quality, optimiseCoding: false });
}

export async function convertImage(input: Buffer, sourceType: string, spec: ImageVariantSpec): Promise<ConvertedImage> {
  const { image, meta } = await source(input, sourceType);
  // The picture as it is shown (EXIF orientation applied) decides the aspect fitting and the scale.
  const upright = meta ? meta.autoOrient : await image().metadata();
  if (!upright.width || !upright.height) throw new ConversionRefused('the image has no readable pixel size');
  const target = fittedSize(upright.width, upright.height, spec, spec.fit);
  const fit = target.aspect === 'crop' ? 'cover' : target.aspect === 'pad' ? 'contain' : 'fill';
  // Metadata kept (the user asked): the original's EXIF (GPS included), ICC and XMP, with the orientation reset to 1
  // since the pixels are now upright. Otherwise sharp writes none.
  const keep = spec.keepMetadata && meta !== null;
  // Each attempt is one streaming pipeline from the source (decoded at a reduced size where the format allows):
  // libvips works in strips, so a 12-megapixel photo is never held whole in memory, and most images are done at the
  // first quality.
  let width = target.width;
  let height = target.height;
  for (;;) {
    for (const quality of QUALITIES) {
      let p = image().autoOrient().resize(width, height, { fit, background: PAD, position: 'centre' });
      if (keep) p = p.keepMetadata().withMetadata({ orientation: 1 });
      let data: Buffer;
      try {
        data = await encode(p, spec.contentType, quality, meta?.isPalette === true).toBuffer();
      } catch (error) {
        throw new ConversionRefused(`the image could not be decoded (${(error as Error).message})`);
      }
      if (data.length <= spec.maxBytes) return { data, contentType: spec.contentType, width, height };
      // PNG has no quality knob worth the name: go straight to shrinking.
      if (spec.contentType === 'image/png') break;
    }
    const nextW = Math.floor(width * SHRINK);
    const nextH = Math.floor(height * SHRINK);
    if (Math.min(nextW, nextH) < MIN_SIDE)
      throw new ConversionRefused(
        `even at ${width}×${height} and low quality the image is over ${spec.maxBytes} bytes`,
      );
    width = nextW;
    height = nextH;
  }
}
