import { ADAPTER_KINDS, type AdapterKind } from '../../src/adapters/common.js';
import { describeModuleContract } from './run-module.js';

/**
 * `npm run adapter:test -- <kind> <module>` runs this file with ADAPTER_TEST_KIND and
 * ADAPTER_TEST_MODULE set. Under plain `npm test` it checks the example third-party adapter
 * (examples/my-rail-adapter), so CI keeps the example passing its contract.
 */
const kind = (process.env.ADAPTER_TEST_KIND ?? 'rail') as AdapterKind;
if (!ADAPTER_KINDS.includes(kind)) throw new Error(`unknown adapter kind ${kind} (one of ${ADAPTER_KINDS.join(', ')})`);
await describeModuleContract(kind, process.env.ADAPTER_TEST_MODULE ?? './examples/my-rail-adapter/index.js');
