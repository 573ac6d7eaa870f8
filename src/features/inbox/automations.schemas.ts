// TypeBox schemas of inbox automations (docs/inbox.md "Automations"): the automation as created, changed and
// answered, its runs, and their queries. The rules that need more than a schema (placeholders, quiet hours,
// members, connections) are the service's, answered as a 422 naming the rule.
import { Type, type Static } from 'typebox';
import { named, NullableTimestamp, StringEnum, Timestamp } from '../../app/envelope.ts';
import {
  ACTION_TYPES,
  DEFAULT_DEDUP_WINDOW_MINUTES,
  INTENTS,
  LANGUAGES,
  MATCH_MODES,
  RESPONSE_MODES,
  TRIGGER_TYPES,
} from './automations.rules.ts';
import { INBOX_KINDS } from './inbox.types.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(s: T) => Type.Union([s, Type.Null()]);
const Id = Type.String({ maxLength: 200 });
const Label = Type.String({ minLength: 1, maxLength: 50, pattern: '^[\\p{L}\\p{N}_.:-]+$' });

export const RUN_OUTCOMES = ['sent', 'queued_for_approval', 'skipped'] as const;
export const RUN_REASONS = ['dedup', 'window_closed', 'cap', 'no_match', 'human_takeover', 'blocked_term'] as const;

export const AutomationScope = Type.Object(
  {
    connection_ids: Type.Array(Id, { maxItems: 100, uniqueItems: true, description: 'Empty: every connection.' }),
    kinds: Type.Array(StringEnum(INBOX_KINDS), { maxItems: 5, uniqueItems: true, description: 'Empty: every kind.' }),
    post_ids: Type.Optional(
      Type.Array(Id, {
        maxItems: 100,
        uniqueItems: true,
        description: 'Only items on these posts; empty or absent: every post.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AutomationTrigger = Type.Object(
  {
    type: StringEnum(TRIGGER_TYPES, {
      description:
        '`keyword`: one of `keywords`; `intent`: one of `intents`; `any`: the catch-all, only when no other automation matched.',
    }),
    keywords: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
    match: Type.Optional(StringEnum(MATCH_MODES, { description: 'How keywords match (default `word`).' })),
    intents: Type.Optional(Type.Array(StringEnum(INTENTS), { minItems: 1, maxItems: 4, uniqueItems: true })),
  },
  { additionalProperties: false },
);

export const AutomationConditions = Type.Object(
  {
    first_interaction_only: Type.Optional(
      Type.Boolean({ default: false, description: 'Only the author’s first item on this connection.' }),
    ),
    languages: Type.Optional(
      Type.Array(StringEnum(LANGUAGES), {
        minItems: 1,
        maxItems: LANGUAGES.length,
        uniqueItems: true,
        description: 'Only messages detected as one of these (offline detector; undetermined text does not match).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AutomationAction = Type.Object(
  {
    type: StringEnum(ACTION_TYPES),
    template: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 5000,
        description: 'The reply (or webhook payload text) with placeholders.',
      }),
    ),
    assignee_id: Type.Optional(Type.String({ maxLength: 200, description: 'For `assign`: a member.' })),
    labels: Type.Optional(Type.Array(Label, { minItems: 1, maxItems: 20, uniqueItems: true })),
  },
  { additionalProperties: false },
);

export const QuietHours = Type.Object(
  {
    start: Type.String({ description: '`HH:MM` local.', examples: ['22:00'] }),
    end: Type.String({ description: '`HH:MM` local.', examples: ['07:00'] }),
    timezone: Type.String({ maxLength: 64, description: 'IANA time zone.', examples: ['Europe/Paris'] }),
  },
  { additionalProperties: false },
);

export const AutomationGuardrails = Type.Object(
  {
    dedup_window_minutes: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 525_600, default: DEFAULT_DEDUP_WINDOW_MINUTES, description: 'Per author.' }),
    ),
    daily_cap: Type.Optional(
      Nullable(Type.Integer({ minimum: 1, maximum: 100_000, description: 'Answers per 24 hours.' })),
    ),
    quiet_hours: Type.Optional(Nullable(QuietHours)),
    blocked_terms: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 200 })),
  },
  { additionalProperties: false },
);

const Body = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  enabled: Type.Optional(Type.Boolean({ default: true })),
  position: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Evaluation order, lowest first.' }),
  ),
  scope: Type.Optional(AutomationScope),
  trigger: AutomationTrigger,
  conditions: Type.Optional(AutomationConditions),
  actions: Type.Array(AutomationAction, { minItems: 1, maxItems: 10 }),
  response_mode: Type.Optional(StringEnum(RESPONSE_MODES, { default: 'auto' })),
  guardrails: Type.Optional(AutomationGuardrails),
  active_until: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
};

export const CreateAutomationBody = Type.Object(Body, { additionalProperties: false });
export type CreateAutomationBody = Static<typeof CreateAutomationBody>;
export const UpdateAutomationBody = Type.Partial(Type.Object(Body), { additionalProperties: false, minProperties: 1 });
export type UpdateAutomationBody = Static<typeof UpdateAutomationBody>;

export const AutomationIdParams = Type.Object({
  id: Type.String({
    maxLength: 200,
    description: 'The automation id (`inba_…`).',
    examples: ['inba_01jdq4x1k9m2v7c3r5t8w0yz6b'],
  }),
});

export const ListPageQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);
export type ListPageQuery = Static<typeof ListPageQuery>;

export const InboxAutomation = named(
  'InboxAutomation',
  Type.Object({
    id: Type.String(),
    object: Type.Literal('inbox_automation'),
    name: Type.String(),
    enabled: Type.Boolean(),
    position: Type.Integer(),
    scope: AutomationScope,
    trigger: AutomationTrigger,
    conditions: AutomationConditions,
    actions: Type.Array(AutomationAction),
    response_mode: StringEnum(RESPONSE_MODES),
    guardrails: AutomationGuardrails,
    active_until: NullableTimestamp,
    stats: Type.Object({
      runs: Type.Integer(),
      sent: Type.Integer(),
      queued_for_approval: Type.Integer(),
      skipped: Type.Integer(),
      last_triggered_at: NullableTimestamp,
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  {
    id: 'inba_01jdq4x1k9m2v7c3r5t8w0yz6b',
    object: 'inbox_automation',
    name: 'Price questions',
    enabled: true,
    position: 10,
    scope: { connection_ids: [], kinds: ['comment'] },
    trigger: { type: 'keyword', keywords: ['price', 'how much'], match: 'word' },
    conditions: { first_interaction_only: false },
    actions: [{ type: 'reply_public', template: 'Hi {{author}}, we sent you the price list by DM.' }],
    response_mode: 'approval',
    guardrails: { dedup_window_minutes: 10080, daily_cap: 200, quiet_hours: null, blocked_terms: ['lawsuit'] },
    active_until: null,
    stats: { runs: 12, sent: 0, queued_for_approval: 9, skipped: 3, last_triggered_at: '2026-03-02T09:00:01.000Z' },
    created_at: '2026-03-01T08:00:00.000Z',
    updated_at: '2026-03-01T08:00:00.000Z',
  },
);

export const InboxAutomationRun = named(
  'InboxAutomationRun',
  Type.Object({
    id: Type.String(),
    object: Type.Literal('inbox_automation_run'),
    automation_id: Type.String(),
    item_id: Type.String(),
    outcome: StringEnum(RUN_OUTCOMES),
    reason: Nullable(StringEnum(RUN_REASONS)),
    detail: Nullable(Type.String()),
    response_id: Nullable(Type.String()),
    created_at: Timestamp,
  }),
  {
    id: 'inbr_01jdq4x1k9m2v7c3r5t8w0yz6f',
    object: 'inbox_automation_run',
    automation_id: 'inba_01jdq4x1k9m2v7c3r5t8w0yz6b',
    item_id: 'inb_01jdq4x1k9m2v7c3r5t8w0yz6b',
    outcome: 'skipped',
    reason: 'dedup',
    detail: 'Already answered this author in the last 10080 minutes.',
    response_id: null,
    created_at: '2026-03-02T09:00:01.000Z',
  },
);

named('CreateInboxAutomationRequest', CreateAutomationBody, {
  name: 'Price questions',
  scope: { connection_ids: [], kinds: ['comment'] },
  trigger: { type: 'keyword', keywords: ['price', 'how much'], match: 'word' },
  actions: [{ type: 'reply_public', template: 'Hi {{author}}, we sent you the price list by DM. {{brand.signature}}' }],
  response_mode: 'approval',
  guardrails: { dedup_window_minutes: 10080, daily_cap: 200, blocked_terms: ['lawsuit'] },
});
named('UpdateInboxAutomationRequest', UpdateAutomationBody, { enabled: false });
