// MCP tools over the posts service: the same calls, scopes and schemas as /v1/posts. create_post makes a draft
// unless the model passes schedule_at or publish_now explicitly: an assistant must not publish by accident.
import type { PostsService } from '../../features/posts/posts.service.ts';
import { CreatePostBody, ListPostsQuery, UpdatePostBody } from '../../features/posts/posts.schemas.ts';
import type { ServiceContext } from '../../app/context.ts';
import { tool, type ToolDefinition } from './tool.ts';

type Post = Record<string, unknown> & {
  id: string;
  status: string;
  platforms: string[];
  content: string;
  schedule_at: string | null;
};

const POST_ID = {
  argument: 'post_id',
  description: 'The post id (`post_…`): the `post_id` create_post returns, or an item `id` of list_posts.',
} as const;

function ctxOf(service: ServiceContext | null): ServiceContext {
  if (!service) throw new Error('workspace tool without a workspace context');
  return service;
}

function excerpt(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function postLine(p: Post): string {
  const when = p.status === 'scheduled' && p.schedule_at ? ` at ${p.schedule_at}` : '';
  return `${p.id} · ${p.status}${when} · ${p.platforms.join(', ')} · "${excerpt(p.content)}"`;
}

interface TargetView {
  platform: string;
  status: string;
  url: string | null;
  error: { code: string } | null;
  next_attempt_at: string | null;
  parts: Array<{ index: number; status: string }>;
}

/** A thread's progress (`2/3 parts published, part 3 failed`); nothing for a single post. */
function partsNote(t: TargetView): string {
  if (t.parts.length < 2) return '';
  const published = t.parts.filter((part) => part.status === 'published').length;
  const stopped = t.parts.find((part) => ['failed', 'publishing', 'unknown'].includes(part.status));
  return `, ${published}/${t.parts.length} parts published${stopped ? `, part ${stopped.index + 1} ${stopped.status}` : ''}`;
}

function targetsLine(p: Post): string {
  const targets = (p.targets as TargetView[]) ?? [];
  return targets
    .map(
      (t) =>
        `${t.platform}: ${t.status}${t.url ? ` (${t.url})` : ''}${partsNote(t)}${t.error ? ` [${t.error.code}]` : ''}` +
        (t.next_attempt_at ? `, next attempt at ${t.next_attempt_at}` : ''),
    )
    .join('; ');
}

/** The brand's warnings and what its rules add per platform (docs/api.md "Brand rules on posts"), for the model. */
function brandNotes(r: Record<string, unknown>): string {
  const warnings = (r.warnings ?? []) as Array<{ platform: string | null; message: string }>;
  const applied = ((r.applied ?? []) as Array<{ platform: string; additions: Array<{ rule: string }> }>).filter(
    (a) => a.additions.length > 0,
  );
  const lines = [
    ...warnings.map((w) => `- warning · ${w.platform ?? 'post'}: ${w.message}`),
    ...applied.map((a) => `- ${a.platform}: the brand adds ${a.additions.map((x) => x.rule).join(', ')}`),
  ];
  return lines.length > 0 ? `\nBrand rules:\n${lines.join('\n')}` : '';
}

export function postsTools(posts: PostsService): ToolDefinition[] {
  const read = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  return [
    tool({
      name: 'list_posts',
      title: 'List posts',
      scope: 'posts:read',
      workspace: true,
      mutates: false,
      description:
        'Lists posts of the workspace, newest first by default. Filter by `status` (a list, e.g. ["scheduled"] or ["draft", "scheduled"]), `platform`, `brand_id`, `metadata` (an object of key-value pairs the posts must all hold) and time ranges; page with `cursor` (the `next_cursor` of the previous result). Returns `items` (full posts with per-platform targets), `next_cursor` and `has_more`.',
      input: { schema: ListPostsQuery, part: 'querystring' },
      annotations: read,
      run: async ({ service }, input) => posts.list(ctxOf(service), input.body),
      summarize: (r) => {
        const items = r.items as Post[];
        if (items.length === 0) return 'No posts match.';
        const more = r.has_more
          ? `\nMore posts exist: call list_posts again with cursor "${String(r.next_cursor)}".`
          : '';
        return `${items.length} post${items.length === 1 ? '' : 's'}:\n${items.map((p) => `- ${postLine(p)}`).join('\n')}${more}`;
      },
    }),
    tool({
      name: 'get_post',
      title: 'Get a post',
      scope: 'posts:read',
      workspace: true,
      mutates: false,
      id: POST_ID,
      description:
        'Returns one post with its status and, per platform, whether it was published (with its URL), when, and any error with its code; every part of a thread (`parts`, each with its status, URL and error); and, for a platform waiting between automatic attempts, `attempt_count` and `next_attempt_at`.',
      annotations: read,
      run: async ({ service }, input) => posts.get(ctxOf(service), input.id!),
      summarize: (r) => `${postLine(r as Post)}\nTargets: ${targetsLine(r as Post)}`,
    }),
    tool({
      name: 'create_post',
      title: 'Create a post',
      scope: 'posts:write',
      workspace: true,
      mutates: true,
      description:
        "Creates a post for one or more platforms. Without `schedule_at` or `publish_now` it is a DRAFT and nothing is published — do that unless the user explicitly asked to schedule or publish. `schedule_at` (ISO 8601 with Z or an offset, or a local time without one plus `timezone`, an IANA zone such as Europe/Paris) schedules it; `publish_now: true` publishes at once; `queue` (`next` or `last`, with `queue_id` when the brand has several queues) schedules it at a slot of a posting queue instead (add_to_queue). Text is checked against each platform's limits (see list_platforms; validate_post checks without creating). Returns `post_id` and the `post`.",
      input: { schema: CreatePostBody, part: 'body' },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      run: async ({ service }, input) => posts.create(ctxOf(service), input.body),
      summarize: (r) => {
        const p = r.post as Post;
        const note =
          p.status === 'draft'
            ? ' It is a draft: nothing will be published until it is scheduled (update_post with schedule_at) or published.'
            : '';
        return `Created ${postLine(p)}.${note}${brandNotes(r)}`;
      },
    }),
    tool({
      name: 'update_post',
      title: 'Edit a post',
      scope: 'posts:write',
      workspace: true,
      mutates: true,
      id: POST_ID,
      description:
        'Changes a draft or scheduled post: only the fields given change (a JSON Merge Patch). `schedule_at` sets or moves the publication time; `schedule_at: null` turns a scheduled post back into a draft. Published posts cannot be edited.',
      input: { schema: UpdatePostBody, part: 'body' },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      run: async ({ service }, input) => posts.update(ctxOf(service), input.id!, input.body),
      summarize: (r) => `Updated ${postLine(r as Post)}.`,
    }),
    tool({
      name: 'cancel_post',
      title: 'Cancel a post',
      scope: 'posts:write',
      workspace: true,
      mutates: true,
      id: POST_ID,
      description:
        'Cancels a draft or scheduled post so it will not be published, or, while a post is being published, its platforms still waiting for their next automatic attempt (those already published stay published). While a platform is being called this very moment the result is a PUBLIC_API_PUBLISH_IN_FLIGHT error: call again a few seconds later.',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      run: async ({ service }, input) => posts.cancel(ctxOf(service), input.id!),
      summarize: (r) =>
        (r as Post).status === 'cancelled'
          ? `Cancelled ${(r as Post).id}; it will not be published.`
          : `Cancelled what had not gone out of ${postLine(r as Post)}.\nTargets: ${targetsLine(r as Post)}`,
    }),
    tool({
      name: 'publish_post',
      title: 'Publish a post now',
      scope: 'posts:write',
      workspace: true,
      mutates: true,
      id: POST_ID,
      description:
        "Publishes a draft or scheduled post at once on all its platforms — only when the user asked to publish. Returns the post in `publishing`; call get_post a few seconds later for each platform's result and URL.",
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      run: async ({ service }, input) => posts.publish(ctxOf(service), input.id!),
      summarize: (r) => `Publishing ${postLine(r as Post)}. Check get_post for the result on each platform.`,
    }),
    tool({
      name: 'retry_post',
      title: 'Retry the failed platforms of a post',
      scope: 'posts:write',
      workspace: true,
      mutates: true,
      id: POST_ID,
      description:
        'Publishes again on the platforms where a post failed (those already published are left alone; a thread continues from the part that failed), and makes platforms waiting for their next automatic attempt try now. Fix the cause of a failure first (get_post shows each error code).',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      run: async ({ service }, input) => posts.retry(ctxOf(service), input.id!),
      summarize: (r) => `Retrying now: ${postLine(r as Post)}. Check get_post for the result on each platform.`,
    }),
    tool({
      name: 'delete_post',
      title: 'Delete a post',
      scope: 'posts:write',
      workspace: true,
      mutates: true,
      id: POST_ID,
      description:
        'Deletes a draft, scheduled, cancelled or failed post from Herald. It does not delete anything already published on a platform.',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      run: async ({ service }, input) => posts.remove(ctxOf(service), input.id!),
      summarize: (r) => `Deleted ${String(r.id)}.`,
    }),
    tool({
      name: 'validate_post',
      title: 'Check a post without creating it',
      scope: 'posts:write',
      workspace: true,
      mutates: false,
      description:
        'Runs every check create_post runs (text length per platform, media counts, schedule) and returns `valid` and the `issues` (platform, rule, message); nothing is stored. Use it to fit a text to every platform before creating the post.',
      input: { schema: CreatePostBody, part: 'body' },
      annotations: read,
      run: async ({ service }, input) => posts.validate(ctxOf(service), input.body),
      summarize: (r) => {
        const issues = r.issues as Array<{ platform: string | null; rule: string; message: string }>;
        if (r.valid) return `The post passes every check; create_post would accept it.${brandNotes(r)}`;
        return `${issues.length} issue${issues.length === 1 ? '' : 's'}:\n${issues.map((i) => `- ${i.platform ?? 'post'} · ${i.rule}: ${i.message}`).join('\n')}${brandNotes(r)}`;
      },
    }),
  ];
}
