// MCP tool over best-time suggestions: the same call, scope and schema as POST /v1/queues/{id}/suggest-slots. An
// assistant proposes a queue's slots from how its posts did, and says which ones rest on no evidence.
import type { ServiceContext } from '../../app/context.ts';
import type { Clock } from '../../lib/clock.ts';
import { suggestForQueue, type Suggestion } from '../../features/queues/best-times.ts';
import { SuggestSlotsBody } from '../../features/queues/best-times.schemas.ts';
import { tool, type ToolDefinition } from './tool.ts';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

function ctxOf(service: ServiceContext | null): ServiceContext {
  if (!service) throw new Error('workspace tool without a workspace context');
  return service;
}

function summary(r: Suggestion): string {
  const lines = r.slots.map((s) =>
    s.source === 'history'
      ? `- ${DAYS[s.day_of_week]} ${s.time}: score ${s.score} (1 = your average), confidence ${s.confidence}, ${s.sample_size} posts`
      : `- ${DAYS[s.day_of_week]} ${s.time}: default (no evidence; ${s.sample_size} posts measured there)`,
  );
  const b = r.basis;
  return `${r.slots.length} slots in ${b.timezone}: ${b.history} from history, ${b.defaults} defaults (${b.samples} posts read, ${b.slots_measured} weekday-hours with at least ${b.min_sample} posts).\n${lines.join('\n')}`;
}

export function bestTimesTools(clock: Clock): ToolDefinition[] {
  return [
    tool({
      name: 'suggest_queue_slots',
      title: 'Suggest queue slots from past engagement',
      scope: 'queues:read',
      workspace: true,
      mutates: false,
      id: { argument: 'queue_id', description: 'The queue id, as list_queues or create_queue return it.' },
      description:
        "Proposes weekly slots for a queue from how its accounts' posts of the last 90 days did, by weekday and hour in the queue's zone (or `timezone`). Each slot has `source`: `history` (with `score`, 1 = the accounts' average, a `confidence` in [0, 1] and its `sample_size`) or `default` (a conventional slot used where there were fewer than `min_sample` posts; no score, no evidence). Changes nothing: to use the slots, update the queue.",
      input: { schema: SuggestSlotsBody, part: 'body' },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ service }, input) => ({
        ...(await suggestForQueue(ctxOf(service), input.id!, input.body, clock.now())),
      }),
      summarize: (r) => summary(r as unknown as Suggestion),
    }),
  ];
}
