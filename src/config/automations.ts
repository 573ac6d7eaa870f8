// Settings of content automations (docs/automations.md "Settings"): how often feeds are polled, when failing
// automations pause themselves, and how many due automations one scheduler transaction claims.
import { integer } from './parsers.ts';
import { setting } from './setting.ts';

export const AUTOMATION_SETTINGS = {
  rssPollMinutes: setting({
    name: 'HERALD_AUTOMATION_RSS_POLL_MINUTES',
    default: 15,
    parse: integer(1, 1440),
    description: 'Minutes between two polls of an `rss` automation’s feed.',
  }),
  pauseAfterFailures: setting({
    name: 'HERALD_AUTOMATION_PAUSE_AFTER_FAILURES',
    default: 5,
    parse: integer(1, 1000),
    description:
      'Failed runs in a row after which an automation pauses itself (status `paused`, event `automation.paused`).',
  }),
  schedulerBatch: setting({
    name: 'HERALD_AUTOMATION_SCHEDULER_BATCH',
    default: 500,
    parse: integer(1, 10_000),
    description: 'Due automations one scheduler transaction claims (the pass repeats until none is due).',
  }),
};
