// The bluesky adapter against its simulator (the shared contract; platform specifics below when any).
import { adapterContract } from '../../../test/helpers/adapter-contract.ts';
import { metricsContract } from '../../../test/helpers/metrics-contract.ts';

adapterContract('bluesky');
// Bluesky gives no views, and a small post can show no interaction in its first hour; 110 minutes on, every
// post has some, and the two-hour access token is still good.
metricsContract('bluesky', {
  gives: ['likes', 'comments', 'shares', 'quotes'],
  operation: 'read_post',
  laterMs: 110 * 60_000,
});
