// Prints the tables of the contract's names (scopes, settings, enumerations, error codes, event types) for
// docs/api.md from the code; `--write` puts them between the markers there. test/api-tables.test.ts keeps them equal.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ERROR_CATALOGUE } from '../src/app/errors.ts';
import {
  BANNED_TERM_SEVERITIES,
  BRAND_ADDITION_RULES,
  REQUIRED_TERM_MODES,
  RULE_APPLY,
  VOICE_EMOJI,
  VOICE_HASHTAGS,
} from '../src/features/brands/brands.schemas.ts';
import {
  APPROVAL_MODES,
  APPROVAL_SOURCES,
  APPROVER_ROLES,
  EXPIRY_ACTIONS,
} from '../src/features/approvals/approvals.policy.ts';
import { ACTION_TYPES, HISTORY_TYPES, ITEM_KINDS, ITEM_STATUSES } from '../src/features/approvals/approvals.repo.ts';
import {
  BATCH_ACTIONS,
  BATCH_OUTCOMES,
  BATCH_STATUSES,
  ITEM_ACTIONS,
} from '../src/features/approvals/approvals.schemas.ts';
import { CONNECTION_STATUSES } from '../src/features/connections/connections.routes.ts';
import { EVENT_TYPES } from '../src/features/events/outbox.ts';
import { INSIGHT_PERIODS, SUMMARY_INTERVALS } from '../src/features/analytics/analytics.schemas.ts';
import { INSIGHT_KINDS, INSIGHT_SEVERITIES, INSIGHT_STATUSES } from '../src/features/analytics/insights/types.ts';
import { METRIC_NAMES } from '../src/platforms/types.ts';
import {
  JOB_STATUSES,
  OUTPUT_FORMATS,
  OUTPUT_MODES,
  SOURCE_TYPES,
} from '../src/features/repurpose/repurpose.schemas.ts';
import { OUTPUT_STATUSES } from '../src/features/repurpose/repurpose.view.schemas.ts';
import * as automation from '../src/features/automations/automations.schemas.ts';
import { CALENDAR_EVENT_STATUSES, CALENDAR_EVENT_TYPES } from '../src/features/calendar/calendar.schemas.ts';
import { RECYCLE_STATUSES, RECYCLE_VARY } from '../src/features/recycling/recycling.schemas.ts';
import { GAP_POLICIES, QUEUE_SLOT_STATUSES } from '../src/features/queues/queues.schemas.ts';
import { SCOPE_DESCRIPTIONS, SCOPES, parseScopes } from '../src/features/keys/scopes.ts';
import { KEY_PROFILES } from '../src/features/keys/keys.repo.ts';
import { SCOPE_AREAS } from '../src/features/keys/keys.schemas.ts';
import { MEMBER_ROLES } from '../src/features/members/members.schemas.ts';
import { INVITE_EMAIL_STATUSES } from '../src/features/members/members.email.ts';
import { INVITE_STATUSES } from '../src/features/members/members.service.ts';
import { MEDIA_FIT_MODES } from '../src/features/media/fit/plan.ts';
import { Media } from '../src/features/media/media.schemas.ts';
import { CONNECT_METHODS } from '../src/features/platforms/platforms.routes.ts';
import {
  GOOGLEBUSINESS_ACTION_TYPES,
  GOOGLEBUSINESS_TOPIC_TYPES,
  INSTAGRAM_POST_TYPES,
  LINKEDIN_VISIBILITIES,
  MASTODON_VISIBILITIES,
  POST_SORTS,
  QUEUE_POSITIONS,
  THREADS_REPLY_CONTROLS,
  TIKTOK_PRIVACY_LEVELS,
  TIKTOK_VIDEO_SOURCES,
  YOUTUBE_PRIVACY_STATUSES,
} from '../src/features/posts/posts.schemas.ts';
import {
  PART_KINDS,
  PART_STATUSES,
  POST_ORIGINS,
  POST_STATUSES,
  TARGET_ERROR_CATEGORIES,
  TARGET_STATUSES,
} from '../src/features/posts/posts.view.schemas.ts';
import { EVENT_CATALOGUE } from '../src/features/webhooks/catalogue.ts';
import {
  ACTION_TYPES as INBOX_ACTION_TYPES,
  INTENTS,
  LANGUAGES,
  MATCH_MODES,
  RESPONSE_MODES,
  TRIGGER_TYPES,
} from '../src/features/inbox/automations.rules.ts';
import { RUN_OUTCOMES, RUN_REASONS } from '../src/features/inbox/automations.schemas.ts';
import { RESPONSE_STATUSES } from '../src/features/inbox/inbox.schemas.ts';
import { INBOX_KINDS, INBOX_STATUSES } from '../src/features/inbox/inbox.types.ts';
import {
  DELIVERY_ATTEMPT_ERRORS,
  DELIVERY_ATTEMPT_TRIGGERS,
  DELIVERY_FAILURE_REASONS,
  DELIVERY_STATUSES,
  WEBHOOK_DISABLED_REASONS,
} from '../src/features/webhooks/webhooks.schemas.ts';
import { WORKSPACE_MODES } from '../src/features/workspaces/workspaces.routes.ts';
import { PLATFORM_ERRORS } from '../src/platforms/errors.ts';
import { PLATFORM_NAMES } from '../src/platforms/limits.ts';
import { configTable } from './config-table.ts';

export const API_DOC = path.resolve(import.meta.dirname, '..', 'docs', 'api.md');
export const BEGIN_MARKER = '<!-- BEGIN GENERATED: node scripts/api-tables.ts --write -->';
export const END_MARKER = '<!-- END GENERATED -->';

/** The values of a union of literals (`anyOf` of `const`), as the media schema writes its enumerations. */
function literalValues(schema: unknown): string[] {
  const anyOf = (schema as { anyOf?: Array<{ const?: unknown }> }).anyOf ?? [];
  const values = anyOf.map((s) => s.const).filter((v): v is string => typeof v === 'string');
  if (values.length === 0) throw new Error('not a union of string literals');
  return values;
}

/** Every public enumeration: its name, where a client meets it, and its values. */
export const ENUMERATIONS: Array<{ name: string; where: string; values: readonly string[] }> = [
  { name: 'Platform', where: '`platform` fields, `platforms` of a post', values: PLATFORM_NAMES },
  { name: 'Post status', where: '`status` of a post', values: POST_STATUSES },
  { name: 'Target status', where: '`targets[].status` of a post', values: TARGET_STATUSES },
  { name: 'Part status', where: '`targets[].parts[].status` of a post', values: PART_STATUSES },
  { name: 'Part kind', where: '`targets[].parts[].kind` of a post', values: PART_KINDS },
  { name: 'Target error category', where: '`targets[].error.category` of a post', values: TARGET_ERROR_CATEGORIES },
  { name: 'Post origin', where: '`created_via` of a post', values: POST_ORIGINS },
  { name: 'Post order', where: '`sort` of `GET /v1/posts`', values: POST_SORTS },
  { name: 'Mastodon visibility', where: '`platform_options.mastodon.visibility`', values: MASTODON_VISIBILITIES },
  { name: 'Threads reply control', where: '`platform_options.threads.reply_control`', values: THREADS_REPLY_CONTROLS },
  { name: 'LinkedIn visibility', where: '`platform_options.linkedin.visibility`', values: LINKEDIN_VISIBILITIES },
  { name: 'Instagram post type', where: '`platform_options.instagram.type`', values: INSTAGRAM_POST_TYPES },
  { name: 'TikTok privacy level', where: '`platform_options.tiktok.privacy_level`', values: TIKTOK_PRIVACY_LEVELS },
  { name: 'TikTok video source', where: '`platform_options.tiktok.video_source`', values: TIKTOK_VIDEO_SOURCES },
  { name: 'YouTube privacy', where: '`platform_options.youtube.privacy_status`', values: YOUTUBE_PRIVACY_STATUSES },
  {
    name: 'Google Business Profile topic type',
    where: '`platform_options.googlebusiness.topic_type`',
    values: GOOGLEBUSINESS_TOPIC_TYPES,
  },
  {
    name: 'Google Business Profile call to action',
    where: '`platform_options.googlebusiness.call_to_action.action_type`',
    values: GOOGLEBUSINESS_ACTION_TYPES,
  },
  { name: 'Media fit', where: '`platform_options.<platform>.media_fit`', values: MEDIA_FIT_MODES },
  { name: 'Media kind', where: '`kind` of a media', values: literalValues(Media.properties.kind) },
  { name: 'Media status', where: '`status` of a media', values: literalValues(Media.properties.status) },
  { name: 'Connection status', where: '`status` of a connection', values: CONNECTION_STATUSES },
  { name: 'Connect method', where: '`connect.method` of a platform', values: CONNECT_METHODS },
  { name: 'Workspace mode', where: '`mode` of a workspace', values: WORKSPACE_MODES },
  { name: 'Key profile', where: '`profile` of an API key (`herald keys create --profile`)', values: KEY_PROFILES },
  { name: 'Scope area', where: '`area` of a scope (`GET /v1/scopes`)', values: SCOPE_AREAS },
  { name: 'Member role', where: '`role` of a member and of an invite', values: MEMBER_ROLES },
  { name: 'Invite status', where: '`status` of an invite', values: INVITE_STATUSES },
  { name: 'Invite email status', where: '`email_delivery.status` of a new invite', values: INVITE_EMAIL_STATUSES },
  { name: 'Voice emoji', where: '`voice.emoji` of a brand', values: VOICE_EMOJI },
  { name: 'Voice hashtags', where: '`voice.hashtags` of a brand', values: VOICE_HASHTAGS },
  { name: 'Banned term severity', where: '`rules.banned_terms.severity` of a brand', values: BANNED_TERM_SEVERITIES },
  {
    name: 'Missing required term',
    where: '`rules.required_terms.when_missing` of a brand',
    values: REQUIRED_TERM_MODES,
  },
  { name: 'Brand rule scope', where: '`rules.*.apply` of a brand', values: RULE_APPLY },
  {
    name: 'Brand addition',
    where: '`applied[].additions[].rule` of `POST /v1/posts/validate`, `brand_additions` of a post',
    values: BRAND_ADDITION_RULES,
  },
  {
    name: 'Endpoint disabled reason',
    where: '`disabled_reason` of a webhook endpoint',
    values: WEBHOOK_DISABLED_REASONS,
  },
  { name: 'Delivery status', where: '`status` of a webhook delivery', values: DELIVERY_STATUSES },
  {
    name: 'Delivery failure reason',
    where: '`failure_reason` of a webhook delivery',
    values: DELIVERY_FAILURE_REASONS,
  },
  { name: 'Attempt trigger', where: '`trigger` of a delivery attempt', values: DELIVERY_ATTEMPT_TRIGGERS },
  { name: 'Attempt error', where: '`error.code` of a delivery attempt', values: DELIVERY_ATTEMPT_ERRORS },
  { name: 'Metric', where: '`metrics` of post analytics and summaries, `unavailable`', values: METRIC_NAMES },
  { name: 'Summary interval', where: '`interval` of `GET /v1/analytics/summary`', values: SUMMARY_INTERVALS },
  { name: 'Insight kind', where: '`kind` of an insight', values: INSIGHT_KINDS },
  { name: 'Insight severity', where: '`severity` of an insight', values: INSIGHT_SEVERITIES },
  {
    name: 'Insight status',
    where: '`status` of an insight, `PATCH /v1/analytics/insights/{id}`',
    values: INSIGHT_STATUSES,
  },
  { name: 'Insight period', where: '`period` of `POST /v1/analytics/insights`', values: INSIGHT_PERIODS },
  { name: 'Approval mode', where: '`mode` of the approval policy', values: APPROVAL_MODES },
  {
    name: 'Approval source',
    where: '`sources` of the approval policy, `source.type` of an approval item',
    values: APPROVAL_SOURCES,
  },
  { name: 'Approver role', where: '`approver_roles` of the approval policy', values: APPROVER_ROLES },
  { name: 'Approval expiry action', where: '`on_expire` of the approval policy', values: EXPIRY_ACTIONS },
  { name: 'Approval item status', where: '`status` of an approval item', values: ITEM_STATUSES },
  { name: 'Approval item kind', where: '`kind` of an approval item', values: ITEM_KINDS },
  { name: 'Proposed action', where: '`proposed_action.type` of an approval item', values: ACTION_TYPES },
  { name: 'Approval history step', where: '`history[].type` of an approval item', values: HISTORY_TYPES },
  { name: 'Approval item action', where: '`action` of `POST /v1/approvals/items/{id}/actions`', values: ITEM_ACTIONS },
  {
    name: 'Approval batch action',
    where: '`action` of `POST /v1/approvals/batches/{id}/actions`',
    values: BATCH_ACTIONS,
  },
  { name: 'Approval batch outcome', where: '`results[].outcome` of a batch action', values: BATCH_OUTCOMES },
  { name: 'Approval batch status', where: '`status` of an approval batch', values: BATCH_STATUSES },
  { name: 'Repurpose source', where: '`source.type` of a repurpose job', values: SOURCE_TYPES },
  { name: 'Repurpose format', where: '`targets[].format` of a repurpose job', values: OUTPUT_FORMATS },
  { name: 'Repurpose output mode', where: '`output.mode` of a repurpose job', values: OUTPUT_MODES },
  { name: 'Repurpose job status', where: '`status` of a repurpose job', values: JOB_STATUSES },
  { name: 'Repurpose output status', where: '`outputs[].status` of a repurpose job', values: OUTPUT_STATUSES },
  { name: 'Automation status', where: '`status` of an automation', values: automation.AUTOMATION_STATUSES },
  { name: 'Automation source', where: '`source.type` of an automation', values: automation.SOURCE_TYPES },
  { name: 'Automation source event', where: '`source.event` of an automation', values: automation.SOURCE_EVENTS },
  { name: 'Automation generator', where: '`generator.type` of an automation', values: automation.GENERATOR_TYPES },
  { name: 'Automation output mode', where: '`output.mode` of an automation', values: automation.OUTPUT_MODES },
  { name: 'Automation run trigger', where: '`trigger` of an automation run', values: automation.RUN_TRIGGERS },
  { name: 'Automation run status', where: '`status` of an automation run', values: automation.RUN_STATUSES },
  { name: 'Inbox item kind', where: '`kind` of an inbox item', values: INBOX_KINDS },
  { name: 'Inbox item status', where: '`status` of an inbox item', values: INBOX_STATUSES },
  { name: 'Inbox response status', where: '`responses[].status` of an inbox item', values: RESPONSE_STATUSES },
  { name: 'Inbox trigger type', where: '`trigger.type` of an inbox automation', values: TRIGGER_TYPES },
  { name: 'Inbox keyword match', where: '`trigger.match` of an inbox automation', values: MATCH_MODES },
  { name: 'Inbox intent', where: '`trigger.intents` of an inbox automation', values: INTENTS },
  { name: 'Inbox action', where: '`actions[].type` of an inbox automation', values: INBOX_ACTION_TYPES },
  { name: 'Inbox response mode', where: '`response_mode` of an inbox automation', values: RESPONSE_MODES },
  { name: 'Inbox language', where: '`conditions.languages` of an inbox automation', values: LANGUAGES },
  { name: 'Inbox run outcome', where: '`outcome` of an inbox automation run', values: RUN_OUTCOMES },
  { name: 'Inbox run reason', where: '`reason` of a skipped inbox automation run', values: RUN_REASONS },
  { name: 'Calendar event type', where: '`type` of a calendar event', values: CALENDAR_EVENT_TYPES },
  { name: 'Calendar event status', where: '`status` of a calendar event', values: CALENDAR_EVENT_STATUSES },
  { name: 'Queue position', where: '`queue` of a new post', values: QUEUE_POSITIONS },
  { name: 'Queue gap policy', where: '`gap_policy` of a queue', values: GAP_POLICIES },
  { name: 'Queue slot status', where: '`status` of a slot in a queue’s preview', values: QUEUE_SLOT_STATUSES },
  { name: 'Recycle variation', where: '`vary` of a post’s recycle rule', values: RECYCLE_VARY },
  { name: 'Recycle rule status', where: '`status` of a post’s recycle rule', values: RECYCLE_STATUSES },
];

const cell = (text: string) => text.replaceAll('|', '\\|');
const code = (text: string) => `\`${text}\``;
const yesNo = (value: boolean) => (value ? 'yes' : 'no');

/** A Markdown table; an empty one is refused, so a list that lost its source cannot pass as documented. */
function table(title: string, header: string[], rows: string[][]): string {
  if (rows.length === 0) throw new Error(`the ${title} table has no rows`);
  return [
    `## ${title}`,
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ].join('\n');
}

export function apiTables(): string {
  const expandedAll = parseScopes('all');
  const inAll = new Set<string>('scopes' in expandedAll ? expandedAll.scopes : []);
  const settings = configTable();
  if (settings.split('\n').length < 3) throw new Error('the Settings table has no rows');
  return [
    table(
      'Scopes',
      ['Scope', 'Grants', 'In `--scopes all`'],
      SCOPES.map((s) => [code(s), SCOPE_DESCRIPTIONS[s], yesNo(inAll.has(s))]),
    ),
    ['## Settings', '', settings].join('\n'),
    table(
      'Enumerations',
      ['Enumeration', 'Where', 'Values'],
      ENUMERATIONS.map((e) => [e.name, e.where, e.values.map(code).join(', ')]),
    ),
    table(
      'API error codes',
      ['Code', 'HTTP status', 'Retryable', 'When'],
      Object.entries(ERROR_CATALOGUE).map(([c, e]) => [code(c), String(e.status), yesNo(e.retryable), e.when]),
    ),
    table(
      'Platform error codes',
      ['Code', 'Category', 'Retryable', 'When'],
      Object.entries(PLATFORM_ERRORS).map(([c, e]) => [code(c), code(e.category), yesNo(e.retryable), e.when]),
    ),
    table(
      'Event types',
      ['Type', 'Sent when'],
      EVENT_TYPES.map((t) => [code(t), EVENT_CATALOGUE[t].description]),
    ),
  ].join('\n\n');
}

/** The generated region of docs/api.md, or undefined when its markers are missing. */
export function generatedRegion(doc: string): string | undefined {
  const begin = doc.indexOf(BEGIN_MARKER);
  const end = doc.indexOf(END_MARKER);
  if (begin < 0 || end < begin) return undefined;
  return doc.slice(begin + BEGIN_MARKER.length, end).trim();
}

if (import.meta.main) {
  if (process.argv.includes('--write')) {
    const doc = await readFile(API_DOC, 'utf8');
    if (generatedRegion(doc) === undefined)
      throw new Error(`${API_DOC} lacks the markers ${BEGIN_MARKER} … ${END_MARKER}`);
    const before = doc.slice(0, doc.indexOf(BEGIN_MARKER) + BEGIN_MARKER.length);
    const after = doc.slice(doc.indexOf(END_MARKER));
    await writeFile(API_DOC, `${before}\n\n${apiTables()}\n\n${after}`);
  } else console.log(apiTables());
}
