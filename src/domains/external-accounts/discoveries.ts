import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** Spec: Discovery entry. `bankName` is the exact value to send when creating an account. */
export interface DiscoveryEntry {
  bankName: string;
  displayName: string;
  country: string;
  currency: string;
}

const entrySchema = z.array(
  z.object({
    bankName: z.string().regex(/^[A-Z0-9_]+$/),
    displayName: z.string().min(1),
    country: z.string().regex(/^[A-Z]{2}$/),
    currency: z.string().regex(/^[A-Z]{3}$/),
  }),
);

/**
 * Read once at import. The URL is relative to this file: src/domains/external-accounts and
 * dist/domains/external-accounts sit at the same depth, so both resolve to the repository's data/.
 * A malformed file stops start-up rather than serving a partial list.
 */
const ENTRIES: readonly DiscoveryEntry[] = Object.freeze(
  entrySchema.parse(JSON.parse(readFileSync(new URL('../../../data/discoveries.json', import.meta.url), 'utf8'))),
);

/** Entries matching the given filters (each optional, exact match), in file order. */
export function findBanks(country?: string, currency?: string): DiscoveryEntry[] {
  return ENTRIES.filter((e) => (!country || e.country === country) && (!currency || e.currency === currency)).map((e) => ({ ...e }));
}

export function isDiscoveredBank(country: string, currency: string, bankName: string): boolean {
  return ENTRIES.some((e) => e.country === country && e.currency === currency && e.bankName === bankName);
}
