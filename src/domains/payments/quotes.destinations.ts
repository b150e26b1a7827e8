import type { Ctx } from '../../deps.js';
import { BadRequestError, NotFoundError, invariant } from '../../platform/errors.js';
import { visibleToCaller } from '../../platform/agent-scope.js';
import type { InternalAccount } from '../../generated/prisma/client.js';
import type { Pricing } from '../fees/index.js';
import type { CreateQuoteBody } from './quotes.schemas.js';

/** Where the money goes, resolved from the request's destination. */
export interface ResolvedDestination {
  /** UMA: paid to a counterparty's invoice over the LIGHTNING rail (src/domains/uma). */
  kind: 'EXTERNAL' | 'INTERNAL' | 'UMA';
  accountId: string | null;
  currency: string;
  rail: string | null;
  identifierLast3: string | null;
  accountType: string | null;
  customerId: string | null;
  /** The destination as the quote and transaction show it. */
  wire: Record<string, unknown>;
  uma?: { lookupId: string; receiverUmaAddress: string; senderUmaAddress: string; option: UmaCurrencyLimits; counterparty: Record<string, unknown> };
}

/** What the receiver takes in one currency (minor units, as strings: JSON has no bigint), from its UMA lookup. */
export interface UmaCurrencyLimits {
  code: string;
  min: string;
  max: string;
}

/** What the quote keeps of the counterparty's pay-request answer (quotes.uma_payment). */
export interface StoredUmaPayment {
  receiverUmaAddress: string;
  senderUmaAddress: string;
  invoice: string;
  amountMsats: string;
  multiplier: number;
  receiverFeeMsats: string;
  termsExpireAt: string;
  /** Set when the receiver is one of this platform's customers: settled internally, as an incoming payment. */
  localCustomerId?: string;
}

/**
 * What a quote to a UMA address (spec flow 2) needs of src/domains/uma: its receiver lookups and the
 * counterparty's pay request. uma sits above payments (its incoming payments call this domain), so it
 * implements this port and the wiring (src/modules.ts) binds it once per process.
 */
export interface UmaDestinations {
  /**
   * destination UMA_ADDRESS: where the money goes. Errors: 400 INVALID_INPUT, INVALID_UMA_ADDRESS, INVALID_CURRENCY,
   * MISSING_MANDATORY_USER_INFO; 404 LOOKUP_REQUEST_NOT_FOUND, UMA_NOT_FOUND.
   */
  resolve(ctx: Ctx, body: CreateQuoteBody, source: InternalAccount): Promise<ResolvedDestination>;
  /** The pay request for the exact receiving amount, kept with the quote. Errors: the counterparty codes (B§9.1). */
  requestPayment(ctx: Ctx, quoteId: string, dest: ResolvedDestination, amount: bigint, senderCustomerInfo: Record<string, unknown> | undefined): Promise<StoredUmaPayment>;
}

let umaDestinations: UmaDestinations | undefined;

/** Called once by the wiring (src/modules.ts). */
export function bindUmaDestinations(port: UmaDestinations): void {
  umaDestinations = port;
}

function uma(): UmaDestinations {
  invariant(umaDestinations, 'No UMA destinations are bound (src/modules.ts binds them).');
  return umaDestinations;
}

export function resolveUmaDestination(ctx: Ctx, body: CreateQuoteBody, source: InternalAccount): Promise<ResolvedDestination> {
  return uma().resolve(ctx, body, source);
}

export function requestUmaPayment(ctx: Ctx, quoteId: string, dest: ResolvedDestination, amount: bigint, senderCustomerInfo: Record<string, unknown> | undefined): Promise<StoredUmaPayment> {
  return uma().requestPayment(ctx, quoteId, dest, amount, senderCustomerInfo);
}

/** The lookup's limits on what the receiver gets. Errors: 400 AMOUNT_OUT_OF_RANGE. */
export function checkUmaLimits(dest: ResolvedDestination, p: Pricing): void {
  if (!dest.uma) return;
  const { option } = dest.uma;
  if (p.totalReceivingAmount < BigInt(option.min) || p.totalReceivingAmount > BigInt(option.max)) {
    throw new BadRequestError('AMOUNT_OUT_OF_RANGE', `The receiver takes ${option.min} to ${option.max} ${option.code} (minor units); this quote delivers ${p.totalReceivingAmount}.`, {
      minAmount: Number(option.min),
      maxAmount: Number(option.max),
      currency: option.code,
    });
  }
}

/** An agent sees only its customer's accounts: another customer's is "not found". */
export function assertDestinationVisible(ctx: Ctx, customerId: string | null): void {
  if (!visibleToCaller(ctx, customerId)) throw new NotFoundError('NOT_FOUND', 'Destination account not found.');
}
