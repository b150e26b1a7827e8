import type { Ctx } from '../../deps.js';
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
 * nor receives (400 INVALID_INPUT naming it). Returns the execution's daily-volume claim for withinDailyVolume.
 */
export async function beforeMovement(ctx: Ctx, row: MovingRow & ({ totalSendingAmount: bigint } | { sentAmount: bigint })): Promise<VolumeClaim> {
  await assertAccountsCanMove(ctx, [
    { accountId: row.sourceAccountId, field: 'source.accountId' },
    { accountId: row.destinationAccountId, field: 'destination.accountId' },
  ]);
  const amount = 'totalSendingAmount' in row ? row.totalSendingAmount : row.sentAmount;
  return volumeClaimOf({ sendingCurrency: row.sendingCurrency, receivingCurrency: row.receivingCurrency, totalSendingAmount: amount });
}

/** POST /quotes counts towards the daily volume only with `immediatelyExecute` (REF: the 429 there needs it). */
export const immediateVolume = (body: { immediatelyExecute?: boolean | null }, q: { sendingCurrency: string; receivingCurrency: string; totalSendingAmount: bigint }): VolumeClaim | null =>
  body.immediatelyExecute ? volumeClaimOf(q) : null;
