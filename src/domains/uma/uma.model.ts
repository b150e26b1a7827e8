import { UMA_ADDRESS_PATTERN } from '../customers/index.js';

/**
 * UMA addresses (UMAD-01): `$` + a user name of 1–64 letters, digits and `-_.+`, `@`, a domain.
 * Case-insensitive: compared and stored in lower case.
 */
export function normalizeUmaAddress(raw: string): string | undefined {
  const address = raw.trim().toLowerCase();
  return UMA_ADDRESS_PATTERN.test(address) ? address : undefined;
}

export interface PayerDataRequirement {
  name: string;
  mandatory: boolean;
}

/** Mandatory payer-data fields absent (or empty) from `senderCustomerInfo`. */
export function missingPayerData(required: PayerDataRequirement[], given: Record<string, unknown> | undefined): string[] {
  return required
    .filter((f) => f.mandatory)
    .map((f) => f.name)
    .filter((name) => {
      const v = given?.[name];
      return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
    });
}

/** The stored form of one supported currency of a lookup (amounts as strings: JSON has no bigint). */
export interface StoredUmaCurrency {
  code: string;
  decimals: number;
  multiplier: number;
  min: string;
  max: string;
  estimatedExchangeRate: number;
}
