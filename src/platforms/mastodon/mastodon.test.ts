// The mastodon adapter against its simulator (the shared contract; platform specifics below when any).
import { adapterContract } from '../../../test/helpers/adapter-contract.ts';
import { metricsContract } from '../../../test/helpers/metrics-contract.ts';

adapterContract('mastodon');
// A small account's post can show no interaction at all in its first hour; six hours on, every post has some
// (Mastodon tokens do not expire).
metricsContract('mastodon', {
  gives: ['likes', 'comments', 'shares', 'quotes'],
  operation: 'lookup',
  laterMs: 6 * 3_600_000,
});
