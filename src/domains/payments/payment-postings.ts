import type { Transaction } from '../../generated/prisma/client.js';
import type { Posting } from '../ledger/index.js';

/**
 * Money effects of a payment's life, each a balanced journal with a key derived from the
 * transaction id, so a job that runs twice posts once:
 *   hold     (execute)    sender AVAILABLE −S, sender HELD +S
 *   settle   (COMPLETED)  sender HELD −S; platform fee to the platform's account; service fee to
 *                         SERVICE_FEES; the net to the destination (rail clearing or an internal
 *                         account), through FX when currencies differ
 *   release  (refund of a payment that never left)   sender HELD −S, sender AVAILABLE +S
 *   return   (refund after a bank return)            the settle journal reversed
 */
export function holdPostings(t: Transaction): Posting[] {
  return [
    { account: t.sourceAccountId, bucket: 'AVAILABLE', currency: t.sendingCurrency, amount: -t.sentAmount },
    { account: t.sourceAccountId, bucket: 'HELD', currency: t.sendingCurrency, amount: t.sentAmount },
  ];
}
