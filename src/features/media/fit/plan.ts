// What fitting an image to a platform will do, decided from the media's stored facts alone (type, size, pixel size)
// and the platform's declared rules (`limits.media.imageFit`): nothing is decoded here. Validation and creation use
// it to refuse what cannot be fitted and to report what will be done; the publishing engine uses the same answer to
// pick (or ask for) the variant a target needs. Knows no platform by name: only the rules it is given.
import { createHash } from 'node:crypto';
import type { ImageFitRules, PlatformLimits, PlatformName } from '../../../platforms/limits.ts';

/** `platform_options.<platform>.media_fit`: what to do with an image outside the platform's aspect-ratio range. */
export const MEDIA_FIT_MODES = ['reject', 'pad', 'crop'] as const;
export type MediaFitMode = (typeof MEDIA_FIT_MODES)[number];

/** Image types Herald can decode and therefore fit (HEIC/HEIF through a WebAssembly decoder). */
export const FITTABLE_IMAGE_TYPES: ReadonlySet<string> = new Set([
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'image/heic',
  'image/heif',
  'image/avif',
]);
/** Types Herald writes as they are when the platform takes them; any other output is JPEG. */
const WRITABLE = new Set(['image/jpeg', 'image/png', 'image/webp']);
/**
 * Types whose files may carry metadata (EXIF: position, device, time; XMP; text): always re-encoded without it unless
 * the user keeps it. PNG is one: an `eXIf` chunk carries the same EXIF as a JPEG (phones and editors write it), and
 * `tEXt`/`iTXt` chunks carry XMP; the record cannot tell whether a PNG has them. GIF has no EXIF, and re-encoding
 * would lose an animation.
 */
const CARRIES_METADATA = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/heic', 'image/heif', 'image/avif']);

/** What a variant job is asked to make: generic over kinds (`image` here; other kinds add their own). */
export interface ImageVariantSpec extends ImageFitRules {
  kind: 'image';
  /** The output type. */
  contentType: string;
  /** Outside the aspect range: pad or crop to the nearest bound (`reject` never reaches a job). */
  fit: MediaFitMode;
  keepMetadata: boolean;
}

export interface FitOptions {
  fit: MediaFitMode;
  keepMetadata: boolean;
}

/** The facts about a stored image the plan needs. */
export interface FitMedia {
  id: string;
  contentType: string;
  sizeBytes: number;
  width: number | null;
  height: number | null;
}

export type ImagePlan =
  /** The platform takes the file as it is. */
  | { kind: 'original' }
  | {
      kind: 'variant';
      spec: ImageVariantSpec;
      ruleKey: string;
      /** What will be done, for `POST /posts/validate` (`converted from image/png`, `scaled to 2048×1536`). */
      actions: string[];
      /** The expected result (the job measures the real one). */
      contentType: string;
      width: number;
      height: number;
    }
  | { kind: 'refused'; rule: string; message: string };

/** The options of one platform (`platform_options.<platform>`) as far as fitting goes. */
export function fitOptionsOf(options: Record<string, unknown> | undefined): FitOptions {
  const fit = options?.media_fit;
  return {
    fit: fit === 'pad' || fit === 'crop' ? fit : 'reject',
    keepMetadata: options?.keep_metadata === true,
  };
}

const ratioText = (r: number) => {
  for (const [w, h] of [
    [4, 5],
    [1, 1],
    [16, 9],
    [9, 16],
    [3, 4],
    [4, 3],
  ] as const)
    if (Math.abs(r - w / h) < 0.001) return `${w}:${h}`;
  return r >= 1 ? `${Number(r.toFixed(2))}:1` : `1:${Number((1 / r).toFixed(2))}`;
};

/** The rule key of a spec: the platform, then a short hash of exactly what is asked for. */
export function ruleKeyOf(platform: PlatformName, spec: object): string {
  const canonical = JSON.stringify(spec, Object.keys(spec).sort());
  return `${platform}:${createHash('sha256').update(canonical).digest('hex').slice(0, 16)}`;
}

/** The size an image of `width`×`height` ends at under the spec (aspect first, then the pixel bounds). */
export function fittedSize(
  width: number,
  height: number,
  rules: ImageFitRules,
  fit: MediaFitMode,
): { width: number; height: number; aspect: 'pad' | 'crop' | null; ratio: number } {
  let w = width;
  let h = height;
  let aspect: 'pad' | 'crop' | null = null;
  const ratio = width / height;
  let target = ratio;
  if (rules.minAspect !== undefined && ratio < rules.minAspect) target = rules.minAspect;
  if (rules.maxAspect !== undefined && ratio > rules.maxAspect) target = rules.maxAspect;
  if (target !== ratio && fit !== 'reject') {
    aspect = fit;
    // Padding grows the short side; cropping shrinks the long one.
    const widen = target > ratio;
    if (fit === 'pad') {
      if (widen) w = Math.round(h * target);
      else h = Math.round(w / target);
    } else if (widen) h = Math.round(w / target);
    else w = Math.round(h * target);
  }
  let scale = 1;
  if (rules.maxWidth !== undefined) scale = Math.min(scale, rules.maxWidth / w);
  if (rules.maxHeight !== undefined) scale = Math.min(scale, rules.maxHeight / h);
  if (rules.maxPixels !== undefined) scale = Math.min(scale, Math.sqrt(rules.maxPixels / (w * h)));
  if (scale < 1) {
    w = Math.max(1, Math.floor(w * scale));
    h = Math.max(1, Math.floor(h * scale));
  }
  return { width: w, height: h, aspect, ratio: target };
}

const MB = 1_000_000;
const bytesText = (n: number) => (n >= MB ? `${Number((n / MB).toFixed(1))} MB` : `${Math.floor(n / 1000)} kB`);

/**
 * The plan for one image on one platform; null when the media is not an image Herald fits or the platform declares
 * no image rules (the older per-kind checks then apply as before).
 */
export function planImage(
  platform: PlatformName,
  limits: PlatformLimits,
  media: FitMedia,
  options: FitOptions,
): ImagePlan | null {
  const rules = limits.media.imageFit;
  if (!rules || !FITTABLE_IMAGE_TYPES.has(media.contentType)) return null;
  const name = limits.displayName;
  const accepted = Object.values(limits.media.kinds).some((k) => k.contentTypes.includes(media.contentType));
  const { width, height } = media;
  if (width === null || height === null || width <= 0 || height <= 0)
    return {
      kind: 'refused',
      rule: 'media_dimensions_unknown',
      message: `Herald could not read the pixel size of media ${media.id}, so it cannot fit it to ${name}'s image rules; re-save it as JPEG or PNG.`,
    };
  const ratio = width / height;
  const outside =
    (rules.minAspect !== undefined && ratio < rules.minAspect - 1e-9) ||
    (rules.maxAspect !== undefined && ratio > rules.maxAspect + 1e-9);
  if (outside && options.fit === 'reject') {
    const range = `${ratioText(rules.minAspect ?? 0)} to ${ratioText(rules.maxAspect ?? Infinity)}`;
    return {
      kind: 'refused',
      rule: 'media_aspect_ratio',
      message: `Media ${media.id} is ${width}×${height} (${ratioText(ratio)}); ${name} takes images from ${range}. Set platform_options.${platform}.media_fit to "pad" or "crop" to let Herald fit it.`,
    };
  }
  const size = fittedSize(width, height, rules, options.fit);
  const scaled = size.width !== width || size.height !== height;
  const tooBig = media.sizeBytes > rules.maxBytes;
  const convert = !accepted || (tooBig && media.contentType !== 'image/jpeg') || !WRITABLE.has(media.contentType);
  const stripOnly = !options.keepMetadata && CARRIES_METADATA.has(media.contentType);
  // A GIF the platform takes, within its bounds, goes as it is (animation intact; GIFs carry no EXIF).
  if (!convert && !scaled && !tooBig && !size.aspect && !stripOnly) return { kind: 'original' };
  if (accepted && media.contentType === 'image/gif' && !scaled && !tooBig && !size.aspect) return { kind: 'original' };
  const contentType = convert ? 'image/jpeg' : media.contentType;
  const spec: ImageVariantSpec = {
    kind: 'image',
    contentType,
    fit: options.fit,
    keepMetadata: options.keepMetadata,
    maxBytes: rules.maxBytes,
    ...(rules.maxWidth !== undefined && { maxWidth: rules.maxWidth }),
    ...(rules.maxHeight !== undefined && { maxHeight: rules.maxHeight }),
    ...(rules.maxPixels !== undefined && { maxPixels: rules.maxPixels }),
    ...(rules.minAspect !== undefined && { minAspect: rules.minAspect }),
    ...(rules.maxAspect !== undefined && { maxAspect: rules.maxAspect }),
  };
  const actions: string[] = [];
  if (convert) actions.push(`converted from ${media.contentType} to ${contentType}`);
  if (size.aspect === 'pad') actions.push(`padded to ${ratioText(size.ratio)}`);
  if (size.aspect === 'crop') actions.push(`cropped to ${ratioText(size.ratio)}`);
  if (scaled) actions.push(`scaled to ${size.width}×${size.height}`);
  if (tooBig) actions.push(`recompressed to at most ${bytesText(rules.maxBytes)}`);
  actions.push(options.keepMetadata ? 'metadata kept' : 'metadata stripped');
  return {
    kind: 'variant',
    spec,
    ruleKey: ruleKeyOf(platform, spec),
    actions,
    contentType,
    width: size.width,
    height: size.height,
  };
}
