import type { Transaction } from '../../generated/prisma/client.js';
import { systemAccount, type Posting } from '../ledger/index.js';

/**
 * The posting rules of a payment's life: the one definition of which accounts each operation debits and
 * credits, pure functions of the transaction (and of the accounts read for it, `PostingAccounts`). Each
 * is a balanced journal whose key is derived from the transaction id (`journalFor`), so a job that runs
 * twice posts once; money-path.repo.ts writes them (journalsCtes) in the operation's one statement.
 *   hold     (execute)    sender AVAILABLE −S, sender HELD +S
 *   settle   (COMPLETED)  sender HELD −S; platform fee to the platform's account; service fee to
 *                         SERVICE_FEES; the net to the destination (rail clearing or an internal
 *                         account), through FX when currencies differ
 *   release  (refund of a payment that never left)   sender HELD −S, sender AVAILABLE +S
 *   return   (refund after a bank return)            the settle journal reversed
 *   incoming refund (an incoming payment's payout failed or came back): to the customer's own account
 */
export function holdPostings(t: Transaction): Posting[] {
  return [
    { account: t.sourceAccountId, bucket: 'AVAILABLE', currency: t.sendingCurrency, amount: -t.sentAmount },
    { account: t.sourceAccountId, bucket: 'HELD', currency: t.sendingCurrency, amount: t.sentAmount },
  ];
}

/** The accounts besides the transaction's own that a posting rule names, read before the write. */
export interface PostingAccounts {
  /** The platform's internal account in the sending currency (null: none; a fee then cannot be posted). */
  platformFeeAccount: { id: string; availableBalance: bigint } | null;
  /** For an incoming payment's refund: the customer's internal account in the receiving currency. */
  fallbackAccountId?: string | null;
}

/** The net delivered to the destination (`sign` 1n) or taken back from it (−1n). */
function deliveryPostings(t: Transaction, sign: 1n | -1n): Posting[] {
  const net = t.sentAmount - t.fees;
  const target =
    t.destinationKind === 'INTERNAL'
      ? { account: t.destinationAccountId!, bucket: 'AVAILABLE' as const }
      : t.destinationKind === 'UMA'
        ? // Paid to a UMA counterparty's invoice: what it owes the receiver clears through UMA_CLEARING.
          { account: systemAccount('UMA_CLEARING', t.receivingCurrency), bucket: 'SYSTEM' as const }
        : { account: systemAccount('RAIL_CLEARING', t.receivingCurrency, t.paymentRail ?? 'NONE'), bucket: 'SYSTEM' as const };
  // Written out, not `{ ...target, … }`: keys added after a spread cost Node 20's V8 a new hidden class each (docs/decisions.md, 24m).
  if (t.sendingCurrency === t.receivingCurrency) return [{ account: target.account, bucket: target.bucket, currency: t.receivingCurrency, amount: sign * net }];
  return [
    { account: systemAccount('FX', t.sendingCurrency), bucket: 'SYSTEM', currency: t.sendingCurrency, amount: sign * net },
    { account: systemAccount('FX', t.receivingCurrency), bucket: 'SYSTEM', currency: t.receivingCurrency, amount: -sign * t.receivedAmount },
    { account: target.account, bucket: target.bucket, currency: t.receivingCurrency, amount: sign * t.receivedAmount },
  ];
}

export function settlePostings(t: Transaction, accounts: PostingAccounts): Posting[] {
  // An incoming payment paid out to an external account comes from a system account (UMA_CLEARING), held nowhere.
  const fromSystem = t.sourceAccountId.startsWith('system:');
  const out: Posting[] = [{ account: t.sourceAccountId, bucket: fromSystem ? 'SYSTEM' : 'HELD', currency: t.sendingCurrency, amount: -t.sentAmount }];
  if (t.platformFees > 0n) {
    // Checked at quote creation; the account cannot be deleted, so this is a programmer error.
    if (!accounts.platformFeeAccount) throw new Error(`platform has no ${t.sendingCurrency} account for fee of ${t.id}`);
    out.push({ account: accounts.platformFeeAccount.id, bucket: 'AVAILABLE', currency: t.sendingCurrency, amount: t.platformFees });
  }
  if (t.serviceFees > 0n) out.push({ account: systemAccount('SERVICE_FEES', t.sendingCurrency), bucket: 'SYSTEM', currency: t.sendingCurrency, amount: t.serviceFees });
  return [...out, ...deliveryPostings(t, 1n)];
}

/**
 * The settle journal reversed. The platform's fee comes back out of its account as far as its
 * available balance allows; a shortfall is booked to FEE_REVERSAL_RECEIVABLE (owed by the
 * platform) so the customer's refund never waits on the platform's balance.
 */
export function returnPostings(t: Transaction, accounts: PostingAccounts): Posting[] {
  const out: Posting[] = [{ account: t.sourceAccountId, bucket: 'AVAILABLE', currency: t.sendingCurrency, amount: t.sentAmount }];
  const fee = accounts.platformFeeAccount;
  if (t.platformFees > 0n && fee) {
    const fromAccount = fee.availableBalance < t.platformFees ? fee.availableBalance : t.platformFees;
    if (fromAccount > 0n) out.push({ account: fee.id, bucket: 'AVAILABLE', currency: t.sendingCurrency, amount: -fromAccount });
    if (t.platformFees - fromAccount > 0n) out.push({ account: systemAccount('FEE_REVERSAL_RECEIVABLE', t.sendingCurrency), bucket: 'SYSTEM', currency: t.sendingCurrency, amount: -(t.platformFees - fromAccount) });
  }
  if (t.serviceFees > 0n) out.push({ account: systemAccount('SERVICE_FEES', t.sendingCurrency), bucket: 'SYSTEM', currency: t.sendingCurrency, amount: -t.serviceFees });
  return [...out, ...deliveryPostings(t, -1n)];
}

export function releasePostings(t: Transaction): Posting[] {
  return holdPostings(t).map((p) => ({ ...p, amount: -p.amount }));
}

/**
 * An incoming payment whose payout to the customer's external account failed (or came back): the
 * money goes to the customer's internal account in that currency instead, never lost.
 */
function incomingRefundPostings(t: Transaction, accounts: PostingAccounts, settled: boolean): Posting[] {
  if (!accounts.fallbackAccountId) throw new Error(`customer of incoming payment ${t.id} has no ${t.receivingCurrency} account`);
  // Not settled: still in the source (UMA_CLEARING). Settled: the delivery is reversed (the source's
  // debit and the fallback's credit then cancel out on the source).
  const from = settled ? deliveryPostings(t, -1n) : [{ account: t.sourceAccountId, bucket: 'SYSTEM' as const, currency: t.sendingCurrency, amount: -t.sentAmount }];
  return [...from, { account: accounts.fallbackAccountId, bucket: 'AVAILABLE', currency: t.receivingCurrency, amount: t.receivedAmount }];
}

/** A journal of a payment's life: its key (unique per platform), kind and legs. */
export interface PaymentJournal {
  key: string;
  kind: string;
  referenceId: string;
  postings: Posting[];
}

/**
 * The journal a completed refund posts: a release while the money never left (still held), a return
 * once the payment had settled; an incoming payment's money goes to the customer's own account.
 */
export function refundJournal(t: Transaction, accounts: PostingAccounts): PaymentJournal {
  const settled = t.settledAt !== null;
  const postings = t.type === 'INCOMING' ? incomingRefundPostings(t, accounts, settled) : settled ? returnPostings(t, accounts) : releasePostings(t);
  return { key: `${t.id}:${settled ? 'return' : 'release'}`, kind: settled ? 'PAYMENT_RETURN' : 'PAYMENT_RELEASE', referenceId: t.id, postings };
}

export function holdJournal(t: Transaction): PaymentJournal {
  return { key: `${t.id}:hold`, kind: 'PAYMENT_HOLD', referenceId: t.id, postings: holdPostings(t) };
}

export function settleJournal(t: Transaction, postings: Posting[]): PaymentJournal {
  return { key: `${t.id}:settle`, kind: 'PAYMENT_SETTLE', referenceId: t.id, postings };
}
