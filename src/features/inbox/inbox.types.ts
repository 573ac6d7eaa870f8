// The inbox's row types (docs/inbox.md): one `inbox_items` row per comment, reply, mention, direct message or
// review ingested from a connection, and one `inbox_sources` row per connection and stream (the ingestion
// cursor and health). Tables: src/db/migrations/0026_inbox_items.sql.

export const INBOX_KINDS = ['comment', 'reply', 'dm', 'mention', 'review'] as const;
export type InboxKind = (typeof INBOX_KINDS)[number];

export const INBOX_STATUSES = ['open', 'replied', 'resolved', 'archived', 'hidden'] as const;
export type InboxStatus = (typeof INBOX_STATUSES)[number];

/** The streams a connection is polled on; each has its own cursor and health. */
export const INBOX_STREAMS = ['comments', 'mentions', 'dms', 'reviews'] as const;
export type InboxStream = (typeof INBOX_STREAMS)[number];

export interface InboxAuthor {
  platform_user_id: string;
  username: string | null;
  display_name: string | null;
  avatar_url: string | null;
}

export interface InboxItemRow {
  id: string;
  workspaceId: string;
  connectionId: string;
  brandId: string | null;
  platform: string;
  kind: InboxKind;
  postId: string | null;
  platformPostId: string | null;
  threadId: string;
  parentId: string | null;
  platformItemId: string;
  author: InboxAuthor;
  text: string;
  permalink: string | null;
  receivedAt: Date;
  ingestedAt: Date;
  status: InboxStatus;
  assigneeId: string | null;
  labels: string[];
  replyWindowEndsAt: Date | null;
  /** The connected account's own message or reply (a human answering outside Herald). */
  fromAccount: boolean;
}

export interface InboxSourceRow {
  connectionId: string;
  workspaceId: string;
  stream: InboxStream;
  cursor: Record<string, unknown> | null;
  nextPollAt: Date;
  backoffSeconds: number;
  lastPolledAt: Date | null;
  lastOkAt: Date | null;
  lastError: { code: string; message: string; at: string } | null;
  consecutiveFailures: number;
  itemsIngested: number;
}
