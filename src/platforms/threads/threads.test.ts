// The threads adapter against its simulator (the shared contract; platform specifics below).
import { adapterContract } from '../../../test/helpers/adapter-contract.ts';

adapterContract('threads');
