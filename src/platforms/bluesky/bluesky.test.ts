// The bluesky adapter against its simulator (the shared contract; platform specifics below when any).
import { adapterContract } from '../../../test/helpers/adapter-contract.ts';
import { metricsContract } from '../../../test/helpers/metrics-contract.ts';

adapterContract('bluesky');
metricsContract('bluesky', { gives: ['likes', 'comments', 'shares', 'quotes'], operation: 'read_post' });
