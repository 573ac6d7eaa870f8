// The inbox item as the API answers it (InboxItem in inbox.schemas.ts), from its row, its draft and its responses.
import type { DraftRow, ResponseRow } from './inbox.repo.ts';
import type { InboxItemRow } from './inbox.types.ts';

export function renderResponse(r: ResponseRow) {
  return {
    id: r.id,
    text: r.text,
    private: r.private,
    source: r.source,
    automation_id: r.automation_id,
    sent_by: r.sent_by,
    status: r.status,
    platform_reply_id: r.platform_reply_id,
    permalink: r.permalink,
    error: r.error,
    created_at: r.created_at.toISOString(),
    sent_at: r.sent_at ? r.sent_at.toISOString() : null,
  };
}

export function renderItem(row: InboxItemRow, extra: { draft?: DraftRow; responses?: ResponseRow[]; paused: boolean }) {
  return {
    id: row.id,
    object: 'inbox_item' as const,
    kind: row.kind,
    platform: row.platform,
    connection_id: row.connectionId,
    brand_id: row.brandId,
    post_id: row.postId,
    platform_post_id: row.platformPostId,
    thread_id: row.threadId,
    parent_id: row.parentId,
    platform_item_id: row.platformItemId,
    author: {
      platform_user_id: row.author.platform_user_id,
      username: row.author.username ?? null,
      display_name: row.author.display_name ?? null,
      avatar_url: row.author.avatar_url ?? null,
    },
    text: row.text,
    permalink: row.permalink,
    received_at: row.receivedAt.toISOString(),
    status: row.status,
    assignee_id: row.assigneeId,
    labels: row.labels,
    reply_window_ends_at: row.replyWindowEndsAt ? row.replyWindowEndsAt.toISOString() : null,
    from_account: row.fromAccount,
    automation_paused: extra.paused,
    draft: extra.draft
      ? {
          text: extra.draft.text,
          source: extra.draft.source,
          generated_by: extra.draft.generated_by,
          updated_at: extra.draft.updated_at.toISOString(),
        }
      : null,
    responses: (extra.responses ?? []).map(renderResponse),
  };
}

export type InboxItemView = ReturnType<typeof renderItem>;
