import type { UmaLookup } from '../../generated/prisma/client.js';
import { currencyOf } from '../../platform/currencies.js';
import type { PayerDataRequirement, StoredUmaCurrency } from './uma.model.js';

/** The spec's "UMA receiver lookup result" (decisions B§9.1); min/max in the receiving currency. */
export function lookupResource(l: UmaLookup) {
  const currencies = l.supportedCurrencies as unknown as StoredUmaCurrency[];
  return {
    receiverUmaAddress: l.receiverUmaAddress,
    lookupId: l.id,
    supportedCurrencies: currencies.map((c) => ({ currency: currencyOf(c.code), estimatedExchangeRate: c.estimatedExchangeRate, min: Number(c.min), max: Number(c.max) })),
    requiredPayerDataFields: l.requiredPayerDataFields as unknown as PayerDataRequirement[],
    expiresAt: l.expiresAt.toISOString(),
  };
}
