-- API keys with a profile (docs/gpt-actions.md). `standard`: every key so far. `actions`: a key for callers that
-- can send only the Authorization header (custom GPT actions). Such a key reaches exactly one workspace, so no
-- workspace header is needed, and its writes without an Idempotency-Key are deduplicated by content.
ALTER TABLE api_keys
  ADD COLUMN profile text NOT NULL DEFAULT 'standard' CHECK (profile IN ('standard', 'actions')),
  ADD CONSTRAINT api_keys_actions_one_workspace CHECK (profile <> 'actions' OR cardinality(workspace_ids) = 1);
