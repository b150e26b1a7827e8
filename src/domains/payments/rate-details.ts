import { Decimal } from 'decimal.js';
import { currencyOf } from '../../platform/currencies.js';
import { invariant } from '../../platform/errors.js';
import { toWireNumber } from '../../platform/money.js';
import type { Pricing } from '../fees/index.js';

/**
 * REF's `rateDetails` (OutgoingRateDetails) on quotes and outgoing transactions (issue 13). REF
 * prices a payment in two legs: the sending amount less its fixed fee is turned into an
 * intermediate unit at `gridApiMultiplier` (variable fees included), which the counterparty turns
 * into the receiving currency at `counterpartyMultiplier` less its own fixed fee:
 *
 *   (totalSendingAmount − gridApiFixedFee) × gridApiMultiplier × counterpartyMultiplier − counterpartyFixedFee ≈ totalReceivingAmount
 *
 * Here (docs/decisions.md "Issue 13 — rate details"): the "grid API" fee is every fee the sender pays
 * — the platform's and the service's, fixed and variable; UMA payments go through millisatoshis
 * (counterpartyMultiplier = receiving minor units per msat, from the receiver's UMA multiplier);
 * other payments have no intermediate leg, so the intermediate unit is the receiving minor unit and
 * counterpartyMultiplier is 1. The sender pays no counterparty fee (a UMA receiver's fee is borne
 * by the service), so counterpartyFixedFee is 0. Pure; no I/O.
 */

/** The split as kept on a quote and its transaction (migration 20261125010000_rate_details). */
export interface FeeSplitColumns {
  platformFixedFee: bigint;
  platformVariableFeeBps: number;
  platformVariableFee: bigint;
  serviceFixedFee: bigint;
  serviceVariableFeeBps: number;
  serviceVariableFee: bigint;
  counterpartyFixedFee: bigint;
  /** Decimal string. */
  counterpartyMultiplier: string;
  /** Decimal string: intermediate units per sending minor unit, after variable fees. */
  sendingMultiplier: string;
}

/** The row as read back: every column null on rows priced before the split was kept. */
export type StoredFeeSplit = { [K in keyof FeeSplitColumns]: FeeSplitColumns[K] | null };

export interface OutgoingRateDetails {
  counterpartyMultiplier: number;
  counterpartyFixedFee: number;
  gridApiMultiplier: number;
  gridApiFixedFee: number;
  gridApiVariableFeeRate: number;
  gridApiVariableFeeAmount: number;
}

const D = Decimal.clone({ precision: 60 });
/** Multipliers are served as JSON numbers (doubles): 17 significant digits round-trip. */
const STORED_DIGITS = 20;
const BPS_DENOMINATOR = 10_000;

/**
 * The columns for a priced quote. `umaMultiplier`: millisatoshis per receiving minor unit, from the
 * UMA receiver's pay-request terms, for payments to a UMA address.
 */
export function feeSplitColumns(p: Pricing, sendingCurrency: string, receivingCurrency: string, umaMultiplier?: number): FeeSplitColumns {
  const s = p.split;
  invariant(s.base > 0n, 'a priced quote has a positive fee base');
  const net = s.base - s.platformVariable - s.serviceVariable;
  const ds = currencyOf(sendingCurrency).decimals;
  const dr = currencyOf(receivingCurrency).decimals;
  // Receiving minor units per sending minor unit at the quoted rate (sending major per receiving major, A19).
  const conversion = new D(10).pow(dr - ds).div(new D(p.exchangeRate));
  const viaMsats = umaMultiplier !== undefined;
  if (viaMsats) invariant(Number.isFinite(umaMultiplier) && umaMultiplier > 0, 'a UMA multiplier is positive');
  const msatsPerReceivingUnit = new D(viaMsats ? umaMultiplier : 1);
  const sending = new D(net.toString()).div(s.base.toString()).mul(conversion).mul(msatsPerReceivingUnit);
  return {
    platformFixedFee: s.platformFixed,
    platformVariableFeeBps: s.platformBps,
    platformVariableFee: s.platformVariable,
    serviceFixedFee: s.serviceFixed,
    serviceVariableFeeBps: s.serviceBps,
    serviceVariableFee: s.serviceVariable,
    counterpartyFixedFee: 0n,
    counterpartyMultiplier: new D(1).div(msatsPerReceivingUnit).toSignificantDigits(STORED_DIGITS).toFixed(),
    sendingMultiplier: sending.toSignificantDigits(STORED_DIGITS).toFixed(),
  };
}

function isWhole(row: StoredFeeSplit): row is FeeSplitColumns {
  return Object.values(row).every((v) => v !== null && v !== undefined);
}

/** REF's OutgoingRateDetails for a stored split; undefined for rows priced before it was kept. */
export function rateDetailsOf(stored: StoredFeeSplit): OutgoingRateDetails | undefined {
  // Rows carry other columns too: look at the split's only.
  const row = storedFeeSplit(stored);
  if (!isWhole(row)) return undefined;
  return {
    counterpartyMultiplier: Number(row.counterpartyMultiplier),
    counterpartyFixedFee: toWireNumber(row.counterpartyFixedFee),
    gridApiMultiplier: Number(row.sendingMultiplier),
    gridApiFixedFee: toWireNumber(row.platformFixedFee + row.serviceFixedFee),
    gridApiVariableFeeRate: (row.platformVariableFeeBps + row.serviceVariableFeeBps) / BPS_DENOMINATOR,
    gridApiVariableFeeAmount: toWireNumber(row.platformVariableFee + row.serviceVariableFee),
  };
}

/**
 * `rateDetails` as served: REF's field names, and the same values under the `svcApi…` names of
 * decisions Part B §3 (the design's rendering of REF's fields), so clients of either read it.
 */
export function rateDetailsResource(row: StoredFeeSplit) {
  const r = rateDetailsOf(row);
  if (!r) return undefined;
  // Written out rather than `{ ...r, … }`: the spread cost twenty times the rest on GET /transactions/{id}.
  return {
    counterpartyMultiplier: r.counterpartyMultiplier,
    counterpartyFixedFee: r.counterpartyFixedFee,
    gridApiMultiplier: r.gridApiMultiplier,
    gridApiFixedFee: r.gridApiFixedFee,
    gridApiVariableFeeRate: r.gridApiVariableFeeRate,
    gridApiVariableFeeAmount: r.gridApiVariableFeeAmount,
    svcApiMultiplier: r.gridApiMultiplier,
    svcApiFixedFee: r.gridApiFixedFee,
    svcApiVariableFeeRate: r.gridApiVariableFeeRate,
    svcApiVariableFeeAmount: r.gridApiVariableFeeAmount,
  };
}

/** The split columns of a quote or transaction row. */
export function storedFeeSplit(row: StoredFeeSplit): StoredFeeSplit {
  return {
    platformFixedFee: row.platformFixedFee,
    platformVariableFeeBps: row.platformVariableFeeBps,
    platformVariableFee: row.platformVariableFee,
    serviceFixedFee: row.serviceFixedFee,
    serviceVariableFeeBps: row.serviceVariableFeeBps,
    serviceVariableFee: row.serviceVariableFee,
    counterpartyFixedFee: row.counterpartyFixedFee,
    counterpartyMultiplier: row.counterpartyMultiplier,
    sendingMultiplier: row.sendingMultiplier,
  };
}
