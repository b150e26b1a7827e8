/**
 * `paymentRail` on the wire (issue 13): REF's PaymentRail enum (also decisions Part B §3). The
 * server pays some destinations on rails REF does not name — a UMA payment over LIGHTNING, a wallet
 * on its chain (BASE, SOLANA, TRON, …); REF leaves `paymentRail` out when "no external rail is used
 * (e.g. instant or intra-network transfers, or non-direct-destination transactions)", and so does
 * the server for those. The rail stays recorded (it drives the payout). Pure; no I/O.
 */
export const REF_PAYMENT_RAILS = [
  'ACH', 'ACH_COLOMBIA', 'BANK_TRANSFER', 'BRE_B', 'CIPS', 'FAST', 'FASTER_PAYMENTS', 'FEDNOW', 'INSTAPAY', 'MOBILE_MONEY', 'NEFT',
  'PAYNOW', 'PESONET', 'PIX', 'RTGS', 'RTP', 'SEPA', 'SEPA_INSTANT', 'SPEI', 'SWIFT', 'UNIONPAY', 'UPI', 'WIRE',
] as const;

const REF_RAILS: ReadonlySet<string> = new Set(REF_PAYMENT_RAILS);

/** The rail as served: REF's value, or nothing. */
export function wirePaymentRail(rail: string | null | undefined): string | undefined {
  return rail && REF_RAILS.has(rail) ? rail : undefined;
}

/** A stored quote or transaction destination as served: a `paymentRail` REF does not name is left out. */
export function wireDestination(destination: unknown): unknown {
  if (!destination || typeof destination !== 'object' || Array.isArray(destination)) return destination;
  const d = destination as Record<string, unknown>;
  if (!('paymentRail' in d) || wirePaymentRail(d.paymentRail as string | null) !== undefined) return destination;
  const { paymentRail: _dropped, ...rest } = d;
  return rest;
}
