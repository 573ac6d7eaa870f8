// What `herald-client` prints, and the exit code each outcome gives (docs/ci-cd.md "Exit codes"). Plain lines that
// read well in a CI log: no colour, no cursor movement except the upload progress bar on a terminal.
import { HeraldError } from '../errors.js';

export const EXIT = {
  /** Published, scheduled, created, valid. */
  ok: 0,
  /** A target failed (or did not finish within --wait-timeout). */
  targetFailed: 1,
  /** Invalid input: a usage mistake, or Herald refused the request (400, 404, 409, 422). */
  invalid: 2,
  /** Authentication or permission: the key is missing, invalid, expired, or lacks a scope (401, 403). */
  auth: 3,
  /** Herald unreachable, or answering 5xx or 429, after retries. */
  unavailable: 4,
} as const;

/** A mistake in the command line or the environment: exit 2 with the message and the usage hint. */
export class UsageError extends Error {}

export interface Target {
  platform: string;
  status: string;
  url?: string | null;
  error?: { code?: string; message?: string } | null;
}

export interface PostView {
  id: string;
  status: string;
  schedule_at?: string | null;
  content?: string;
  targets?: Target[];
}

export interface Io {
  out(line: string): void;
  err(line: string): void;
}

export const FINAL_TARGET_STATUSES = new Set(['published', 'failed', 'cancelled']);

/** One line per target: platform, status, and its URL once published or its error once failed. */
export function targetLines(post: PostView): string[] {
  const targets = post.targets ?? [];
  const width = Math.max(8, ...targets.map((t) => t.platform.length));
  return targets.map((t) => {
    const detail =
      t.status === 'published'
        ? (t.url ?? '(no URL reported)')
        : t.status === 'failed'
          ? `${t.error?.code ?? 'failed'}: ${t.error?.message ?? ''}`.trim()
          : '';
    return `  ${t.platform.padEnd(width)}  ${t.status.padEnd(10)}  ${detail}`.trimEnd();
  });
}

export function describePost(post: PostView): string {
  const when = post.status === 'scheduled' && post.schedule_at ? ` for ${post.schedule_at}` : '';
  return `post ${post.id}: ${post.status}${when}`;
}

/** The exit code of an error the command ends with. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.invalid;
  if (!(error instanceof HeraldError)) return EXIT.unavailable;
  if (error.status === 401 || error.status === 403) return EXIT.auth;
  if (error.status === 0 || error.status === 429 || error.status >= 500) return EXIT.unavailable;
  return EXIT.invalid;
}

/** The error as a person reads it in a log: Herald's code, message, the first details and the request id. */
export function errorLines(error: unknown): string[] {
  if (error instanceof UsageError) return [`error: ${error.message}`, 'Run herald-client --help for usage.'];
  if (!(error instanceof HeraldError)) return [`error: ${(error as Error)?.message ?? String(error)}`];
  const lines = [`error: ${error.code}${error.status ? ` (HTTP ${error.status})` : ''}: ${error.message}`];
  for (const d of error.details.slice(0, 10)) {
    const detail = d as { path?: string; platform?: string | null; rule?: string; message?: string };
    const where = [detail.platform, detail.rule, detail.path].filter(Boolean).join(' · ');
    lines.push(`  - ${where ? `${where}: ` : ''}${detail.message ?? ''}`);
  }
  if (error.request_id) lines.push(`  request id: ${error.request_id}`);
  if (exitCodeOf(error) === EXIT.unavailable)
    lines.push('  Herald could not be reached or kept failing after retries; check HERALD_URL and try again.');
  return lines;
}

/** A progress bar on a terminal (stderr), nothing in a log. */
export function progressBar(stream: NodeJS.WriteStream, label: string, total: number): (sent: number) => void {
  if (!stream.isTTY || total <= 0) return () => {};
  let shown = -1;
  return (sent) => {
    const percent = Math.min(100, Math.floor((sent / total) * 100));
    if (percent === shown) return;
    shown = percent;
    const width = 30;
    const filled = Math.round((percent / 100) * width);
    stream.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(percent).padStart(3)}%`);
    if (percent === 100) stream.write('\n');
  };
}
