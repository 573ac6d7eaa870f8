// The mastodon adapter against its simulator (the shared contract; platform specifics below when any).
import { adapterContract } from '../../../test/helpers/adapter-contract.ts';
import { metricsContract } from '../../../test/helpers/metrics-contract.ts';

adapterContract('mastodon');
metricsContract('mastodon', { gives: ['likes', 'comments', 'shares', 'quotes'], operation: 'lookup' });
