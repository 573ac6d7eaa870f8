// The x adapter against its simulator (the shared contract; platform specifics below when any).
import { adapterContract } from '../../../test/helpers/adapter-contract.ts';
import { metricsContract } from '../../../test/helpers/metrics-contract.ts';

adapterContract('x');
// X's tokens live 2 hours: the second reading comes 50 minutes later, within one token.
metricsContract('x', {
  gives: ['impressions', 'likes', 'comments', 'shares', 'quotes', 'saves', 'clicks'],
  operation: 'read_post',
});
