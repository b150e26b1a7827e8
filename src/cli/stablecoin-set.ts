import { parseArgs } from 'node:util';
import { platformOption, runCommand, withOperatorDeps } from './operator.js';
import { platformLabel } from '../platform/ids.js';
import { operatorSetStablecoinEnablement } from '../domains/stablecoin/stablecoin.service.js';

/**
 * npm run stablecoin:set -- --platform Platform:<uuid> --status ENABLING|ENABLED|DISABLED
 * The operator's moves of the stablecoin enablement status (decision A16): platforms can only request it.
 */
const TARGETS = ['ENABLING', 'ENABLED', 'DISABLED'] as const;

async function main() {
  const { values } = parseArgs({ options: { platform: { type: 'string' }, status: { type: 'string' } } });
  const status = TARGETS.find((t) => t === values.status);
  if (!status) throw new Error(`--status must be one of: ${TARGETS.join(', ')}`);
  const platform = platformOption(values.platform, true);
  const result = await withOperatorDeps({ bus: true }, (deps) => operatorSetStablecoinEnablement(deps, platform, status));
  console.log(`${platformLabel(platform)}: ${result.status}`);
}

runCommand(main);
