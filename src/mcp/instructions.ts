// What the MCP server says about itself at initialize: its identity and the few rules a model should know
// before calling any tool.

export const SERVER_INFO = { name: 'herald', title: 'Herald', version: '1.0.0' };

export const INSTRUCTIONS = [
  'Herald schedules and publishes social media posts (X, LinkedIn, Instagram, Facebook, Threads, Bluesky, Mastodon).',
  'create_post makes a draft unless you pass schedule_at or publish_now: only schedule or publish when the user asked for it.',
  'Check text against each platform with validate_post (or read the limits with list_platforms) before creating a post.',
  'Ids are named by kind: create_post returns post_id, which get_post, publish_post and the other post tools take; media_id and connection_id likewise.',
  'Writes are idempotent: repeating the same call within 10 minutes returns the first result instead of acting twice.',
  'A connection usually reaches one workspace; if a tool answers PUBLIC_API_WORKSPACE_REQUIRED, call list_workspaces and pass workspace_id.',
  'Errors carry a code (e.g. PUBLIC_API_VALIDATION_FAILED) and details naming the platform and rule that failed.',
].join('\n');
