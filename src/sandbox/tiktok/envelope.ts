// TikTok's answer envelope: every v2 API answer is `{ data, error: { code, message, log_id } }`, `code` "ok" on
// success (developers.tiktok.com tiktok-api-v2-error-handling).
import { randomBytes } from 'node:crypto';
import type { SimulatorKit } from '../framework/simulator.ts';

/** TikTok's `log_id`: a timestamp and random hex, like `20240829190020EBE0D84CCEA6DE000CB6`. */
export function logId(now: number): string {
  const stamp = new Date(now)
    .toISOString()
    .replace(/[-:TZ.]/g, '')
    .slice(0, 14);
  return `${stamp}${randomBytes(10).toString('hex').toUpperCase()}`;
}

/** `{ data, error: ok }`: TikTok's success envelope. */
export function ok(kit: SimulatorKit, data: unknown) {
  return { data, error: { code: 'ok', message: '', log_id: logId(kit.now()) } };
}
