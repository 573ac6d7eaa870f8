// MCP tools over posting queues: the same calls, scopes and schemas as /v1/queues and POST /v1/posts with `queue`.
// An assistant lists a brand's queues, previews their slots, creates one, and adds a post at the next or last slot.
import type { ServiceContext } from '../../app/context.ts';
import type { PostsService } from '../../features/posts/posts.service.ts';
import { CreatePostBody } from '../../features/posts/posts.schemas.ts';
import { CreateQueueBody, ListQueuesQuery, QueueSlotsQuery } from '../../features/queues/queues.schemas.ts';
import type { QueuesService } from '../../features/queues/queues.service.ts';
import { tool, type ToolDefinition } from './tool.ts';

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

interface QueueView {
  id: string;
  name: string;
  brand_id: string;
  slots: Array<{ day_of_week: number; time: string; timezone: string }>;
  pauses: string[];
  min_spacing_minutes: number;
  gap_policy: string;
}

function ctxOf(service: ServiceContext | null): ServiceContext {
  if (!service) throw new Error('workspace tool without a workspace context');
  return service;
}

function queueLine(q: QueueView): string {
  const slots = q.slots.map((s) => `${DAYS[s.day_of_week]} ${s.time} ${s.timezone}`).join(', ') || 'no slots';
  return `${q.id} · "${q.name}" · brand ${q.brand_id} · ${slots}${q.pauses.length ? ` · ${q.pauses.length} paused dates` : ''}`;
}

const QUEUE_ID = {
  argument: 'queue_id' as const,
  description: 'The queue id (`que_…`), as list_queues or create_queue return it.',
};

export function queuesTools(queues: QueuesService, posts: PostsService): ToolDefinition[] {
  const read = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  return [
    tool({
      name: 'list_queues',
      title: 'List posting queues',
      scope: 'queues:read',
      workspace: true,
      mutates: false,
      description:
        "Lists the workspace's posting queues (or `brand_id`'s): each with its weekly slots (`day_of_week` 0 = Sunday, `time` HH:mm, IANA `timezone`), paused dates, minimum spacing per connection and gap policy.",
      input: { schema: ListQueuesQuery, part: 'querystring' },
      annotations: read,
      run: async ({ service }, input) => queues.list(ctxOf(service), input.body),
      summarize: (r) => {
        const items = r.items as QueueView[];
        if (items.length === 0) return 'No queues. create_queue makes one.';
        return `${items.length} queue${items.length === 1 ? '' : 's'}:\n${items.map((q) => `- ${queueLine(q)}`).join('\n')}`;
      },
    }),
    tool({
      name: 'create_queue',
      title: 'Create a posting queue',
      scope: 'queues:write',
      workspace: true,
      mutates: true,
      description:
        'Creates a posting queue for a brand: weekly `slots` (`day_of_week` 0 = Sunday … 6, `time` HH:mm, IANA `timezone` each), optional `pauses` (dates), `min_spacing_minutes` between posts on one connection, `gap_policy` (`close` moves later posts up when one leaves, `leave` keeps their times) and `connection_ids` its posts may target. Posts join it with add_to_queue.',
      input: { schema: CreateQueueBody, part: 'body' },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ service }, input) => queues.create(ctxOf(service), input.body),
      summarize: (r) => `Created ${queueLine(r as unknown as QueueView)}.`,
    }),
    tool({
      name: 'preview_queue_slots',
      title: 'Preview the slots of a queue',
      scope: 'queues:read',
      workspace: true,
      mutates: false,
      id: QUEUE_ID,
      description:
        'Lists the slots of a queue in a window (`from`, `to`: date-times; default the next 7 days, at most 366 days and `limit` slots), each `taken` (with the `post_id` holding it) or `free`. Use it to tell the user when a queued post would go out.',
      input: { schema: QueueSlotsQuery, part: 'querystring' },
      annotations: read,
      run: async ({ service }, input) => queues.slots(ctxOf(service), input.id!, input.body),
      summarize: (r) => {
        const slots = r.slots as Array<{ at: string; status: string; post_id: string | null }>;
        if (slots.length === 0) return 'No slots in that window.';
        const lines = slots.slice(0, 50).map((s) => `- ${s.at} · ${s.status}${s.post_id ? ` (${s.post_id})` : ''}`);
        const more = r.has_more ? `\nMore slots follow from ${String(r.next_from)}.` : '';
        return `${slots.filter((s) => s.status === 'free').length} free of ${slots.length}:\n${lines.join('\n')}${more}`;
      },
    }),
    tool({
      name: 'add_to_queue',
      title: 'Add a post to a queue',
      scope: 'posts:write',
      workspace: true,
      mutates: true,
      description:
        'Creates a post in a queue: it takes the queue\'s next free slot (`queue: "next"`, the default) or the slot after the last taken one (`"last"`), and is scheduled at it. `queue_id` is needed when the brand has more than one queue (list_queues). Same fields as create_post, without `schedule_at` or `publish_now`. Returns `post_id` and the `post` with its `schedule_at` and `queue_slot`.',
      input: { schema: CreatePostBody, part: 'body' },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      run: async ({ service }, input) =>
        posts.create(ctxOf(service), { ...input.body, queue: input.body.queue ?? 'next' }),
      summarize: (r) => {
        const p = r.post as { id: string; status: string; schedule_at: string; queue_id: string };
        const held = p.status === 'pending_approval' ? ' It awaits approval before it can go out.' : '';
        return `Queued ${p.id} in ${p.queue_id}: it goes out at ${p.schedule_at}.${held}`;
      },
    }),
  ];
}
