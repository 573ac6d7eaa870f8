// Turning a platform's HTTP error answer into a PlatformError with one table per adapter: rows of status (or
// status range) and an optional pattern on the body, first match wins. Each adapter's errors.ts is such a
// table, unit-tested against the platform's real error bodies.
import { DEFAULT_CODE, type PlatformErrorCode } from './errors.ts';
import type { PlatformResponse } from './http-contract.ts';
import { PlatformError, type PlatformErrorKind } from './types.ts';

export interface ErrorRule {
  status: number | [number, number];
  /** Tested against the raw body text. */
  body?: RegExp;
  kind: PlatformErrorKind;
  code?: PlatformErrorCode;
}

/** The platform's own message from its error body, whatever shape it has. */
export function messageOf(body: string): string {
  try {
    const json = JSON.parse(body) as Record<string, unknown>;
    const first = Array.isArray(json.errors) ? (json.errors[0] as Record<string, unknown> | undefined) : undefined;
    const text =
      json.detail ??
      json.message ??
      json.error_description ??
      first?.message ??
      first?.detail ??
      json.error ??
      json.title;
    if (typeof text === 'string' && text.trim()) return text.trim();
  } catch {
    // not JSON: fall through to the text itself
  }
  return body.trim().slice(0, 300) || 'no message';
}

export function classify(res: PlatformResponse, rules: ErrorRule[], platform: string): PlatformError {
  const text = res.text();
  const rule = rules.find((r) => {
    const inStatus = Array.isArray(r.status)
      ? res.status >= r.status[0] && res.status <= r.status[1]
      : res.status === r.status;
    return inStatus && (!r.body || r.body.test(text));
  });
  const kind: PlatformErrorKind = rule?.kind ?? (res.status >= 500 ? 'transient' : 'permanent');
  const code = rule?.code ?? DEFAULT_CODE[kind];
  return new PlatformError(kind, code, `${platform} answered ${res.status}: ${messageOf(text)}`, {
    platformStatus: res.status,
    platformBody: text,
    retryAfterMs: res.retryAfterMs,
  });
}

/** Waits `ms` (media processing polls). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
