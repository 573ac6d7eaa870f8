// What the Inbox pages share: the API's types, the enumerations docs/inbox.md defines, the workspace's members
// and connections (for names instead of ids), and the platform rules of a refused reply in words.
import { useId, type ReactNode } from 'react';
import type { components, Herald } from '@herald/client';
import { HeraldError } from '../../api.ts';
import { useApp, useLoad, type Loaded } from '../../ui.tsx';
import './inbox.css';

export type InboxItem = components['schemas']['InboxItem'];
export type InboxThreadItem = components['schemas']['InboxItemWithThread'];
export type InboxResponse = InboxItem['responses'][number];
export type Kind = InboxItem['kind'];
export type ItemStatus = InboxItem['status'];
export type Automation = components['schemas']['InboxAutomation'];
export type AutomationBody = components['schemas']['CreateInboxAutomationRequest'];
export type Member = components['schemas']['Member'];
export type Connection = components['schemas']['Connection'];
export type PlatformId = Connection['platform'];

export const KINDS: Kind[] = ['comment', 'reply', 'mention', 'dm', 'review'];
export const ITEM_STATUSES: ItemStatus[] = ['open', 'replied', 'resolved', 'archived', 'hidden'];
// The platforms whose inbox Herald reads (docs/inbox.md "Platforms"); TikTok and Pinterest have none.
export const INBOX_PLATFORMS: PlatformId[] = [
  'x',
  'mastodon',
  'bluesky',
  'facebook',
  'instagram',
  'threads',
  'linkedin',
  'youtube',
  'googlebusiness',
];

export const KIND_WORDS: Record<Kind, string> = {
  comment: 'Comment',
  reply: 'Reply',
  mention: 'Mention',
  dm: 'Direct message',
  review: 'Review',
};

/** The platform rules a reply can break (docs/inbox.md "Replies"), in words. */
const RULE_WORDS: Record<string, string> = {
  reply_window_closed:
    'The reply window has closed: the platform no longer accepts an answer to this message (for example a direct message older than the messaging window).',
  item_deleted: 'The message is gone from the platform (deleted or hidden), so it cannot be answered.',
  answer_unsupported: 'Herald cannot answer on this platform: its API gives no way to reply to this kind of message.',
  private_reply_unsupported: 'This platform does not let Herald answer this message privately.',
  reply_to_own_message: 'This is the account’s own message: answer the message it replies to instead.',
  draft_missing: 'There is no stored draft to send: write or generate one first.',
  template_placeholder_unknown: 'The template uses a placeholder Herald does not know.',
  template_empty: 'The template filled to no text.',
  assignee_not_member: 'That person is not a member of this workspace.',
};

export function ruleInWords(rule: string | undefined): string | undefined {
  return rule ? RULE_WORDS[rule] : undefined;
}

/** The rule a 422 names, when the refusal is one. */
export function refusedRule(error: unknown): string | undefined {
  if (error instanceof HeraldError && error.status === 422) return error.details.find((d) => d.rule)?.rule;
  return undefined;
}

export function authorName(author: InboxItem['author']): string {
  return author.display_name ?? author.username ?? author.platform_user_id;
}

export function excerpt(text: string, length = 140): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return '(no text)';
  return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
}

async function allMembers(herald: Herald): Promise<Member[]> {
  const out: Member[] = [];
  for await (const m of herald.list('/members', { params: { query: { limit: 100 } } })) out.push(m);
  return out;
}

/**
 * The workspace's members, to assign items to. Listing them needs `members:manage` (owners and admins); a member
 * who may not list them can still assign to themselves, so the refusal is kept and shown, not thrown.
 */
export function useMembers(): Loaded<Member[]> {
  const { herald } = useApp();
  return useLoad(() => allMembers(herald), [herald]);
}

export function memberName(members: Member[] | undefined, id: string | null, meId?: string): string {
  if (!id) return 'nobody';
  if (id === meId) return 'you';
  const found = members?.find((m) => m.id === id);
  return found ? (found.user.name ?? found.user.email) : id;
}

/**
 * A labelled select: the label names it through `for`, not by wrapping it, so its accessible name is the label's
 * words alone rather than the label followed by every option's text.
 */
export function Field({
  label,
  className,
  children,
}: {
  label: ReactNode;
  className?: string;
  children: (id: string) => ReactNode;
}) {
  const id = useId();
  return (
    <div className={`inbox-field${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children(id)}
    </div>
  );
}

async function allConnections(herald: Herald): Promise<Connection[]> {
  const out: Connection[] = [];
  for await (const c of herald.list('/connections', { params: { query: { limit: 100 } } })) out.push(c);
  return out;
}

export function useConnections(): Loaded<Connection[]> {
  const { herald } = useApp();
  return useLoad(() => allConnections(herald), [herald]);
}

/** A fresh Idempotency-Key: one per intended reply, kept across retries of that reply. */
export function newKey(): string {
  // randomUUID exists only on secure origins; a dashboard served over plain HTTP on a LAN still needs a key.
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export type InboxRespondResult = components['schemas']['InboxRespondResult'];
