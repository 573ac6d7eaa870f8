// What the Approvals pages share: the API's types and names (docs/api.md enumeration tables), the preview snapshot
// read out of an item, the people who asked and decided, and the sentences for the conflicts a reviewer can meet.
import type { components } from '@herald/client';
import { HeraldError } from '../../api.ts';
import { useApp, useLoad, type Loaded } from '../../ui.tsx';

export type Item = components['schemas']['ApprovalItem'];
export type Policy = components['schemas']['ApprovalPolicy'];
export type ItemStatus = Item['status'];
export type Source = Item['source']['type'];
export type Kind = Item['kind'];
export type HistoryEntry = NonNullable<Item['history']>[number];

export const ITEM_STATUSES: ItemStatus[] = ['pending', 'approved', 'rejected', 'expired', 'cancelled', 'superseded'];
export const KINDS: Kind[] = ['post', 'inbox_reply'];
export const SOURCES: Source[] = [
  'api',
  'mcp',
  'dashboard',
  'cli',
  'automation',
  'repurpose',
  'queue_import',
  'inbox_automation',
];
/** The snapshot an item carries: what goes out per platform, as it was when the approval was asked for. */
export interface Preview {
  content: string;
  mediaIds: string[];
  scheduleAt: string | null;
  platforms: Array<{ platform: string; text: string }>;
}

export function previewOf(item: Item): Preview {
  const p = item.preview;
  const platforms = Array.isArray(p.platforms) ? (p.platforms as Array<{ platform: string; text: string }>) : [];
  return {
    content: typeof p.content === 'string' ? p.content : '',
    mediaIds: Array.isArray(p.media_ids) ? (p.media_ids as string[]) : [],
    scheduleAt: typeof p.schedule_at === 'string' ? p.schedule_at : null,
    platforms: platforms.length ? platforms : item.platforms.map((platform) => ({ platform, text: '' })),
  };
}

/** A short title for an item in lists and messages. */
export function itemTitle(item: Item): string {
  const text = previewOf(item).content.trim();
  if (!text) return `(no text) ${item.id}`;
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/**
 * Names of the workspace's people by user id. Listing members takes `members:manage`; without it, ids are shown.
 * Pages wait for it (Ready) so that names do not replace ids under the reader and move the lines below.
 */
export function useNames(): Loaded<Map<string, string>> {
  const { herald } = useApp();
  return useLoad(async () => {
    const names = new Map<string, string>();
    try {
      for await (const m of herald.list('/members', { params: { query: { limit: 100 } } }))
        names.set(m.user.id, m.user.name ?? m.user.email);
    } catch {
      // A member's session cannot list members: the page shows user ids instead.
    }
    return names;
  }, [herald]);
}

export function personName(names: Map<string, string>, id: string | null): string {
  if (id === null) return 'Herald';
  return names.get(id) ?? id;
}

export function brandName(brands: Array<{ id: string; name: string }> | undefined, id: string): string {
  return brands?.find((b) => b.id === id)?.name ?? id;
}

/** What was asked for, in words. */
export function proposal(item: Item, format: (at: string) => string): string {
  const { type, at } = item.proposed_action;
  if (type === 'publish_now') return 'publish as soon as it is approved';
  if (type === 'send_reply') return 'send the reply when approved';
  return at ? `publish at ${format(at)}` : 'schedule';
}

/** Codes meaning "what you looked at is not what the server has now". */
export const CONFLICT_CODES = new Set(['PUBLIC_API_VERSION_CONFLICT', 'PUBLIC_API_STATE_CONFLICT']);

export function isConflict(error: unknown): error is HeraldError {
  return error instanceof HeraldError && CONFLICT_CODES.has(error.code);
}

/** A conflict explained for a reviewer: why nothing was decided and what the page does about it. */
export function conflictSentence(code: string): string {
  if (code === 'PUBLIC_API_VERSION_CONFLICT')
    return 'This request changed since the page loaded it (someone edited the post or decided it), so nothing was decided on the old version.';
  if (code === 'PUBLIC_API_STATE_CONFLICT')
    return 'This request is no longer pending (it was decided, superseded by an edit, or cancelled since the page loaded it).';
  if (code === 'PUBLIC_API_NOT_FOUND') return 'This request is not part of that batch any more.';
  return 'The server refused this decision.';
}
