import { Decimal } from 'decimal.js';
import { defineLifecycle, type TransitionTable } from '../../platform/state-machine.js';
import { currencyOf } from '../../platform/currencies.js';
import type { CardMessageKind } from '../../adapters/card-issuer/port.js';

/**
 * A card transaction (REF CardTransaction, issue 27): AUTHORIZED → PARTIALLY_SETTLED → SETTLED →
 * REFUNDED, or EXCEPTION when the network was paid but the funding source's pull failed. REF has no
 * status for a refused authorization nor for one that expired uncleared; the spec wins where REF is
 * silent (ref-current §1.3 "Gaps in REF itself"): DECLINED (with `declineReason`) and EXPIRED.
 */
export const CARD_TRANSACTION_STATUSES = ['DECLINED', 'AUTHORIZED', 'PARTIALLY_SETTLED', 'SETTLED', 'REFUNDED', 'EXPIRED', 'EXCEPTION'] as const;
export type CardTransactionStatus = (typeof CARD_TRANSACTION_STATUSES)[number];

export const cardTransactionTransitions = {
  partiallySettle: { from: ['AUTHORIZED'], to: 'PARTIALLY_SETTLED' },
  settle: { from: ['AUTHORIZED', 'PARTIALLY_SETTLED'], to: 'SETTLED' },
  refund: { from: ['PARTIALLY_SETTLED', 'SETTLED'], to: 'REFUNDED' },
  returnReversed: { from: ['REFUNDED'], to: 'SETTLED' },
  expire: { from: ['AUTHORIZED'], to: 'EXPIRED' },
  pullFailed: { from: ['AUTHORIZED', 'PARTIALLY_SETTLED', 'SETTLED', 'REFUNDED'], to: 'EXCEPTION' },
} as const satisfies TransitionTable<CardTransactionStatus>;
export type CardTransactionEvent = keyof typeof cardTransactionTransitions;

export const cardTransactionLifecycle = defineLifecycle({
  name: 'card_transaction',
  label: 'The card transaction',
  statuses: CARD_TRANSACTION_STATUSES,
  transitions: cardTransactionTransitions,
  // REF: "Exceptions are not rolled back automatically" — an operator resolves them.
  terminal: ['DECLINED', 'EXPIRED', 'EXCEPTION'],
});

/** The webhook a status announces (REF `card-transaction` events); EXPIRED and DECLINED have none in REF. */
export const CARD_TRANSACTION_EVENT: Partial<Record<CardTransactionStatus, string>> = {
  AUTHORIZED: 'CARD_TRANSACTION.AUTHORIZED',
  PARTIALLY_SETTLED: 'CARD_TRANSACTION.PARTIALLY_SETTLED',
  SETTLED: 'CARD_TRANSACTION.SETTLED',
  REFUNDED: 'CARD_TRANSACTION.REFUNDED',
  EXCEPTION: 'CARD_TRANSACTION.EXCEPTION',
};

/** Decline reasons (REF names INSUFFICIENT_FUNDS and CARD_PAUSED; the others fill its gaps). */
export type DeclineReason =
  | 'INSUFFICIENT_FUNDS' | 'CARD_PAUSED' | 'CARD_NOT_ACTIVE' | 'CARDHOLDER_KYC_NOT_APPROVED'
  | 'SPEND_LIMIT_EXCEEDED' | 'PLATFORM_LIMIT_EXCEEDED' | 'FUNDING_SOURCE_UNAVAILABLE' | 'CURRENCY_NOT_SUPPORTED';

export const isCredit = (kind: CardMessageKind) => kind === 'CREDIT_AUTHORIZATION' || kind === 'FINANCIAL_CREDIT_AUTHORIZATION';
/** Single-message ("financial") authorizations settle at once: there is no clearing to wait for. */
export const isFinancial = (kind: CardMessageKind) => kind === 'FINANCIAL_AUTHORIZATION' || kind === 'FINANCIAL_CREDIT_AUTHORIZATION';

/** REF's sandbox merchant magic values (last three characters of `merchant.descriptor`). */
export type MerchantMagic = 'NONE' | 'INSUFFICIENT_FUNDS' | 'PAUSED' | 'DELAYED_PULL' | 'PULL_FAILS';
export function merchantMagic(descriptor: string, sandbox: boolean): MerchantMagic {
  if (!sandbox) return 'NONE';
  switch (descriptor.slice(-3)) {
    case '002': return 'INSUFFICIENT_FUNDS';
    case '003': return 'PAUSED';
    case '005': return 'DELAYED_PULL';
    case '006': return 'PULL_FAILS';
    default: return 'NONE';
  }
}

export interface DecisionInput {
  cardState: string;
  cardholderStatus: string;
  account: { status: string } | null;
  /** The amount in the funding source's currency (converted at the locked rate). */
  fundingAmount: bigint;
  maxSpendPerTransaction: bigint | null;
  /** The platform's per-transaction maximum in the funding currency (platform currency config). */
  platformMaxAmount: bigint | null;
  magic: MerchantMagic;
  credit: boolean;
}

/**
 * The authorization decision, in REF's order of checks: the card (a FROZEN card is CARD_PAUSED), the
 * cardholder's KYC, the funding source, the card's per-transaction cap (an amount equal to it passes),
 * the platform's limit, then the sandbox's insufficient-funds merchant. A credit needs only a live card and
 * source. The balance itself is not an input: the ledger's guard in the writing statement checks it on
 * the locked row (an approval it cannot cover becomes INSUFFICIENT_FUNDS there, in the same round trip).
 * Pure.
 */
export function decideAuthorization(i: DecisionInput): DeclineReason | null {
  if (i.cardState === 'FROZEN' || i.magic === 'PAUSED') return 'CARD_PAUSED';
  if (i.cardState !== 'ACTIVE') return 'CARD_NOT_ACTIVE';
  if (i.cardholderStatus !== 'APPROVED') return 'CARDHOLDER_KYC_NOT_APPROVED';
  if (!i.account || i.account.status !== 'ACTIVE') return 'FUNDING_SOURCE_UNAVAILABLE';
  if (i.credit) return null;
  if (i.maxSpendPerTransaction !== null && i.fundingAmount > i.maxSpendPerTransaction) return 'SPEND_LIMIT_EXCEEDED';
  if (i.platformMaxAmount !== null && i.fundingAmount > i.platformMaxAmount) return 'PLATFORM_LIMIT_EXCEEDED';
  if (i.magic === 'INSUFFICIENT_FUNDS') return 'INSUFFICIENT_FUNDS';
  return null;
}

/**
 * Funding minor units per transaction minor unit, from a rate of funding major units per transaction
 * major unit (A19's direction: sending per receiving). Locked at authorization, stored as a decimal.
 */
export function minorRate(rate: string, transactionCurrency: string, fundingCurrency: string): string {
  const shift = currencyOf(fundingCurrency).decimals - currencyOf(transactionCurrency).decimals;
  return new Decimal(rate).times(new Decimal(10).pow(shift)).toString();
}

/** A transaction amount in the funding currency, rounded up: the cardholder's side never falls short. */
export function toFunding(amount: bigint, rate: string): bigint {
  if (rate === '1') return amount;
  return BigInt(new Decimal(amount.toString()).times(rate).ceil().toFixed(0));
}

/**
 * What a piece of a transaction (a clearing, a return) is in the funding currency: the converted running
 * total after it minus the converted running total before it, at the locked rate. Pieces then add up to
 * exactly the conversion of their sum (a full return gives back exactly what the clearings took), however
 * the network splits them; in one currency it is the piece itself.
 */
export function fundingPiece(before: bigint, after: bigint, rate: string): bigint {
  if (rate === '1') return after - before;
  return toFunding(after, rate) - toFunding(before, rate);
}
