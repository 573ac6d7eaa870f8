// Settings of the inbox ingestion (docs/inbox.md "Ingestion") and of the simulators' trickle of comments
// (docs/inbox.md "Test mode").
import { integer } from './parsers.ts';
import { setting } from './setting.ts';

export const INBOX_INGEST_SETTINGS = {
  pollSeconds: setting({
    name: 'HERALD_INBOX_POLL_SECONDS',
    default: 120,
    parse: integer(30, 86_400),
    description:
      "Seconds between two polls of a connection's inbox stream (comments, mentions, DMs, reviews); failures back off from there.",
  }),
  pollBatchSize: setting({
    name: 'HERALD_INBOX_POLL_BATCH',
    default: 200,
    parse: integer(1, 10_000),
    description: 'Inbox streams one ingestion pass polls at most (the pass runs every minute).',
  }),
  maxPages: setting({
    name: 'HERALD_INBOX_MAX_PAGES',
    default: 10,
    parse: integer(1, 1000),
    description: 'Pages one poll reads from a stream at most; the rest waits for the next poll.',
  }),
  sandboxEverySeconds: setting({
    name: 'HERALD_SANDBOX_INBOX_EVERY_SECONDS',
    default: 300,
    parse: integer(0, 86_400),
    description:
      'The simulators add a comment to each sandbox post every this many seconds (12 per post at most); 0 turns the trickle off.',
  }),
};
