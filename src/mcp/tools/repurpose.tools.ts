// MCP tools over the repurpose service: the same calls, scopes and schemas as /v1/repurpose. An assistant starts a
// job with `repurpose:write` and follows it with `repurpose:read`; the job runs in the worker, as for REST.
import type { ServiceContext } from '../../app/context.ts';
import { CreateRepurposeBody } from '../../features/repurpose/repurpose.schemas.ts';
import type { RepurposeService } from '../../features/repurpose/repurpose.service.ts';
import type { RepurposeJobView } from '../../features/repurpose/repurpose.view.ts';
import { tool, type ToolDefinition } from './tool.ts';

function ctxOf(service: ServiceContext | null): ServiceContext {
  if (!service) throw new Error('workspace tool without a workspace context');
  return service;
}

function jobText(job: RepurposeJobView): string {
  const head = `${job.id} · ${job.status}${job.error ? ` · ${job.error.code}: ${job.error.message}` : ''}`;
  const lines = job.outputs.map((o) =>
    o.status === 'created'
      ? `- ${o.platform} ${o.format} (${o.parts.length} part${o.parts.length === 1 ? '' : 's'}) → post ${o.post_id}${o.approval_item_id ? `, approval ${o.approval_item_id}` : ''}\n  ${o.parts.join('\n  ')}`
      : `- ${o.platform} ${o.format}: failed (${o.error?.rule}): ${o.error?.message}`,
  );
  return [head, ...lines].join('\n');
}

export function repurposeTools(repurpose: RepurposeService): ToolDefinition[] {
  return [
    tool({
      name: 'repurpose_content',
      title: 'Repurpose an article, text, post or video into posts',
      scope: 'repurpose:write',
      workspace: true,
      mutates: true,
      description:
        'Starts a repurpose job: `source` is {type: "url", url} (an article page), {type: "text", text}, {type: "post", post_id}, or {type: "media", media_id, transcript} (a video needs its transcript). `targets` lists [{platform, format: post | thread | caption, count}]. `output.mode` is `draft` (default), `approval` (held for review in one batch) or `schedule` (with `schedule.first_at` and `spacing_minutes`). Returns the job, queued: call get_repurpose_job to read its outputs.',
      input: { schema: CreateRepurposeBody, part: 'body' },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: async ({ service }, input) => repurpose.create(ctxOf(service), input.body),
      summarize: (r) => `Repurpose job ${String(r.id)} queued; read it with get_repurpose_job.`,
    }),
    tool({
      name: 'get_repurpose_job',
      title: 'Get a repurpose job',
      scope: 'repurpose:read',
      workspace: true,
      mutates: false,
      id: { argument: 'repurpose_job_id', description: 'The job id (`rep_…`), as repurpose_content returns it.' },
      description:
        'Returns a repurpose job: its status (queued, fetching, generating, completed, partially_completed, failed, cancelled) and its outputs, each with its parts, the post it became (and its approval item), or the rule it broke.',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ service }, input) => repurpose.get(ctxOf(service), input.id!),
      summarize: (r) => jobText(r as RepurposeJobView),
    }),
  ];
}
