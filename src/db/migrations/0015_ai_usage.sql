-- Text generation's daily budget (src/features/ai, docs/ai.md "Costs and limits"): one row per workspace and UTC
-- day, counting the provider calls admitted and the tokens they reserved and then spent. A call is admitted by
-- one conditional upsert, so concurrent callers in any number of processes can never pass the cap together.
CREATE TABLE ai_usage (
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  day           date NOT NULL,
  calls         integer NOT NULL DEFAULT 0 CHECK (calls >= 0),
  tokens        bigint NOT NULL DEFAULT 0 CHECK (tokens >= 0),
  -- Calls refused because the budget was spent (shown by `herald ai usage`).
  refused       integer NOT NULL DEFAULT 0 CHECK (refused >= 0),
  PRIMARY KEY (workspace_id, day)
);
