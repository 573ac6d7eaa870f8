// An inbox automation as the form edits it (text fields for lists and numbers), and the conversions to and from
// the API's shape (docs/inbox.md "Automations").
import type { Automation, AutomationBody, Kind } from './shared.tsx';

type Trigger = AutomationBody['trigger'];
export type TriggerType = Trigger['type'];
export type Match = NonNullable<Trigger['match']>;
export type Intent = NonNullable<Trigger['intents']>[number];
export type Language = NonNullable<NonNullable<AutomationBody['conditions']>['languages']>[number];
export type ActionType = AutomationBody['actions'][number]['type'];

export const INTENTS: Intent[] = ['question', 'complaint', 'praise', 'purchase'];
export const LANGUAGES: Language[] = ['en', 'es', 'fr', 'de', 'pt', 'it', 'nl'];
export const MATCHES: Match[] = ['word', 'contains', 'exact'];
export const ACTION_TYPES: ActionType[] = ['reply_public', 'reply_private', 'assign', 'label', 'webhook'];
export const ACTION_WORDS: Record<ActionType, string> = {
  reply_public: 'Reply publicly',
  reply_private: 'Reply privately (DM where the platform can)',
  assign: 'Assign to a member',
  label: 'Add labels',
  webhook: 'Send a webhook payload',
};
export const REASON_WORDS: Record<string, string> = {
  no_match: 'its trigger or conditions did not match',
  human_takeover: 'a person had answered in the thread',
  blocked_term: 'a blocked term was in the message or the reply',
  window_closed: 'the platform’s reply window had closed',
  dedup: 'it had already answered this author recently',
  cap: 'its daily cap was reached',
};

export interface ActionState {
  type: ActionType;
  template: string;
  assigneeId: string;
  labels: string;
}

export interface FormState {
  name: string;
  enabled: boolean;
  position: string;
  connectionIds: string[];
  kinds: Kind[];
  postIds: string;
  triggerType: TriggerType;
  keywords: string;
  match: Match;
  intents: Intent[];
  firstOnly: boolean;
  languages: Language[];
  actions: ActionState[];
  responseMode: AutomationBody['response_mode'];
  dedupMinutes: string;
  dailyCap: string;
  quiet: boolean;
  quietStart: string;
  quietEnd: string;
  quietZone: string;
  blockedTerms: string;
  activeUntil: string;
}

export const newAction = (type: ActionType = 'reply_public'): ActionState => ({
  type,
  template: type === 'reply_public' || type === 'reply_private' ? 'Thanks {{author}}! ' : '',
  assigneeId: '',
  labels: '',
});

export function emptyForm(): FormState {
  return {
    name: '',
    enabled: true,
    position: '',
    connectionIds: [],
    kinds: [],
    postIds: '',
    triggerType: 'keyword',
    keywords: '',
    match: 'word',
    intents: [],
    firstOnly: false,
    languages: [],
    actions: [newAction()],
    responseMode: 'auto',
    dedupMinutes: '10080',
    dailyCap: '',
    quiet: false,
    quietStart: '22:00',
    quietEnd: '07:00',
    quietZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    blockedTerms: '',
    activeUntil: '',
  };
}

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/** A UTC instant as a datetime-local value in the browser's zone. */
function localInput(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function fromAutomation(a: Automation): FormState {
  const quiet = a.guardrails.quiet_hours;
  return {
    name: a.name,
    enabled: a.enabled,
    position: String(a.position),
    connectionIds: a.scope.connection_ids,
    kinds: a.scope.kinds,
    postIds: (a.scope.post_ids ?? []).join(', '),
    triggerType: a.trigger.type,
    keywords: (a.trigger.keywords ?? []).join(', '),
    match: a.trigger.match ?? 'word',
    intents: a.trigger.intents ?? [],
    firstOnly: a.conditions.first_interaction_only,
    languages: a.conditions.languages ?? [],
    actions: a.actions.map((x) => ({
      type: x.type,
      template: x.template ?? '',
      assigneeId: x.assignee_id ?? '',
      labels: (x.labels ?? []).join(', '),
    })),
    responseMode: a.response_mode,
    dedupMinutes: String(a.guardrails.dedup_window_minutes),
    dailyCap: a.guardrails.daily_cap == null ? '' : String(a.guardrails.daily_cap),
    quiet: Boolean(quiet),
    quietStart: quiet?.start ?? '22:00',
    quietEnd: quiet?.end ?? '07:00',
    quietZone: quiet?.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    blockedTerms: (a.guardrails.blocked_terms ?? []).join(', '),
    activeUntil: a.active_until ? localInput(a.active_until) : '',
  };
}

function actionBody(a: ActionState): AutomationBody['actions'][number] {
  if (a.type === 'assign') return { type: a.type, assignee_id: a.assigneeId };
  if (a.type === 'label') return { type: a.type, labels: list(a.labels) };
  return { type: a.type, template: a.template };
}

/** The request body; the whole rule is sent on edits too (PATCH replaces each field sent whole). */
export function toBody(f: FormState): AutomationBody {
  const postIds = list(f.postIds);
  return {
    name: f.name.trim(),
    enabled: f.enabled,
    ...(f.position.trim() !== '' ? { position: Number(f.position) } : {}),
    scope: { connection_ids: f.connectionIds, kinds: f.kinds, ...(postIds.length > 0 ? { post_ids: postIds } : {}) },
    trigger:
      f.triggerType === 'keyword'
        ? { type: 'keyword', keywords: list(f.keywords), match: f.match }
        : f.triggerType === 'intent'
          ? { type: 'intent', intents: f.intents }
          : { type: 'any' },
    conditions: {
      first_interaction_only: f.firstOnly,
      ...(f.languages.length > 0 ? { languages: f.languages } : {}),
    },
    actions: f.actions.map(actionBody),
    response_mode: f.responseMode,
    guardrails: {
      dedup_window_minutes: Number(f.dedupMinutes || '0'),
      daily_cap: f.dailyCap.trim() === '' ? null : Number(f.dailyCap),
      quiet_hours: f.quiet ? { start: f.quietStart, end: f.quietEnd, timezone: f.quietZone } : null,
      blocked_terms: list(f.blockedTerms),
    },
    active_until: f.activeUntil ? new Date(f.activeUntil).toISOString() : null,
  };
}

export function triggerSummary(a: Automation): string {
  if (a.trigger.type === 'any') return 'any message (when no other automation matched)';
  if (a.trigger.type === 'intent') return `intent: ${(a.trigger.intents ?? []).join(', ')}`;
  return `keywords (${a.trigger.match ?? 'word'}): ${(a.trigger.keywords ?? []).join(', ')}`;
}
