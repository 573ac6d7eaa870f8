-- The brand access of the API key that stored an idempotent answer: a replay goes only to a key that reaches every
-- brand the first key reached (src/app/idempotency.ts), so a brand-limited key of the same user cannot read,
-- through a replay, an answer about a brand it cannot use (a post, a webhook's secret). NULL means every brand of
-- the workspace, which is also the safe reading of the answers stored before this column: only unrestricted keys
-- replay them.
ALTER TABLE idempotency_keys ADD COLUMN brand_ids text[];
