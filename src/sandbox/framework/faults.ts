// Fault switches of a simulator: rules that make the next matching calls fail the way the real platform
// fails. Tests (and load tests) add them through the control surface or directly on a standalone simulator.

export const FAULT_NAMES = [
  'rate_limited', //  429 with the platform's reset headers
  'expired_token', // 401 (or the platform's own "expired token" answer)
  'server_error', //  5xx with the platform's error body
  'hang', //          no answer at all: the client's deadline passes (request not processed)
  'lost_response', // the request takes effect, then the connection drops before the answer (unknown outcome)
  'slow_media', //    media processing takes `delayMs` longer
  'media_failed', //  media processing ends in failure
  'duplicate', //     the platform's duplicate-content rejection
  'published_but_blocked', // the post goes live, yet the answer is a block (Instagram/Threads 2207051 "blocked your request")
  'reply_window_closed', // an answer to an inbox item is refused: its reply window closed (DMs after 24 h)
  'item_deleted', //  an answer to an inbox item is refused: the comment or message was deleted
] as const;
export type FaultName = (typeof FAULT_NAMES)[number];

export interface FaultRule {
  fault: FaultName;
  /** The simulator operation it applies to (`create_post`, `upload_media`, `token`, …); `*` for any. */
  operation?: string;
  /** Only for this account. */
  account?: string;
  /** How many times it fires; default 1, or unlimited when `probability` is set. */
  times?: number;
  /** Let this many matching calls through before firing (fail the second part of a thread: `skip: 1`). */
  skip?: number;
  /** Fire on this fraction of matching calls (0–1). */
  probability?: number;
  /** rate_limited: seconds until the reset (default 2). slow_media: extra processing time (default 3000 ms). */
  retryAfterSeconds?: number;
  delayMs?: number;
}

export interface FaultBoard {
  add(rule: FaultRule): void;
  clear(): void;
  /** The rule that fires for this call, if any (and counts it). */
  take(operation: string, account?: string): FaultRule | undefined;
  rules(): FaultRule[];
  /** How many times each fault fired. */
  fired(): Record<string, number>;
}

export function isFaultRule(value: unknown): value is FaultRule {
  if (!value || typeof value !== 'object') return false;
  const r = value as Record<string, unknown>;
  return (
    typeof r.fault === 'string' &&
    (FAULT_NAMES as readonly string[]).includes(r.fault) &&
    (r.probability === undefined || (typeof r.probability === 'number' && r.probability >= 0 && r.probability <= 1)) &&
    (r.times === undefined || (Number.isInteger(r.times) && (r.times as number) >= 0)) &&
    (r.skip === undefined || (Number.isInteger(r.skip) && (r.skip as number) >= 0))
  );
}

export function createFaultBoard(random: () => number = Math.random): FaultBoard {
  let list: Array<FaultRule & { left: number; toSkip: number }> = [];
  const counts: Record<string, number> = {};
  return {
    add(rule) {
      list.push({
        ...rule,
        left: rule.times ?? (rule.probability !== undefined ? Infinity : 1),
        toSkip: rule.skip ?? 0,
      });
    },
    clear() {
      list = [];
    },
    take(operation, account) {
      for (const rule of list) {
        if (rule.left <= 0) continue;
        if (rule.operation !== undefined && rule.operation !== '*' && rule.operation !== operation) continue;
        if (rule.account !== undefined && rule.account !== account) continue;
        if (rule.toSkip > 0) {
          rule.toSkip--;
          continue;
        }
        if (rule.probability !== undefined && random() >= rule.probability) continue;
        rule.left--;
        counts[rule.fault] = (counts[rule.fault] ?? 0) + 1;
        const { left: _left, toSkip: _toSkip, ...plain } = rule;
        return plain;
      }
      return undefined;
    },
    rules: () => list.filter((r) => r.left > 0).map(({ left: _left, toSkip: _toSkip, ...r }) => r),
    fired: () => ({ ...counts }),
  };
}
