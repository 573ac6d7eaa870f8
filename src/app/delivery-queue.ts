// The webhook delivery queue: graphile-worker jobs in their own schema (JOB_SCHEMAS.deliveries), added inside
// the caller's transaction so a delivery row and its job exist together. One pending job per delivery (its job
// key): queueing again replaces it, which is how a manual retry brings a scheduled attempt forward.
import type { Queryable } from '../db/pool.ts';
import { JOB_SCHEMAS } from '../db/migrate.ts';

export const DELIVER_WEBHOOK_TASK = 'deliver_webhook';

export interface DeliverWebhookPayload {
  workspace_id: string;
  delivery_id: string;
  /** Present when a person asked for this attempt (test, retry); automatic otherwise. */
  trigger?: 'manual';
}

/**
 * graphile-worker's own retries only cover a task that crashed (database down, a bug); failed deliveries are
 * rescheduled by the task itself on the webhook schedule.
 */
const CRASH_RETRIES = 25;

/** Queues one job per delivery, due at `runAt` (default: now, by the database clock). */
export async function queueDeliveries(
  db: Queryable,
  workspaceId: string,
  deliveryIds: readonly string[],
  options: { runAt?: Date; trigger?: 'manual' } = {},
): Promise<void> {
  if (deliveryIds.length === 0) return;
  const schema = JOB_SCHEMAS.deliveries;
  await db.query(
    `SELECT count(*) FROM ${schema}.add_jobs(ARRAY(
       SELECT ROW($1::text, json_strip_nulls(json_build_object('workspace_id', $2::text, 'delivery_id', d.id, 'trigger', $5::text)),
                  NULL, $4::timestamptz, ${CRASH_RETRIES}, 'delivery:' || d.id, 0, NULL)::${schema}.job_spec
         FROM unnest($3::text[]) AS d(id)))`,
    [DELIVER_WEBHOOK_TASK, workspaceId, deliveryIds, options.runAt ?? null, options.trigger ?? null],
  );
}
