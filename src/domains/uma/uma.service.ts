import type { Ctx } from '../../deps.js';
import { BadRequestError, DomainError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { isKnownCurrency, currencyOf } from '../../platform/currencies.js';
import { visibleToCaller } from '../../platform/agent-scope.js';
import type { UmaLookup } from '../../generated/prisma/client.js';
import { UmaCounterpartyError, type UmaCurrencyOption, type UmaReceiver } from '../../adapters/uma/port.js';
import { getExchangeRate } from '../fees/index.js';
import { normalizeUmaAddress, type PayerDataRequirement, type StoredUmaCurrency } from './uma.model.js';

/** The spec's error for a counterparty failure (codes and statuses of decisions B§9.1). */
export function umaError(err: UmaCounterpartyError): DomainError {
  return new DomainError(err.httpStatus, err.code, err.message);
}

const invalidAddress = (field: string) =>
  new BadRequestError('INVALID_UMA_ADDRESS', 'The UMA address is malformed; expected $user@domain.', { errors: [{ field, message: 'Must be an UMA address such as $alice@example.com.' }] });
const userNotFound = () => new NotFoundError('USER_NOT_FOUND', 'Customer not found.');

interface Sender {
  customerId: string;
  umaAddress: string;
  primaryCurrency: string;
}

async function resolveSender(ctx: Ctx, q: { customerId?: string; senderUmaAddress?: string }): Promise<Sender> {
  const customerId = ctx.agent ? (q.customerId ?? ctx.agent.customerId) : q.customerId;
  let customer;
  if (customerId) {
    customer = await ctx.db.customer.findFirst({ where: { id: customerId } });
  } else if (q.senderUmaAddress) {
    const address = normalizeUmaAddress(q.senderUmaAddress);
    if (!address) throw invalidAddress('senderUmaAddress');
    customer = await ctx.db.customer.findFirst({ where: { umaAddress: address } });
  } else {
    throw new ValidationError([{ field: 'customerId', message: 'customerId or senderUmaAddress is required.' }]);
  }
  if (!customer || customer.isDeleted || !visibleToCaller(ctx, customer.id)) throw userNotFound();
  return { customerId: customer.id, umaAddress: customer.umaAddress, primaryCurrency: customer.currencies[0] ?? 'USD' };
}

/**
 * In the sandbox the directory also answers for this platform's own customers, so one customer can
 * pay another's UMA address (settled as an incoming payment to the receiver).
 */
async function localReceiver(ctx: Ctx, address: string, sender: Sender): Promise<UmaReceiver | undefined> {
  if (ctx.config.UMA_PROVIDER !== 'sandbox') return undefined;
  const customer = await ctx.db.customer.findFirst({ where: { umaAddress: address, isDeleted: false } });
  if (!customer) return undefined;
  if (customer.id === sender.customerId) throw new BadRequestError('SELF_PAYMENT', 'The receiver is the sender.');
  const limits = await ctx.db.platformCurrency.findMany({ where: { currencyCode: { in: customer.currencies } } });
  const currencies: UmaCurrencyOption[] = limits.map((l) => ({ code: l.currencyCode, decimals: currencyOf(l.currencyCode).decimals, multiplier: 0, min: l.minAmount, max: l.maxAmount }));
  return { receiverUmaAddress: address, currencies, requiredPayerDataFields: [], counterparty: { local: true, customerId: customer.id } };
}

/** Sending major units per one receiving major unit (A19), from the sender's first currency; informational. */
async function estimatedRate(ctx: Ctx, from: string, to: string): Promise<number | undefined> {
  try {
    return Number((await getExchangeRate(ctx, from, to)).rate);
  } catch {
    return undefined;
  }
}

/**
 * GET /receiver/uma/{umaAddress}: asks the counterparty (UMA_PROVIDER) about the receiver and keeps
 * its answer for UMA_LOOKUP_TTL_SECONDS under a `Lookup:` id. Currencies this service does not know
 * are left out. Errors: 400 INVALID_UMA_ADDRESS / INVALID_INPUT / the counterparty codes; 404
 * UMA_NOT_FOUND, USER_NOT_FOUND; 412; 424 (decisions B§9.1).
 */
export async function lookupReceiver(ctx: Ctx, q: { umaAddress: string; customerId?: string; senderUmaAddress?: string }): Promise<UmaLookup> {
  const address = normalizeUmaAddress(q.umaAddress);
  if (!address) throw invalidAddress('umaAddress');
  const sender = await resolveSender(ctx, q);
  let receiver = await localReceiver(ctx, address, sender);
  if (!receiver) {
    receiver = await ctx.adapters.uma
      .lookup({ receiverUmaAddress: address, senderUmaAddress: sender.umaAddress })
      .catch((err: unknown) => {
        throw err instanceof UmaCounterpartyError ? umaError(err) : err;
      });
  }
  const currencies: StoredUmaCurrency[] = [];
  for (const c of receiver.currencies) {
    if (!isKnownCurrency(c.code)) continue;
    const rate = await estimatedRate(ctx, sender.primaryCurrency, c.code);
    if (rate === undefined) continue;
    currencies.push({ code: c.code, decimals: c.decimals, multiplier: c.multiplier, min: c.min.toString(), max: c.max.toString(), estimatedExchangeRate: rate });
  }
  const now = ctx.clock.now();
  return ctx.db.umaLookup.create({
    data: {
      id: newId('Lookup'),
      customerId: sender.customerId,
      senderUmaAddress: sender.umaAddress,
      receiverUmaAddress: address,
      provider: receiver.counterparty.local ? 'local' : ctx.config.UMA_PROVIDER,
      supportedCurrencies: currencies as never,
      requiredPayerDataFields: receiver.requiredPayerDataFields as never,
      counterparty: receiver.counterparty as never,
      expiresAt: new Date(now.getTime() + ctx.config.UMA_LOOKUP_TTL_SECONDS * 1000),
      createdAt: now,
    } as never,
  });
}

/** A lookup a quote may still use. Errors: 404 LOOKUP_REQUEST_NOT_FOUND (unknown, expired, another customer's). */
export async function getUsableLookup(ctx: Ctx, id: string, customerId: string | null): Promise<UmaLookup & { currencies: StoredUmaCurrency[]; payerData: PayerDataRequirement[] }> {
  const l = await ctx.db.umaLookup.findFirst({ where: { id } });
  if (!l || l.expiresAt <= ctx.clock.now() || (customerId !== null && l.customerId !== customerId) || !visibleToCaller(ctx, l.customerId)) {
    throw new NotFoundError('LOOKUP_REQUEST_NOT_FOUND', 'The lookup does not exist or has expired; look the receiver up again.');
  }
  return { ...l, currencies: l.supportedCurrencies as unknown as StoredUmaCurrency[], payerData: l.requiredPayerDataFields as unknown as PayerDataRequirement[] };
}
