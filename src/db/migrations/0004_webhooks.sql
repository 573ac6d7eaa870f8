-- Webhooks: the endpoints a workspace registers, one delivery per (event, endpoint) and the log of every
-- attempt. Deliveries are queued as jobs in their own graphile-worker schema (see src/jobs/deliveries.ts).
-- Timestamps are timestamptz(3), like the core's: keyset cursors carry millisecond values.

CREATE TABLE webhook_endpoints (
  id                         text PRIMARY KEY,
  workspace_id               uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  url                        text NOT NULL,
  description                text,
  events                     text[] NOT NULL,              -- event types, or {'*'} for all of them
  enabled                    boolean NOT NULL DEFAULT true,
  disabled_reason            text CHECK (disabled_reason IN ('manual', 'endpoint_gone', 'failing')),
  disabled_at                timestamptz(3),
  failing_since              timestamptz(3),               -- first failed attempt since the last success
  secret                     bytea NOT NULL,               -- the whsec_ signing secret, encrypted (AES-256-GCM)
  previous_secret            bytea,                        -- after a rotation: still signs until it expires
  previous_secret_expires_at timestamptz(3),
  secret_rotated_at          timestamptz(3),
  created_at                 timestamptz(3) NOT NULL DEFAULT now(),
  updated_at                 timestamptz(3) NOT NULL DEFAULT now(),
  CHECK (enabled = (disabled_reason IS NULL))
);
CREATE INDEX webhook_endpoints_list_idx ON webhook_endpoints (workspace_id, created_at DESC, id DESC);
-- Fan-out reads the enabled endpoints of one workspace for every event.
CREATE INDEX webhook_endpoints_fanout_idx ON webhook_endpoints (workspace_id) WHERE enabled;

CREATE TABLE webhook_deliveries (
  id              text PRIMARY KEY,
  workspace_id    uuid NOT NULL,
  endpoint_id     text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id        text NOT NULL,                           -- also the `webhook-id` header, stable across retries
  event_type      text NOT NULL,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  failure_reason  text CHECK (failure_reason IN ('retries_exhausted', 'endpoint_disabled', 'endpoint_gone')),
  attempt_count   integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz(3),
  last_attempt_at timestamptz(3),
  delivered_at    timestamptz(3),
  created_at      timestamptz(3) NOT NULL DEFAULT now(),
  updated_at      timestamptz(3) NOT NULL DEFAULT now(),
  UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_list_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_status_idx ON webhook_deliveries (endpoint_id, status, created_at DESC, id DESC);
-- Retention: finished deliveries are pruned by age.
CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (created_at) WHERE status <> 'pending';

CREATE TABLE webhook_attempts (
  id                 text PRIMARY KEY,
  workspace_id       uuid NOT NULL,
  delivery_id        text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  trigger            text NOT NULL CHECK (trigger IN ('automatic', 'manual')),
  started_at         timestamptz(3) NOT NULL,
  duration_ms        integer NOT NULL,
  status_code        integer,                              -- NULL when no HTTP answer came back
  response_body      text,                                 -- the first 2 KiB, as text
  response_truncated boolean NOT NULL DEFAULT false,
  error_code         text,                                 -- NULL on success
  error_message      text
);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, started_at, id);

-- Liveness of job workers: graphile-worker leaves a killed worker's jobs locked for 4 hours, so every runner
-- records the ids it locks jobs under, and a sweeper unlocks the jobs of ids that have fallen silent.
CREATE TABLE job_worker_heartbeats (
  worker_id    text PRIMARY KEY,
  queue_schema text NOT NULL,
  last_seen_at timestamptz(3) NOT NULL DEFAULT now()
);
