// Shared by the inbox API tests: seeding inbox items straight into the table (as the ingestion would), running
// afterIngest on them, and a stand-in for the platform that records every reply it is asked to post.
import { newId } from '../../src/lib/ids.ts';
import { afterIngest } from '../../src/features/inbox/after-ingest.ts';
import { ITEM_COLUMNS } from '../../src/features/inbox/inbox.repo.ts';
import type { InboxItemRow } from '../../src/features/inbox/inbox.types.ts';
import type { ReplyOutcome, ReplySender } from '../../src/features/inbox/replies.ts';
import type { TestApp } from './app.ts';

export interface SeedItem {
  text?: string;
  kind?: InboxItemRow['kind'];
  platform?: string;
  connectionId?: string;
  workspaceId?: string;
  brandId?: string | null;
  postId?: string | null;
  threadId?: string;
  authorId?: string;
  receivedAt?: Date;
  replyWindowEndsAt?: Date | null;
  fromAccount?: boolean;
  platformItemId?: string;
  status?: InboxItemRow['status'];
}

/** Inserts items (defaults: an open comment on the Sandbox's X connection) and returns their rows. */
export async function seedItems(t: TestApp, items: SeedItem[]): Promise<InboxItemRow[]> {
  const out: InboxItemRow[] = [];
  for (const s of items) {
    const platform = s.platform ?? 'x';
    const pid = s.platformItemId ?? newId('pi');
    const { rows } = await t.container.pool.query<InboxItemRow>(
      `INSERT INTO inbox_items (id, workspace_id, connection_id, brand_id, platform, kind, thread_id, platform_item_id,
                                author, text, received_at, reply_window_ends_at, from_account, status, post_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       RETURNING ${ITEM_COLUMNS.replaceAll('i.', '')}`,
      [
        newId('inb'),
        s.workspaceId ?? t.owner.workspaceId,
        s.connectionId ?? t.connections[platform],
        s.brandId === undefined ? t.owner.brandId : s.brandId,
        platform,
        s.kind ?? 'comment',
        s.threadId ?? pid,
        pid,
        JSON.stringify({
          platform_user_id: s.authorId ?? 'u1',
          username: `user_${s.authorId ?? 'u1'}`,
          display_name: 'Ada',
          avatar_url: null,
        }),
        s.text ?? 'Hello there',
        s.receivedAt ?? new Date(),
        s.replyWindowEndsAt ?? null,
        s.fromAccount ?? false,
        s.status ?? 'open',
        s.postId ?? null,
      ],
    );
    out.push(rows[0]!);
  }
  return out;
}

/** Seeds items and hands them to afterIngest, as the ingestion does. */
export async function ingest(t: TestApp, items: SeedItem[]): Promise<InboxItemRow[]> {
  const rows = await seedItems(t, items);
  await afterIngest({ db: t.container.pool, clock: t.container.clock }, rows);
  return rows;
}

/** Replaces the platform with a recorder; `answer` decides each outcome (default: posted). */
export function fakePlatform(
  t: TestApp,
  answer: (text: string) => ReplyOutcome = () => ({ ok: true, platformReplyId: newId('pr') }),
) {
  const sent: Array<{ itemId: string; text: string; private: boolean }> = [];
  const send: ReplySender = async (item, text, opts) => {
    sent.push({ itemId: item.id, text, private: opts.private ?? false });
    return answer(text);
  };
  t.container.inboxSender.send = send;
  return sent;
}

export async function runsOf(t: TestApp, automationId: string) {
  const { rows } = await t.container.pool.query<{ item_id: string; outcome: string; reason: string | null }>(
    'SELECT item_id, outcome, reason FROM inbox_automation_runs WHERE automation_id = $1 ORDER BY created_at, id',
    [automationId],
  );
  return rows;
}
