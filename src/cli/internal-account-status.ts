import { parseArgs } from 'node:util';
import { platformOption, runCommand, withOperatorDeps } from './operator.js';
import { operatorSetInternalAccountStatus } from '../domains/ledger/index.js';

/**
 * npm run internal-account:status -- --account InternalAccount:<uuid> --status FROZEN|ACTIVE|CLOSED|FAILED [--reason "…"] [--platform Platform:<uuid>]
 * The operator's freeze, unfreeze and close of an internal account (issue 25, REF InternalAccountStatus). FROZEN and
 * CLOSED accounts neither send nor receive; CLOSED needs an empty account. Emits INTERNAL_ACCOUNT.STATUS_UPDATED like
 * every status change; the worker delivers it. The reason is kept in the status history, never sent. --platform
 * (issue 29) reads the account by its key on one shard; without it the account is looked for across platforms.
 */
const TARGETS = ['ACTIVE', 'FROZEN', 'CLOSED', 'FAILED'] as const;

async function main() {
  const { values } = parseArgs({ options: { account: { type: 'string' }, status: { type: 'string' }, reason: { type: 'string' }, platform: { type: 'string' } } });
  const target = TARGETS.find((t) => t === values.status?.toUpperCase());
  if (!values.account) throw new Error('--account is required (an InternalAccount id)');
  if (!target) throw new Error(`--status must be one of: ${TARGETS.join(', ')}`);
  const id = values.account;
  const account = await withOperatorDeps({ bus: true }, (deps) => operatorSetInternalAccountStatus(deps, id, target, values.reason, platformOption(values.platform, false)));
  console.log(`${account.id}: ${account.status}`);
}

runCommand(main);
