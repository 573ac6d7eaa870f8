// The scope catalogue (docs/api.md "Scopes"). Every scope is accepted from the first release, even where
// its endpoints come later; `--scopes all` expands to this list as it is today, so a scope added later is
// never granted silently to an existing key. `connections:write` (connect links, refresh, disconnect),
// `brand:write` (brand settings: docs/api.md "Brands") and `events:read` (GET /v1/events) are Herald's additions to
// the seed's list. `keys:manage` and `members:manage` (the dashboard: docs/api.md "Sessions") give power over
// credentials and people: they are never part of `all` (ALL_SCOPES); an owner grants them by name.

export const SCOPES = [
  'posts:read',
  'posts:write',
  'media:write',
  'connections:read',
  'connections:write',
  'webhooks:manage',
  'events:read',
  'approvals:read',
  'approvals:write',
  'inbox:read',
  'inbox:write',
  'automations:read',
  'automations:write',
  'calendar:read',
  'calendar:write',
  'analytics:read',
  'analytics:write',
  'brand:read',
  'brand:write',
  'repurpose:read',
  'repurpose:write',
  'queues:read',
  'queues:write',
  'keys:manage',
  'members:manage',
] as const;

export type Scope = (typeof SCOPES)[number];

/** Scopes over keys and members: never granted by `all`, only by name. */
export const ADMINISTRATIVE_SCOPES: readonly Scope[] = ['keys:manage', 'members:manage'];

/** What `--scopes all` (and the first-start key) expands to: every scope but the administrative ones. */
export const ALL_SCOPES: readonly Scope[] = SCOPES.filter((s) => !ADMINISTRATIVE_SCOPES.includes(s));

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** What each scope lets a key do, in words (consent screens, `herald keys create --help`). */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'posts:read': 'Read posts and their per-platform results.',
  'posts:write': 'Create, edit, schedule, publish, cancel and delete posts.',
  'media:write': 'Upload media and manage uploaded media.',
  'connections:read': 'See connected social accounts (never their tokens).',
  'connections:write': 'Connect, refresh and disconnect social accounts.',
  'webhooks:manage': 'Create and manage webhook endpoints and see their deliveries.',
  'events:read': 'Read the events of the workspace (GET /v1/events): what webhooks deliver, kept at least 30 days.',
  'approvals:read': 'See approval requests.',
  'approvals:write': 'Approve or reject posts.',
  'inbox:read': 'Read comments and mentions.',
  'inbox:write': 'Reply to comments and manage inbox automations.',
  'automations:read': 'See content automations and their runs.',
  'automations:write': 'Create, change and trigger content automations.',
  'calendar:read': 'Read the calendar.',
  'calendar:write': 'Move and remove calendar entries.',
  'analytics:read': 'Read post metrics, analytics summaries and their CSV export, and insights.',
  'analytics:write': 'Generate insights and record what was done with them (viewed, dismissed, acted upon).',
  'brand:read': 'Read brands, their settings and their compiled brand context.',
  'brand:write': 'Create, change and delete brands (voice, rules, memory, documents).',
  'repurpose:read': 'See repurpose jobs.',
  'repurpose:write': 'Start repurpose jobs.',
  'queues:read': 'See posting queues and preview their time slots.',
  'queues:write': 'Create, change and delete posting queues (their time slots, pauses and spacing).',
  'keys:manage':
    "Create, list and revoke the caller's own API keys (GET/POST /v1/keys); never beyond what the caller holds.",
  'members:manage': 'Invite people to the workspace, change their roles and remove them.',
};

/** Parses `all` or a comma-separated list; returns the scopes or the unknown names. */
export function parseScopes(input: string): { scopes: Scope[] } | { unknown: string[] } {
  if (input.trim() === 'all') return { scopes: [...ALL_SCOPES] };
  const names = [
    ...new Set(
      input
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  const unknown = names.filter((n) => !isScope(n));
  if (unknown.length > 0 || names.length === 0) return { unknown: unknown.length > 0 ? unknown : ['(none given)'] };
  return { scopes: names as Scope[] };
}
