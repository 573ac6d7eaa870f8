// The rules engine: every rule over the same samples, in a fixed order, and the fingerprint that dedupes a finding
// across regenerations. Pure: same samples, same period, same answer.
// `inbox_response` (unanswered inbox items) is a kind the table and API know, but its rule waits for the inbox
// feature, which has no tables yet; whichever lands later adds `inbox-response.ts` here.
import { createHash } from 'node:crypto';
import { bestTime } from './best-time.ts';
import { decay } from './decay.ts';
import { format } from './format.ts';
import { frequency } from './frequency.ts';
import { platformMix } from './platform-mix.ts';
import { topPost } from './top-post.ts';
import type { InsightDraft, Rule, RuleInput } from './types.ts';
import { underperformer } from './underperformer.ts';

export const RULES: ReadonlyArray<{ kind: InsightDraft['kind']; rule: Rule }> = [
  { kind: 'underperformer', rule: underperformer },
  { kind: 'top_post', rule: topPost },
  { kind: 'best_time', rule: bestTime },
  { kind: 'frequency', rule: frequency },
  { kind: 'format', rule: format },
  { kind: 'platform_mix', rule: platformMix },
  { kind: 'decay', rule: decay },
];

/** Names a finding by brand, kind and subject only: the same finding regenerated keeps its row and status. */
export function fingerprintOf(brandId: string, draft: Pick<InsightDraft, 'kind' | 'subject'>): string {
  return createHash('sha256').update(`${brandId}\n${draft.kind}\n${draft.subject}`).digest('hex').slice(0, 32);
}

export function runRules(input: RuleInput): Array<InsightDraft & { fingerprint: string }> {
  return RULES.flatMap(({ rule }) => rule(input)).map((d) => ({ ...d, fingerprint: fingerprintOf(input.brandId, d) }));
}
