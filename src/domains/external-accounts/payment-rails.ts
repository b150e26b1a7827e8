import { type AccountType, canonicalAccountType } from './account-types.js';
import { variantOf } from './account-info.schemas.js';

/**
 * Read-only `accountInfo.paymentRails` (spec: a list "drawn from" the type's rails; decisions B§5.9 gives the
 * lists per type). Where an account can only use part of its type's list, the list is narrowed: a mobile-money
 * COP account gets `MOBILE_MONEY`, a UPI INR account `UPI`, a NEFT account `NEFT`. ILS is missing from B§5.9;
 * it is an IBAN bank transfer like AED. Wallets and Lightning have no rails.
 */
const RAILS_BY_TYPE: Record<string, readonly string[]> = {
  USD: ['ACH', 'WIRE', 'RTP', 'FEDNOW'],
  EUR: ['SEPA', 'SEPA_INSTANT'],
  DKK: ['SEPA', 'SEPA_INSTANT'],
  GBP: ['FASTER_PAYMENTS'],
  MXN: ['SPEI'],
  BRL: ['PIX'],
  INR: ['UPI', 'NEFT', 'RTGS'],
  SGD: ['PAYNOW', 'FAST', 'BANK_TRANSFER'],
  SWIFT: ['SWIFT'],
  ...Object.fromEntries(['BDT', 'COP', 'EGP', 'GHS', 'PKR', 'SLV', 'CNY'].map((c) => [c, ['BANK_TRANSFER', 'MOBILE_MONEY']])),
  ...Object.fromEntries(['BWP', 'HTG', 'KES', 'MWK', 'RWF', 'TZS', 'UGX', 'XAF', 'XOF', 'ZMW'].map((c) => [c, ['MOBILE_MONEY']])),
  ...Object.fromEntries(
    ['AED', 'CAD', 'GTQ', 'HKD', 'IDR', 'ILS', 'JMD', 'MYR', 'NGN', 'PHP', 'THB', 'VND', 'ZAR'].map((c) => [c, ['BANK_TRANSFER']]),
  ),
};

export function paymentRailsFor(accountType: AccountType, accountInfo: Record<string, unknown>): string[] {
  const type = canonicalAccountType(accountType);
  if (!type.endsWith('_ACCOUNT')) return [];
  const all = RAILS_BY_TYPE[type.slice(0, type.indexOf('_'))] ?? [];
  const variant = variantOf(type, accountInfo);
  if (variant === 'MOBILE_MONEY' || variant === 'WALLET') return ['MOBILE_MONEY'];
  if (variant === 'UPI') return ['UPI'];
  if (variant === 'BANK_TRANSFER' && type === 'INR_ACCOUNT') return [String(accountInfo.rail)];
  if (variant === 'BANK_TRANSFER' && all.includes('MOBILE_MONEY')) return ['BANK_TRANSFER'];
  return [...all];
}
