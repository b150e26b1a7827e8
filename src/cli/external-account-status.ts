import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig } from '../config.js';
import type { AppDeps } from '../deps.js';
import { createPrisma } from '../platform/db.js';
import { systemClock } from '../platform/clock.js';
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
  const config = loadConfig();
  const prisma = createPrisma(config.DATABASE_URL, 2);
  try {
    // A status change needs only the database, the clock and the config; no queue or Redis is touched here.
    const deps = { config, prisma, clock: systemClock, logger: pino({ level: 'warn' }) } as unknown as AppDeps;
    const account = await operatorTransition(deps, values.id, event);
    console.log(`${account.id}: ${account.status}`);
  } finally {
    await prisma.$disconnect();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
