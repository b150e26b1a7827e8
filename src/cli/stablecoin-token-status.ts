import { parseArgs } from 'node:util';
import { platformOption, runCommand, withOperatorDeps } from './operator.js';
import { operatorSetTokenStatus } from '../domains/stablecoin/stablecoins.service.js';
import { GRID_OPERATIONS_EVENT_FOR, type GridOperationsTarget } from '../domains/stablecoin/issuance.model.js';

/**
 * npm run stablecoin:token-status -- --platform Platform:<uuid> --stablecoin Stablecoin:<uuid> --status PENDING_APPROVAL|ENABLING|ENABLED|DISABLED
 * The operator's moves of one registered token's `gridOperationsStatus` (REF; the per-token form of
 * npm run stablecoin:set). Moves outside the transition table are refused (INVALID_STATE_TRANSITION).
 */
const TARGETS = Object.keys(GRID_OPERATIONS_EVENT_FOR) as GridOperationsTarget[];

async function main() {
  const { values } = parseArgs({ options: { platform: { type: 'string' }, stablecoin: { type: 'string' }, status: { type: 'string' } } });
  if (!values.stablecoin) throw new Error('--stablecoin is required');
  const status = TARGETS.find((t) => t === values.status);
  if (!status) throw new Error(`--status must be one of: ${TARGETS.join(', ')}`);
  const platform = platformOption(values.platform, true);
  const { stablecoin } = values;
  // Only the database, the clock and the config: the move is one transition() on the token's row.
  const token = await withOperatorDeps({ bus: false }, (deps) => operatorSetTokenStatus(deps, platform, stablecoin, status));
  console.log(`${token.id}: ${token.gridOperationsStatus}${token.currency ? ` (currency ${token.currency})` : ''}`);
}

runCommand(main, (err) => `${(err as { code?: string }).code ? `${(err as { code?: string }).code}: ` : ''}${err.message}`);
