// Fleet-wide gauges read from the database: the job queues, the workers' heartbeats, overdue targets, accounts to
// reconnect and the webhook backlog. Any node (API or worker) serves the same values, so one scrape of any of them
// says whether publishing is healthy, even though a worker has no HTTP port of its own. Workers and overdue targets
// are GET /health/publishing's own figures (publishingHealth), so the alerts and that endpoint always agree; the
// rest is one statement. A reading is kept for a few seconds, so that several scrapers cost one.
import { Counter, Gauge, type Registry } from 'prom-client';
import { JOB_SCHEMAS } from '../db/migrate.ts';
import type { Pool } from '../db/pool.ts';
import { dueTargets, publishingHealth } from '../features/publishing/health.ts';

export interface FleetOptions {
  /** A worker whose heartbeat is older than this is not counted as alive. */
  workerDeadAfterMs: number;
  /** A target due longer ago than this and not started is overdue. */
  overdueAfterMs: number;
  /** How long one reading is served before the database is asked again. */
  cacheMs?: number;
}

export interface FleetReading {
  jobs: Record<keyof typeof JOB_SCHEMAS, { due: number; locked: number; failed: number }>;
  workers: number;
  /** Age of the freshest publishing heartbeat; null when no worker has ever beaten (or all stopped cleanly). */
  heartbeatAgeSeconds: number | null;
  overdueTargets: number;
  oldestOverdueSeconds: number;
  dueTargets: number;
  reconnectRequired: number;
  webhookPending: number;
  webhookOldestPendingSeconds: number;
  webhookEndpointsDisabled: Record<'manual' | 'endpoint_gone' | 'failing', number>;
}

// One pass over each queue's job table (graphile-worker indexes only the available jobs, so locked and failed ones
// cannot be counted from an index).
const jobCounts = (schema: string, prefix: string) => `
  ${prefix} AS (
    SELECT count(*) FILTER (WHERE is_available AND run_at <= now()) AS due,
           count(*) FILTER (WHERE locked_at IS NOT NULL) AS locked,
           count(*) FILTER (WHERE NOT is_available AND locked_at IS NULL) AS failed
      FROM ${schema}._private_jobs
  )`;

// Due targets come from the partial indexes publishingHealth uses (posts_due_idx, post_targets_in_flight_idx) and
// the pending deliveries from webhook_deliveries_pending_idx (migration 0020); the job counts scan graphile-worker's
// table (docs/decisions.md has the cost at a million posts).
const FLEET_SQL = `
WITH ${jobCounts(JOB_SCHEMAS.main, 'publish_jobs')},
${jobCounts(JOB_SCHEMAS.deliveries, 'delivery_jobs')}
SELECT
  (SELECT due FROM publish_jobs) AS publish_due,
  (SELECT locked FROM publish_jobs) AS publish_locked,
  (SELECT failed FROM publish_jobs) AS publish_failed,
  (SELECT due FROM delivery_jobs) AS deliveries_due,
  (SELECT locked FROM delivery_jobs) AS deliveries_locked,
  (SELECT failed FROM delivery_jobs) AS deliveries_failed,
  -- publishingHealth's overdue targets, due from now instead of HERALD_OVERDUE_AFTER_MS ago.
  (SELECT count(*) FROM (${dueTargets('now()')}) due) AS due_targets,
  (SELECT count(*) FROM connections WHERE status = 'expired') AS reconnect_required,
  (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS webhook_pending,
  (SELECT coalesce(extract(epoch FROM now() - min(created_at)), 0)::double precision FROM webhook_deliveries
    WHERE status = 'pending') AS webhook_oldest_pending,
  (SELECT count(*) FILTER (WHERE disabled_reason = 'manual') FROM webhook_endpoints) AS disabled_manual,
  (SELECT count(*) FILTER (WHERE disabled_reason = 'endpoint_gone') FROM webhook_endpoints) AS disabled_gone,
  (SELECT count(*) FILTER (WHERE disabled_reason = 'failing') FROM webhook_endpoints) AS disabled_failing`;

/** Reads the fleet's state: publishingHealth's two queries and one statement for the rest, at once. */
export async function readFleet(pool: Pool, o: FleetOptions): Promise<FleetReading> {
  const [{ rows }, health] = await Promise.all([
    pool.query<Record<string, number | string | null>>(FLEET_SQL),
    publishingHealth(pool, o),
  ]);
  const r = rows[0] ?? {};
  const n = (key: string) => Number(r[key] ?? 0);
  const age = health.workers.last_heartbeat_age_ms;
  return {
    jobs: {
      main: { due: n('publish_due'), locked: n('publish_locked'), failed: n('publish_failed') },
      deliveries: { due: n('deliveries_due'), locked: n('deliveries_locked'), failed: n('deliveries_failed') },
    },
    workers: health.workers.alive,
    heartbeatAgeSeconds: age === null ? null : Math.max(0, age) / 1000,
    dueTargets: n('due_targets'),
    overdueTargets: health.overdue.targets,
    oldestOverdueSeconds: (health.overdue.oldest_age_ms ?? 0) / 1000,
    reconnectRequired: n('reconnect_required'),
    webhookPending: n('webhook_pending'),
    webhookOldestPendingSeconds: n('webhook_oldest_pending'),
    webhookEndpointsDisabled: {
      manual: n('disabled_manual'),
      endpoint_gone: n('disabled_gone'),
      failing: n('disabled_failing'),
    },
  };
}

const QUEUE_LABEL: Record<keyof typeof JOB_SCHEMAS, string> = { main: 'publishing', deliveries: 'webhooks' };

/**
 * Registers the fleet gauges on `registry`. A scrape reads the database at most once per `cacheMs` (5 s); when the
 * database does not answer, the gauges are left out of that scrape (and `herald_fleet_scrape_errors_total` counts
 * it) rather than reporting stale or made-up values.
 */
export function registerFleetGauges(registry: Registry, pool: Pool, options: FleetOptions): void {
  const cacheMs = options.cacheMs ?? 5_000;
  let cached: { at: number; reading: Promise<FleetReading | undefined> } | undefined;
  const errors = new Counter({
    name: 'herald_fleet_scrape_errors_total',
    help: 'Scrapes whose fleet gauges could not be read from the database (they are left out of that scrape).',
    registers: [registry],
  });
  const read = (): Promise<FleetReading | undefined> => {
    const now = Date.now();
    if (!cached || now - cached.at >= cacheMs) {
      cached = {
        at: now,
        reading: readFleet(pool, options).catch(() => {
          errors.inc();
          cached = undefined;
          return undefined;
        }),
      };
    }
    return cached.reading;
  };
  const gauge = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    fill: (reading: FleetReading, set: (labels: Partial<Record<L, string>>, value: number) => void) => void,
  ) =>
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        const reading = await read();
        this.reset();
        if (reading) fill(reading, (labels, value) => this.set(labels, value));
      },
    });
  const perQueue =
    (pick: (q: FleetReading['jobs']['main']) => number) =>
    (reading: FleetReading, set: (l: { queue?: string }, v: number) => void) => {
      for (const key of Object.keys(QUEUE_LABEL) as (keyof typeof JOB_SCHEMAS)[])
        set({ queue: QUEUE_LABEL[key] }, pick(reading.jobs[key]));
    };
  gauge(
    'herald_jobs_due',
    'Jobs whose time has come and that no worker holds yet, by queue.',
    ['queue'],
    perQueue((q) => q.due),
  );
  gauge(
    'herald_jobs_locked',
    'Jobs a worker holds (running, or fetched into its local queue), by queue.',
    ['queue'],
    perQueue((q) => q.locked),
  );
  gauge(
    'herald_jobs_failed',
    'Jobs that used up their attempts and will not run again, by queue.',
    ['queue'],
    perQueue((q) => q.failed),
  );
  gauge('herald_workers_alive', 'Worker processes whose publishing heartbeat is fresh.', [], (r, set) =>
    set({}, r.workers),
  );
  gauge(
    'herald_worker_heartbeat_age_seconds',
    'Age of the freshest worker heartbeat (+Inf when no worker has a heartbeat).',
    [],
    (r, set) => set({}, r.heartbeatAgeSeconds ?? Number.POSITIVE_INFINITY),
  );
  gauge(
    'herald_publish_due_targets',
    'Post targets due now and not yet started (throttled ones excepted).',
    [],
    (r, set) => set({}, r.dueTargets),
  );
  gauge('herald_publish_overdue_targets', 'Due targets not started within HERALD_OVERDUE_AFTER_MS.', [], (r, set) =>
    set({}, r.overdueTargets),
  );
  gauge(
    'herald_publish_oldest_overdue_seconds',
    'How long the oldest overdue target has been due (0: none).',
    [],
    (r, set) => set({}, r.oldestOverdueSeconds),
  );
  gauge(
    'herald_connections_reconnect_required',
    'Connected accounts whose token the platform stopped accepting: someone must reconnect them.',
    [],
    (r, set) => set({}, r.reconnectRequired),
  );
  gauge('herald_webhook_deliveries_pending', 'Webhook deliveries not yet delivered nor given up.', [], (r, set) =>
    set({}, r.webhookPending),
  );
  gauge(
    'herald_webhook_oldest_pending_seconds',
    'Age of the oldest pending webhook delivery (0: none).',
    [],
    (r, set) => set({}, r.webhookOldestPendingSeconds),
  );
  gauge(
    'herald_webhook_endpoints_disabled',
    'Disabled webhook endpoints by reason (manual, endpoint_gone, failing).',
    ['reason'],
    (r, set) => {
      for (const [reason, count] of Object.entries(r.webhookEndpointsDisabled)) set({ reason }, count);
    },
  );
}
