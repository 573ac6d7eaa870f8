// Settings of the metrics sync (docs/analytics.md "Sync"): how long a published target keeps being read and how
// many targets one pass takes.
import { integer } from './parsers.ts';
import { setting } from './setting.ts';

export const ANALYTICS_SETTINGS = {
  syncMaxAgeDays: setting({
    name: 'HERALD_ANALYTICS_SYNC_MAX_AGE_DAYS',
    default: 30,
    parse: integer(1, 365),
    description:
      "Days after publishing that a target's metrics keep being synced (15 min, 1 h, 6 h, then daily); the last reading stays.",
  }),
  syncBatchSize: setting({
    name: 'HERALD_ANALYTICS_SYNC_BATCH',
    default: 500,
    parse: integer(1, 10_000),
    description:
      'Targets one metrics sync pass claims at most (the pass runs every minute and groups them per connection).',
  }),
};
