// MCP tools over the approvals service: the same calls, scopes and schemas as /v1/approvals. An assistant lists
// the review queue and reads an item with `approvals:read`; deciding takes `approvals:write`, which only owners
// and admins may use, and the policy's self-approval rule holds here as in REST.
import { BatchActionBody, ItemActionBody, ListItemsQuery } from '../../features/approvals/approvals.schemas.ts';
import type { ApprovalsService } from '../../features/approvals/approvals.service.ts';
import type { ServiceContext } from '../../app/context.ts';
import { tool, type ToolDefinition } from './tool.ts';

function ctxOf(service: ServiceContext | null): ServiceContext {
  if (!service) throw new Error('workspace tool without a workspace context');
  return service;
}

interface ItemView {
  id: string;
  status: string;
  version: number;
  kind: string;
  subject: { type: string; id: string };
  proposed_action: { type: string; at: string | null };
  source: { type: string };
  preview: { content?: string };
  reason: string | null;
}

function excerpt(text: string | undefined, max = 60): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function itemLine(i: ItemView): string {
  const when = i.proposed_action.at ? ` at ${i.proposed_action.at}` : '';
  return `${i.id} (version ${i.version}) · ${i.status} · ${i.proposed_action.type}${when} · ${i.subject.type} ${i.subject.id} from ${i.source.type} · "${excerpt(i.preview.content)}"${i.reason ? ` · reason: ${i.reason}` : ''}`;
}

const APPROVAL_ID = {
  argument: 'approval_id',
  description: 'The approval item id (`apr_…`), as list_approvals returns it.',
} as const;

export function approvalsTools(approvals: ApprovalsService): ToolDefinition[] {
  const read = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  return [
    tool({
      name: 'list_approvals',
      title: 'List approval items',
      scope: 'approvals:read',
      workspace: true,
      mutates: false,
      description:
        'Lists the review queue, newest first: posts held by the approval policy until someone approves them. Filter with status (e.g. ["pending"]), kind, source, brand_id, platform, created_from/created_to, batch_id. Each item has the `version` decide_approval needs.',
      input: { schema: ListItemsQuery, part: 'querystring' },
      annotations: read,
      run: async ({ service }, input) => approvals.listItems(ctxOf(service), input.body),
      summarize: (r) => {
        const items = r.items as ItemView[];
        if (items.length === 0) return 'No approval items match.';
        const more = r.has_more ? `\n(more: cursor ${String(r.next_cursor)})` : '';
        return items.map((i) => `- ${itemLine(i)}`).join('\n') + more;
      },
    }),
    tool({
      name: 'get_approval',
      title: 'Get an approval item',
      scope: 'approvals:read',
      workspace: true,
      mutates: false,
      id: APPROVAL_ID,
      description:
        'Returns one approval item: what will go out per platform (`preview`), the proposed action, its source, status, `version` and its history (submit, edit, comment, decision, expiry).',
      annotations: read,
      run: async ({ service }, input) => approvals.getItem(ctxOf(service), input.id!),
      summarize: (r) => {
        const history = (r.history as Array<{ type: string; created_at: string }>) ?? [];
        return `${itemLine(r as unknown as ItemView)}\nHistory: ${history.map((h) => `${h.type} ${h.created_at}`).join('; ')}`;
      },
    }),
    tool({
      name: 'decide_approval',
      title: 'Approve, reject or comment on an approval item',
      scope: 'approvals:write',
      workspace: true,
      mutates: true,
      id: APPROVAL_ID,
      description:
        'Decides an approval item with the `version` you read: `approve` (the post keeps its schedule), `reject` with a `reason` (the post goes back to draft), `edit_and_approve` with `patch` (as update_post takes it), or `comment` (text in `reason`). If the proposed time has passed, pass `schedule_at` or `publish_now`. Only do this when the user asked you to decide.',
      input: { schema: ItemActionBody, part: 'body' },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: async ({ service }, input) => approvals.decideItem(ctxOf(service), input.id!, input.body),
      summarize: (r, input) =>
        input.body.action === 'comment' ? `Comment added to ${String(r.id)}.` : itemLine(r as unknown as ItemView),
    }),
    tool({
      name: 'decide_approval_batch',
      title: 'Approve or reject a batch of approval items',
      scope: 'approvals:write',
      workspace: true,
      mutates: true,
      id: { argument: 'approval_batch_id', description: 'The approval batch id (`aprb_…`).' },
      description:
        '`approve_all` or `reject_all` (with `reason`) on the items you reviewed, listed in `expected_item_ids`; items added or changed since are left alone. Returns one result per item.',
      input: { schema: BatchActionBody, part: 'body' },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: async ({ service }, input) => approvals.decideBatch(ctxOf(service), input.id!, input.body),
      summarize: (r) =>
        (r.results as Array<{ item_id: string; outcome: string; error: { code: string } | null }>)
          .map((x) => `- ${x.item_id}: ${x.outcome}${x.error ? ` (${x.error.code})` : ''}`)
          .join('\n'),
    }),
  ];
}
