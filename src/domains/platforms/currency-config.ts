import type { Prisma } from '../../generated/prisma/client.js';

/** Currencies a new platform can transact in, with default per-transaction bounds (decision A12). */
export const DEFAULT_CURRENCIES = ['USD', 'EUR', 'GBP', 'MXN', 'BRL', 'INR', 'PHP', 'NGN', 'KES', 'CAD', 'USDC', 'USDT', 'BTC', 'USDB'];
export const DEFAULT_MIN_AMOUNT = 1n;
export const DEFAULT_MAX_AMOUNT = 10_000_000_000n;

/**
 * Customer fields the (sandbox) providers require per currency before money moves in it
 * (`providerRequiredCustomerFields`, spec Customer section). Read-only for platforms.
 */
export const PROVIDER_REQUIRED_CUSTOMER_FIELDS: Record<string, string[]> = {
  USD: ['FULL_NAME', 'BIRTH_DATE', 'POSTAL_ADDRESS', 'NATIONALITY'],
  EUR: ['FULL_NAME', 'BIRTH_DATE', 'POSTAL_ADDRESS', 'NATIONALITY', 'EMAIL', 'PHONE_NUMBER'],
  GBP: ['FULL_NAME', 'BIRTH_DATE', 'POSTAL_ADDRESS'],
  MXN: ['FULL_NAME', 'BIRTH_DATE'],
  BRL: ['FULL_NAME', 'BIRTH_DATE', 'TAX_ID'],
  INR: ['FULL_NAME', 'BIRTH_DATE'],
  NGN: ['FULL_NAME', 'BIRTH_DATE', 'PHONE_NUMBER'],
};

type Tx = Prisma.TransactionClient;

export async function seedCurrencyConfigs(tx: Tx, platformId: string): Promise<void> {
  await tx.platformCurrency.createMany({
    data: DEFAULT_CURRENCIES.map((currencyCode) => ({
      platformId,
      currencyCode,
      minAmount: DEFAULT_MIN_AMOUNT,
      maxAmount: DEFAULT_MAX_AMOUNT,
      requiredCounterpartyFields: [],
      enabledTransactionTypes: ['INCOMING', 'OUTGOING'],
    })),
  });
}
