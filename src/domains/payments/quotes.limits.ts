import type { Ctx } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { assertAccountsCanMove } from '../ledger/index.js';
import { volumeClaimOf, withinDailyVolume, type VolumeClaim } from '../limits/index.js';

export { withinDailyVolume };

interface MovingRow {
  sourceAccountId: string | null;
  destinationAccountId: string | null;
  sendingCurrency: string;
  receivingCurrency: string;
}

/**
 * The pre-movement step of every execution (issue 25, hook:25b): an internal account that is not ACTIVE neither sends
 * nor receives (400 INVALID_INPUT naming it). Returns the execution's daily-volume claim for withinDailyVolume. Inside a
 * transaction, pass it (`tx`): the read then uses the transaction's connection.
 */
export async function beforeMovement(ctx: Ctx, row: MovingRow & ({ totalSendingAmount: bigint } | { sentAmount: bigint }), tx?: TenantTx): Promise<VolumeClaim> {
  const sides = [
    { accountId: row.sourceAccountId, field: 'source.accountId' },
    { accountId: row.destinationAccountId, field: 'destination.accountId' },
  ];
  await (tx ? assertAccountsCanMove(ctx, sides, tx) : assertAccountsCanMove(ctx, sides));
  const amount = 'totalSendingAmount' in row ? row.totalSendingAmount : row.sentAmount;
  return volumeClaimOf({ sendingCurrency: row.sendingCurrency, receivingCurrency: row.receivingCurrency, totalSendingAmount: amount });
}

/** POST /quotes counts towards the daily volume only with `immediatelyExecute` (REF: the 429 there needs it). */
export const immediateVolume = (body: { immediatelyExecute?: boolean | null }, q: { sendingCurrency: string; receivingCurrency: string; totalSendingAmount: bigint }): VolumeClaim | null =>
  body.immediatelyExecute ? volumeClaimOf(q) : null;
