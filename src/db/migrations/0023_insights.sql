-- Insights (src/features/analytics/insights, docs/analytics.md "Insights"): findings of the deterministic rules
-- engine over a brand's metrics, each with the evidence it rests on and a status the client moves it through.

-- One finding. `fingerprint` names the finding without its numbers (kind, brand, and what it is about: a slot, a
-- post, a platform), so regenerating updates the row in place and keeps its status: a dismissed insight stays
-- dismissed.
CREATE TABLE insights (
  id             text PRIMARY KEY,
  workspace_id   uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  brand_id       text NOT NULL,
  kind           text NOT NULL CHECK (kind IN ('best_time', 'top_post', 'underperformer', 'frequency', 'format',
                                               'platform_mix', 'decay', 'inbox_response')),
  severity       text NOT NULL CHECK (severity IN ('critical', 'positive', 'tip', 'info')),
  title          text NOT NULL,
  body           text NOT NULL,
  evidence       jsonb NOT NULL,                -- {metric, value, baseline, sample_size, window {from, to}}
  recommendation jsonb NOT NULL,                -- {action, params}
  status         text NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'viewed', 'dismissed', 'acted_upon')),
  fingerprint    text NOT NULL,
  generated_by   jsonb NOT NULL,                -- the provenance of title and body (docs/ai.md "Provenance")
  period_from    timestamptz(3) NOT NULL,
  period_to      timestamptz(3) NOT NULL,
  created_at     timestamptz(3) NOT NULL DEFAULT now(),
  updated_at     timestamptz(3) NOT NULL DEFAULT now(),
  expires_at     timestamptz(3) NOT NULL,
  UNIQUE (workspace_id, fingerprint)
);
CREATE INDEX insights_list_idx ON insights (workspace_id, created_at DESC, id DESC);

-- The cache of POST /v1/analytics/insights: when a brand's insights were last generated for a scope (platforms
-- and period), so a repeated request answers from the table instead of running the rules again.
CREATE TABLE insight_runs (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  brand_id     text NOT NULL,
  scope_key    text NOT NULL,                   -- platforms (sorted) and period preset
  period_from  timestamptz(3) NOT NULL,
  period_to    timestamptz(3) NOT NULL,
  insight_ids  text[] NOT NULL,
  generated_at timestamptz(3) NOT NULL,
  expires_at   timestamptz(3) NOT NULL,
  PRIMARY KEY (workspace_id, brand_id, scope_key)
);
