// What other accounts do to a simulated account's posts (docs/inbox.md "Test mode"): comments, replies, mentions,
// direct messages and reviews, in each platform's own shapes (the platform modules store and serve them).
//
// Two sources, both through the platform module:
//   - the trickle: every `inboxEverySeconds` (simulator setting; 0 or unset: off, as in tests) after a post is made,
//     one more comment on it appears, up to TRICKLE_CAP per post. Which ones are due is a pure function of the
//     post's time and the clock, and each is written once (a marker document per post and index), so restarts and
//     API nodes never double them;
//   - the control switch: `POST /_sandbox/inbox` (the control surface) or `Simulator.inject` injects chosen items.
/** What the trickle reads of the simulator's kit (simulator.ts imports this file, so only the shape is named). */
type TrickleKit = {
  settings: Record<string, unknown>;
  now(): number;
  store: { insert(kind: string, id: string, value: unknown): Promise<boolean> };
};

export const INJECTION_KINDS = ['comment', 'reply', 'mention', 'dm', 'review'] as const;
export type InjectionKind = (typeof INJECTION_KINDS)[number];

/** Items to inject, as the control switch takes them. */
export interface InboxInjection {
  /** The simulated account (its username, or handle on the platform) whose inbox receives the items. */
  account: string;
  kind: InjectionKind;
  /** The account's post the items are on (comments, replies to it, mentions in a reply); default: its newest. */
  post_id?: string;
  /** The comment a `reply` answers (default: the post itself). */
  parent_id?: string;
  text?: string;
  /** Who writes (a username); default: one of the trickle's simulated people. */
  author?: string;
  /** How many (1–1000), each with its text numbered when more than one. */
  count?: number;
}

export type InjectResult = { ids: string[] } | { error: string };

/** Comments the trickle adds to one post at most. */
export const TRICKLE_CAP = 12;

const PEOPLE = ['ana_lima', 'ben.okafor', 'chloe_m', 'dev_patel', 'eva.schmidt', 'farid_k', 'grace_ho', 'hugo.b'];
const LINES = [
  'Love this!',
  'How much does it cost?',
  'Is there a link to buy this?',
  'Great post, thanks for sharing.',
  'Do you ship internationally?',
  'What are your opening hours?',
  'This did not work for me, can someone help?',
  'Congrats to the team!',
];

/** The setting that turns the trickle on: seconds between two comments on one post. */
export function trickleEvery(kit: TrickleKit): number {
  const every = Number(kit.settings.inboxEverySeconds ?? 0);
  return Number.isFinite(every) && every > 0 ? every : 0;
}

/** How many trickle comments post made at `createdAtMs` has at `nowMs`. */
export function trickleDue(kit: TrickleKit, createdAtMs: number): number {
  const every = trickleEvery(kit);
  if (every === 0) return 0;
  return Math.min(TRICKLE_CAP, Math.floor(Math.max(0, kit.now() - createdAtMs) / (every * 1000)));
}

/** The author and text of the n-th trickle comment of a post (stable per post and n). */
export function trickleItem(postId: string, n: number): { author: string; text: string } {
  let h = 0;
  for (const ch of postId) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return { author: PEOPLE[(h + n) % PEOPLE.length]!, text: LINES[(h + n * 3) % LINES.length]! };
}

/**
 * Writes the trickle comments due on the given posts, each once: `write(post, n)` runs only for the (post, n) whose
 * marker this call inserted.
 */
export async function runTrickle<P extends { id: string; createdAt: number }>(
  kit: TrickleKit,
  posts: readonly P[],
  write: (post: P, n: number) => Promise<void>,
): Promise<void> {
  if (trickleEvery(kit) === 0) return;
  for (const post of posts) {
    const due = trickleDue(kit, post.createdAt);
    for (let n = 0; n < due; n++)
      if (await kit.store.insert('inbox-trickle', `${post.id}:${n}`, { at: kit.now() })) await write(post, n);
  }
}

/** The author and text of the i-th injected item. */
export function injectedItem(input: InboxInjection, i: number): { author: string; text: string } {
  const base = input.text ?? LINES[i % LINES.length]!;
  const count = input.count ?? 1;
  return {
    author: input.author ?? PEOPLE[i % PEOPLE.length]!,
    text: count > 1 ? `${base} (${i + 1})` : base,
  };
}

/** The control switch's body, checked: the injection, or why it is refused. */
export function parseInjection(body: unknown): InboxInjection | string {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.isBuffer(body) ? body.toString('utf8') : String(body ?? ''));
  } catch {
    return 'Send a JSON object: { account, kind, post_id?, parent_id?, text?, author?, count? }.';
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'Send a JSON object.';
  const v = value as Record<string, unknown>;
  if (typeof v.account !== 'string' || v.account === '') return '`account` (a username) is required.';
  if (!(INJECTION_KINDS as readonly unknown[]).includes(v.kind))
    return `\`kind\` must be one of ${INJECTION_KINDS.join(', ')}.`;
  for (const key of ['post_id', 'parent_id', 'text', 'author'] as const)
    if (v[key] !== undefined && typeof v[key] !== 'string') return `\`${key}\` must be a string.`;
  if (v.count !== undefined && (!Number.isInteger(v.count) || (v.count as number) < 1 || (v.count as number) > 1000))
    return '`count` must be an integer from 1 to 1000.';
  return v as unknown as InboxInjection;
}
