// How a LinkedIn asset is processed once its bytes are complete (docs/platforms/linkedin.md "Calls"): each kind's
// accepted types and size, the image pixel cap, and the states WAITING_UPLOAD → PROCESSING → AVAILABLE |
// PROCESSING_FAILED, driven by the clock; the outcome is decided when processing starts. Processing times are settings
// (`linkedinImageProcessingMs`, `linkedinVideoProcessingMs`, `linkedinDocumentProcessingMs`).
import type { SimulatorKit } from '../framework/simulator.ts';
import { sniff } from '../framework/sniff.ts';
import type { AssetKind, LiAsset } from './state.ts';

export const MB = 1024 * 1024;
const MAX_PIXELS = 36_152_320;
export const RULES: Record<
  AssetKind,
  { maxBytes: number; types: string[]; processingSetting: string; processingMs: number }
> = {
  image: {
    maxBytes: 8 * MB,
    types: ['image/jpeg', 'image/png', 'image/gif'],
    processingSetting: 'linkedinImageProcessingMs',
    processingMs: 300,
  }, // ⚠ size
  video: {
    maxBytes: 500 * MB,
    types: ['video/mp4'],
    processingSetting: 'linkedinVideoProcessingMs',
    processingMs: 2500,
  }, // ⚠ size
  document: {
    maxBytes: 100 * MB,
    types: ['application/pdf'],
    processingSetting: 'linkedinDocumentProcessingMs',
    processingMs: 800,
  }, // ⚠ size
};

/** A number setting of the simulator, or its default. */
export function setting(kit: SimulatorKit, name: string, fallback: number): number {
  return typeof kit.settings[name] === 'number' ? (kit.settings[name] as number) : fallback;
}

/** Where an asset stands, by the clock. */
export function assetStatus(
  kit: SimulatorKit,
  a: LiAsset,
): 'WAITING_UPLOAD' | 'PROCESSING' | 'AVAILABLE' | 'PROCESSING_FAILED' {
  if (a.uploadedAt === null) return 'WAITING_UPLOAD';
  if (kit.now() < a.readyAt) return 'PROCESSING';
  return a.failed ? 'PROCESSING_FAILED' : 'AVAILABLE';
}

/** The type of the bytes, PDF included (LinkedIn takes documents). */
export function sniffAll(data: Buffer): string | undefined {
  if (data.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  return sniff(data);
}

/** What processing learns of the complete file: its size, its type (its first bytes') and an image's pixels. */
export interface UploadedFile {
  bytes: number;
  sniffed: string | undefined;
  pixels: number | undefined;
}

/** The bytes are complete: processing starts, and its outcome is decided now (shown once the clock gets there). */
export function startProcessing(kit: SimulatorKit, a: LiAsset, file: UploadedFile): LiAsset {
  const rule = RULES[a.kind];
  const uploadedAt = kit.now();
  const readyAt =
    uploadedAt +
    setting(kit, rule.processingSetting, rule.processingMs) +
    (a.fault?.fault === 'slow_media' ? (a.fault.delayMs ?? 3000) : 0);
  let failed: string | null = null;
  if (!file.sniffed || !rule.types.includes(file.sniffed))
    failed = `The file is not a supported ${a.kind} (${file.sniffed ?? 'unrecognised format'}).`;
  else if (file.bytes > rule.maxBytes)
    failed = `The ${a.kind} is ${file.bytes} bytes; at most ${rule.maxBytes} are accepted.`;
  else if (file.pixels !== undefined && file.pixels > MAX_PIXELS)
    failed = `The image has ${file.pixels} pixels; at most ${MAX_PIXELS}.`;
  if (a.fault?.fault === 'media_failed') failed = 'Media processing failed (injected).';
  return { ...a, uploadedAt, readyAt, failed, bytes: file.bytes, sniffed: file.sniffed };
}
