import type { Transaction } from '../../generated/prisma/client.js';

/**
 * REF's reads on a transaction that the spec does not name (issue 25; REF `OutgoingTransaction`,
 * `ReconciliationInstructions`, `OnChainTransaction`). Pure: derived from the row, whose
 * `railSelectionMode` and `settlementTimelineSeconds` are fixed when the payment is created
 * (`railChoice`), so a read never depends on the adapter configuration of the process answering.
 */

/** REF `RailSelectionMode`. */
export const RAIL_SELECTION_MODES = ['AUTO', 'MANUAL'] as const;
export type RailSelectionMode = (typeof RAIL_SELECTION_MODES)[number];

/**
 * Rails that settle at the beneficiary as they are paid: REF gives them no `expectedSettlementAt`
 * ("Null for instant rails (settlement is immediate)"). The timeline in seconds is still given.
 */
export const INSTANT_RAILS: ReadonlySet<string> = new Set([
  'RTP', 'FEDNOW', 'INSTAPAY', 'PIX', 'UPI', 'FASTER_PAYMENTS', 'SEPA_INSTANT', 'PAYNOW', 'FAST', 'LIGHTNING', 'SPARK', 'INTERNAL',
]);

/** REF `CryptoNetwork`: the chains a wallet leg settles on (a wallet payout's rail is its chain). */
export const CRYPTO_NETWORKS: ReadonlySet<string> = new Set(['BITCOIN', 'ETHEREUM', 'SOLANA', 'BASE', 'POLYGON', 'TRON', 'PLASMA', 'SPARK']);

/**
 * The columns a new outgoing payment gets from its rail: MANUAL when the platform named
 * `destination.paymentRail`, AUTO when the service chose it; the rail's expected time to settle as the
 * rail adapter declares it (`RailAdapter.expectedSettlementMs`). Nothing without an external rail.
 */
export function railChoice(
  rail: string | null | undefined,
  requestedRail: string | null | undefined,
  expectedSettlementMs: (rail: string) => number,
): { railSelectionMode: RailSelectionMode | null; settlementTimelineSeconds: number | null } {
  if (!rail) return { railSelectionMode: null, settlementTimelineSeconds: null };
  return { railSelectionMode: requestedRail ? 'MANUAL' : 'AUTO', settlementTimelineSeconds: Math.ceil(expectedSettlementMs(rail) / 1000) };
}

/** `expectedSettlementAt`: creation plus the timeline; none for instant rails or before the timeline is known. */
export function expectedSettlementAt(t: Pick<Transaction, 'paymentRail' | 'settlementTimelineSeconds' | 'createdAt'>): string | undefined {
  if (t.settlementTimelineSeconds === null || !t.paymentRail || INSTANT_RAILS.has(t.paymentRail)) return undefined;
  return new Date(t.createdAt.getTime() + t.settlementTimelineSeconds * 1000).toISOString();
}

/**
 * REF `reconciliationInstructions` (`minProperties: 1`, so left out when empty): the rail's reference
 * of the payout, which is what appears on the beneficiary's statement. A wallet leg's hash is on the
 * leg itself (`onChainTransaction`, REF #845), not here.
 */
export function reconciliationInstructions(t: Pick<Transaction, 'railReference' | 'paymentRail'>): { reference: string } | undefined {
  if (!t.railReference || (t.paymentRail && CRYPTO_NETWORKS.has(t.paymentRail))) return undefined;
  return { reference: t.railReference };
}

/**
 * The destination of a settled payout to a wallet, with REF's `onChainTransaction {transactionHash,
 * network}`: the chain rail's reference of a completed payout is the transfer's hash.
 */
export function withOnChainTransaction(destination: unknown, t: Pick<Transaction, 'paymentRail' | 'railReference' | 'status'>): unknown {
  if (!destination || typeof destination !== 'object' || Array.isArray(destination)) return destination;
  if (!t.paymentRail || !CRYPTO_NETWORKS.has(t.paymentRail) || !t.railReference || t.status !== 'COMPLETED') return destination;
  return { ...(destination as Record<string, unknown>), onChainTransaction: { transactionHash: t.railReference, network: t.paymentRail } };
}

/** REF's outgoing-only reads, as the resource adds them. */
export function outgoingRefReads(t: Transaction) {
  return {
    railSelectionMode: t.railSelectionMode ?? undefined,
    expectedSettlementAt: expectedSettlementAt(t),
    settlementTimelineSeconds: t.settlementTimelineSeconds ?? undefined,
  };
}
