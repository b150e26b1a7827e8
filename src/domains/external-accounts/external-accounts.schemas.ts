import { z } from 'zod';
import { paginationQuery } from '../../platform/http/pagination.js';
import { isKnownCurrency } from '../../platform/currencies.js';
import { countryCode } from './account-info.fields.js';
import { OWNERSHIP_TYPES, type ExternalAccountStatus } from './external-accounts.model.js';

/** Request schemas of the external-account endpoints and the one function that shapes the resource. */

const id = z.string().min(1).max(200);
const currency = z.string().refine(isKnownCurrency, { message: 'Unknown currency.' });

/**
 * Top-level fields of a create request. `accountInfo` is checked by validateAccountInfo; `paymentRails` is
 * read-only and refused (spec: never sent on creation).
 */
export const createExternalAccountBody = z.object({
  currency: z.string().min(1, 'Required.').max(8),
  customerId: id.nullish(),
  platformAccountId: z.string().trim().min(1).max(255).optional(),
  ownershipType: z.enum(OWNERSHIP_TYPES).optional(),
  defaultUmaDepositAccount: z.boolean().optional(),
  accountInfo: z.unknown(),
});

export const externalAccountParams = z.object({ externalAccountId: id });

export const listCustomerAccountsQuery = z.object({ ...paginationQuery, customerId: id.optional(), currency: currency.optional() });
export const listPlatformAccountsQuery = z.object({ ...paginationQuery, currency: currency.optional() });

export const discoveriesQuery = z.object({
  country: countryCode().optional(),
  currency: z.string().regex(/^[A-Z]{3}$/, 'Must be an ISO 4217 code in upper case.').refine(isKnownCurrency, 'Unknown currency.').optional(),
});

export const challengeBody = z.object({ method: z.enum(['WALLET_SIGNATURE', 'LIVENESS']) });

export const verifyBody = z.object({
  signature: z.string().min(1, 'Required.').max(1024),
  signatureScheme: z.enum(['bip137', 'electrum']).optional(),
});

/** B§6.1: either `code`, or `passkeyAssertion` with `origin`. */
export const trustConfirmBody = z
  .object({
    challengeId: z.string().max(200).nullish(),
    code: z.string().max(32).nullish(),
    passkeyAssertion: z.record(z.string(), z.unknown()).nullish(),
    origin: z.string().max(2048).nullish(),
  })
  .superRefine((b, ctx) => {
    if (b.code) return;
    if (b.passkeyAssertion && b.origin) return;
    ctx.addIssue({ code: 'custom', path: [b.passkeyAssertion ? 'origin' : 'code'], message: 'Required: code, or passkeyAssertion with origin.' });
  });

export const livenessParams = z.object({ token: z.string().min(16).max(200).regex(/^[A-Za-z0-9_-]+$/) });
export const livenessOutcomeBody = z.object({ outcome: z.enum(['PASSED', 'FAILED']) });

/** An external account as the service holds it: accountInfo already unsealed. */
export interface ExternalAccountRecord {
  id: string;
  customerId: string | null;
  status: ExternalAccountStatus;
  platformAccountId: string | null;
  ownershipType: string | null;
  currency: string;
  accountType: string;
  accountInfo: Record<string, unknown>;
  paymentRails: string[];
  identifierLast3: string;
  defaultUmaDepositAccount: boolean;
  beneficiaryVerificationStatus: string | null;
  beneficiaryVerifiedData: unknown;
  trustedAt: Date | null;
  isDeleted: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** Spec: ExternalAccount. The same object is GET's answer and EXTERNAL_ACCOUNT.STATUS_UPDATED's `data`. */
export function externalAccountResource(a: ExternalAccountRecord) {
  return {
    id: a.id,
    customerId: a.customerId,
    status: a.status,
    ...(a.platformAccountId !== null ? { platformAccountId: a.platformAccountId } : {}),
    ...(a.ownershipType !== null ? { ownershipType: a.ownershipType } : {}),
    currency: a.currency,
    defaultUmaDepositAccount: a.defaultUmaDepositAccount,
    ...(a.beneficiaryVerificationStatus !== null ? { beneficiaryVerificationStatus: a.beneficiaryVerificationStatus } : {}),
    ...(a.beneficiaryVerifiedData ? { beneficiaryVerifiedData: a.beneficiaryVerifiedData } : {}),
    // Read-only paymentRails only where the service selects rails (spec); wallets and Lightning have none.
    accountInfo: { accountType: a.accountInfo.accountType, ...a.accountInfo, ...(a.paymentRails.length > 0 ? { paymentRails: a.paymentRails } : {}) },
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}
