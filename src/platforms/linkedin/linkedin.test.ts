// The LinkedIn adapter against its simulator over real HTTP: the shared contract, then LinkedIn's own behaviour.
import { adapterContract } from '../../../test/helpers/adapter-contract.ts';

adapterContract('linkedin');
