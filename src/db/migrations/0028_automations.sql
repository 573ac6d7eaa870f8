-- Content automations (docs/automations.md): rules that create posts on a schedule, from an RSS/Atom feed or on an
-- event. `next_run_at` is the slot the scheduler enqueues next; a run is one row per (automation, slot), so a slot
-- runs once however many workers or restarts see it due. Feed items already turned into posts are remembered per
-- GUID/URL in automation_seen_items (never a single last-URL marker).
CREATE TABLE automations (
  id                    text PRIMARY KEY,
  workspace_id          uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  brand_id              text NOT NULL,
  name                  text NOT NULL,
  status                text NOT NULL CHECK (status IN ('active', 'paused', 'error', 'archived')),
  source                jsonb NOT NULL,                 -- {type: schedule, rrule, timezone} | {type: rss, feed_url} | {type: event, event}
  generator             jsonb NOT NULL,                 -- {type, template?, items?, count, ...}
  destinations          jsonb NOT NULL,                 -- [{connection_id? | platform?, content_override?}]
  output                jsonb NOT NULL,                 -- {mode, schedule_expr?}
  options               jsonb NOT NULL,                 -- {utm, use_item_image, hashtags, max_items_per_run, backfill}
  cursor                integer NOT NULL DEFAULT 0,     -- next index into a library generator's items
  event_cursor          text,                           -- `event` sources: the last outbox event id acted on
  next_run_at           timestamptz(3),                 -- NULL: nothing due (paused, ended rule, event source)
  last_run_at           timestamptz(3),
  last_error            jsonb,                          -- {code, message}
  consecutive_failures  integer NOT NULL DEFAULT 0,
  created_by            text NOT NULL,
  created_at            timestamptz(3) NOT NULL DEFAULT now(),
  updated_at            timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX automations_list_idx ON automations (workspace_id, created_at DESC, id DESC);
-- The scheduler's scan: due, active automations in slot order.
CREATE INDEX automations_due_idx ON automations (next_run_at) WHERE status = 'active' AND next_run_at IS NOT NULL;
-- Event-sourced automations, looked up when the event fires.
CREATE INDEX automations_event_idx ON automations (workspace_id, (source ->> 'event'))
  WHERE status = 'active' AND source ->> 'type' = 'event';

CREATE TABLE automation_runs (
  id                 text PRIMARY KEY,
  automation_id      text NOT NULL REFERENCES automations (id) ON DELETE CASCADE,
  workspace_id       uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  slot               text NOT NULL,                   -- ISO slot time, 'manual:<key>' or 'event:<event id>'
  trigger            text NOT NULL CHECK (trigger IN ('schedule', 'manual', 'feed', 'event')),
  status             text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'skipped')),
  started_at         timestamptz(3),
  finished_at        timestamptz(3),
  items_seen         integer NOT NULL DEFAULT 0,
  items_new          integer NOT NULL DEFAULT 0,
  posts_created      text[] NOT NULL DEFAULT '{}',
  approval_batch_id  text,
  error              jsonb,                           -- {code, message}
  created_at         timestamptz(3) NOT NULL DEFAULT now(),
  UNIQUE (automation_id, slot)
);
CREATE INDEX automation_runs_list_idx ON automation_runs (automation_id, created_at DESC, id DESC);

CREATE TABLE automation_seen_items (
  automation_id  text NOT NULL REFERENCES automations (id) ON DELETE CASCADE,
  item_key       text NOT NULL,                       -- 'guid:<guid>' or 'url:<normalised url>'
  run_id         text,
  seen_at        timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (automation_id, item_key)
);
