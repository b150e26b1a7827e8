import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { createPrisma } from '../platform/db.js';
import { platformOption, runCommand } from './operator.js';
import { platformLabel } from '../platform/ids.js';

/**
 * npm run collection:held [-- --platform Platform:<uuid>] [--limit 100]
 * The operator's list of credits on pay-in coordinates that were held, not applied (issue 26, 26a): a FROZEN or
 * CLOSED account, another currency, or coordinates nobody has (UNMATCHED: no platform sees these). Oldest first,
 * one JSON line each; the amount in minor units. Read-only.
 */
async function main() {
  const { values } = parseArgs({ options: { platform: { type: 'string' }, limit: { type: 'string', default: '100' } } });
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new Error('--limit must be an integer from 1 to 10000');
  const config = loadConfig();
  const prisma = createPrisma(config.DATABASE_URL, 1);
  try {
    const rows = await prisma.collectionCredit.findMany({ where: { status: 'HELD', ...(values.platform ? { platformId: platformOption(values.platform, true) } : {}) }, orderBy: { createdAt: 'asc' }, take: limit });
    for (const r of rows) {
      console.log(JSON.stringify({ id: r.id, adapter: r.adapterId, providerCreditId: r.providerCreditId, heldReason: r.heldReason, platformId: r.platformId && platformLabel(r.platformId), internalAccountId: r.internalAccountId, rail: r.rail, reference: r.reference, amount: r.amount.toString(), currency: r.currency, receivedAt: r.receivedAt.toISOString() }));
    }
    if (rows.length === 0) console.log('no held credits');
  } finally {
    await prisma.$disconnect();
  }
}

runCommand(main);
