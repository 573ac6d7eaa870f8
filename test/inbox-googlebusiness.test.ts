// Google Business Profile's inbox against its simulator (docs/inbox.md "Platforms"): the location's reviews, ingested
// once with a cursor, answered with the owner's reply (`PUT …/reviews/{r}/reply`), with the simulator's faults.
import { inboxPlatformSuite } from './helpers/inbox-platform.ts';

inboxPlatformSuite({
  platform: 'googlebusiness',
  kind: 'review',
  refused: 'comment',
  stream: 'reviews',
  // Reviews are on the location itself (the connection's account id): nothing to make first.
  prepare: async ({ accountId }) => ({ account: accountId }),
});
