import { parseArgs } from 'node:util';
import { runCommand, withOperatorDeps } from './operator.js';
import { operatorTransition } from '../domains/external-accounts/external-accounts.service.js';

/**
 * npm run external-account:status -- --id ExternalAccount:<uuid> --event deactivate|reactivate|review-approved
 * The operator's moves of decision A11 (INACTIVE is set by the operator; reviews are approved by the operator).
 * Emits EXTERNAL_ACCOUNT.STATUS_UPDATED like every status change; the worker delivers it.
 */
const EVENTS = { deactivate: 'deactivate', reactivate: 'reactivate', 'review-approved': 'reviewApproved' } as const;

async function main() {
  const { values } = parseArgs({ options: { id: { type: 'string' }, event: { type: 'string' } } });
  const event = EVENTS[values.event as keyof typeof EVENTS];
  if (!values.id) throw new Error('--id is required');
  if (!event) throw new Error(`--event must be one of: ${Object.keys(EVENTS).join(', ')}`);
  const id = values.id;
  // A status change needs only the database, the clock and the config; no queue or Redis is touched here.
  const account = await withOperatorDeps({ bus: false }, (deps) => operatorTransition(deps, id, event));
  console.log(`${account.id}: ${account.status}`);
}

runCommand(main);
