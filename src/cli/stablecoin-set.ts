import { parseArgs } from 'node:util';
import { runCommand, withOperatorDeps } from './operator.js';
import { operatorSetStablecoinEnablement } from '../domains/stablecoin/stablecoin.service.js';

/**
 * npm run stablecoin:set -- --platform Platform:<uuid> --status ENABLING|ENABLED|DISABLED
 * The operator's moves of the stablecoin enablement status (decision A16): platforms can only request it.
 */
const TARGETS = ['ENABLING', 'ENABLED', 'DISABLED'] as const;

async function main() {
  const { values } = parseArgs({ options: { platform: { type: 'string' }, status: { type: 'string' } } });
  if (!values.platform) throw new Error('--platform is required');
  const status = TARGETS.find((t) => t === values.status);
  if (!status) throw new Error(`--status must be one of: ${TARGETS.join(', ')}`);
  const platform = values.platform;
  const result = await withOperatorDeps({ bus: true }, (deps) => operatorSetStablecoinEnablement(deps, platform, status));
  console.log(`${platform}: ${result.status}`);
}

runCommand(main);
