-- The fleet gauges (src/jobs/fleet-metrics.ts) count pending webhook deliveries and the age of the oldest on every
-- scrape; without this index that read every delivery kept for the log (30 days of them).
CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (created_at) WHERE status = 'pending';
