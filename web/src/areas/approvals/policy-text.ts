// The sentences the policy page shows for each option, as docs/approvals.md "Policy" defines them.
import type { Policy } from './shared.tsx';

export const MODES: Array<[Policy['mode'], string, string]> = [
  ['off', 'Off', 'Nothing waits: posts are scheduled or published as soon as they are asked for.'],
  ['members', 'Members', 'What a member submits waits for a reviewer; owners and admins go straight through.'],
  ['everyone', 'Everyone', 'Every role waits, owners and admins included.'],
];

export const SOURCE_TEXT: Record<Policy['sources'][number], string> = {
  api: 'Posts created through the REST API with a key.',
  mcp: 'Posts created by an AI assistant through MCP.',
  dashboard: 'Posts written in this dashboard.',
  cli: 'Posts created with the herald command line.',
  automation: 'Posts a content automation produced.',
  repurpose: 'Posts a repurpose job produced.',
  queue_import: 'Posts created by a bulk import.',
  inbox_automation: 'Replies an inbox automation drafted.',
};

export const ROLE_TEXT: Record<Policy['approver_roles'][number], string> = {
  owner: 'Owners may decide.',
  admin: 'Admins may decide.',
};

export const SELF_APPROVAL_TEXT =
  'Whether the person who asked for an approval may decide it themselves. Off: someone else must review it.';
export const EXPIRY_TEXT =
  'How long a pending request waits before Herald expires it (1 minute to 90 days). Empty: it never expires. A change applies to new requests only.';
export const ON_EXPIRE_TEXT: Record<Policy['on_expire'], string> = {
  to_draft: 'Back to draft: the post returns to draft, unscheduled.',
  cancel: 'Cancel: the post is cancelled.',
};
export const REASON_TEXT = 'Whether rejecting needs a reason; without one a rejection is refused (reason_required).';
export const SOURCES_TEXT =
  'The sources the mode applies to. A source not ticked is never held, whatever the mode says.';
export const ROLES_TEXT = 'Who may decide. Members never can.';
