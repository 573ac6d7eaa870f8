-- The inbox's answers and automations (docs/inbox.md). The items themselves are 0026_inbox_items.sql.
-- A draft per item; every reply ever asked for, with its Idempotency-Key and its outcome (a reply is posted at most
-- once: the row is `sending` in a committed transaction before the platform is called); the automations, in their
-- evaluation order, and one run row per evaluation; the threads where a person answered, which automations leave
-- alone from then on.
CREATE TABLE inbox_drafts (
  item_id       text PRIMARY KEY REFERENCES inbox_items (id) ON DELETE CASCADE,
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  text          text NOT NULL,
  source        text NOT NULL CHECK (source IN ('text', 'template', 'generated')),
  generated_by  jsonb,
  updated_by    text,
  updated_at    timestamptz(3) NOT NULL DEFAULT now()
);

CREATE TABLE inbox_automations (
  id             text PRIMARY KEY,
  workspace_id   uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name           text NOT NULL,
  enabled        boolean NOT NULL DEFAULT true,
  position       integer NOT NULL,               -- evaluation order, lowest first
  scope          jsonb NOT NULL,                 -- {connection_ids[], kinds[], post_ids?}
  trigger        jsonb NOT NULL,                 -- {type, keywords[], match, intents[]}
  conditions     jsonb NOT NULL,                 -- {first_interaction_only, languages?}
  actions        jsonb NOT NULL,                 -- [{type, template?, assignee_id?, labels?}]
  response_mode  text NOT NULL CHECK (response_mode IN ('auto', 'approval')),
  guardrails     jsonb NOT NULL,                 -- {dedup_window_minutes, daily_cap, quiet_hours?, blocked_terms[]}
  active_until   timestamptz(3),
  created_by     text,
  created_at     timestamptz(3) NOT NULL DEFAULT now(),
  updated_at     timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX inbox_automations_order_idx ON inbox_automations (workspace_id, position, id);

CREATE TABLE inbox_automation_runs (
  id             text PRIMARY KEY,
  workspace_id   uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  automation_id  text NOT NULL REFERENCES inbox_automations (id) ON DELETE CASCADE,
  item_id        text NOT NULL REFERENCES inbox_items (id) ON DELETE CASCADE,
  author_key     text NOT NULL,                  -- connection id + author's platform user id: the dedup window's key
  outcome        text NOT NULL CHECK (outcome IN ('sent', 'queued_for_approval', 'skipped')),
  reason         text CHECK (reason IN ('dedup', 'window_closed', 'cap', 'no_match', 'human_takeover', 'blocked_term')),
  response_id    text,
  detail         text,
  created_at     timestamptz(3) NOT NULL DEFAULT now(),
  UNIQUE (automation_id, item_id)
);
CREATE INDEX inbox_automation_runs_list_idx ON inbox_automation_runs (automation_id, created_at DESC, id DESC);
-- The dedup window and the daily cap count what an automation answered, by author and in all.
CREATE INDEX inbox_automation_runs_answered_idx ON inbox_automation_runs (automation_id, author_key, created_at)
  WHERE outcome <> 'skipped';

CREATE TABLE inbox_responses (
  id                text PRIMARY KEY,
  workspace_id      uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  item_id           text NOT NULL REFERENCES inbox_items (id) ON DELETE CASCADE,
  text              text NOT NULL,
  private           boolean NOT NULL DEFAULT false,
  source            text NOT NULL CHECK (source IN ('api', 'automation')),
  automation_id     text,
  sent_by           text,                        -- the person who answered (api), null for an automation
  idempotency_key   text,
  status            text NOT NULL CHECK (status IN ('pending_approval', 'queued', 'sending', 'sent', 'failed',
                                                    'discarded')),
  send_after        timestamptz(3),
  platform_reply_id text,
  permalink         text,
  error             jsonb,                        -- {code, rule?, message}
  created_at        timestamptz(3) NOT NULL DEFAULT now(),
  sent_at           timestamptz(3)
);
CREATE INDEX inbox_responses_item_idx ON inbox_responses (item_id, created_at);
CREATE UNIQUE INDEX inbox_responses_key_idx ON inbox_responses (workspace_id, item_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
-- An ingested reply of the account is recognised as an automation's own by its platform id.
CREATE INDEX inbox_responses_platform_idx ON inbox_responses (workspace_id, platform_reply_id)
  WHERE platform_reply_id IS NOT NULL;

CREATE TABLE inbox_thread_takeovers (
  workspace_id   uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  connection_id  text NOT NULL,
  thread_id      text NOT NULL,
  taken_over_at  timestamptz(3) NOT NULL DEFAULT now(),
  by_item_id     text,                           -- the ingested reply of the account, or
  by_user_id     text,                           -- the person who answered through the API
  PRIMARY KEY (connection_id, thread_id)
);
