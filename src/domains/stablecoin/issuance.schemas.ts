import { z } from 'zod';
import type { Stablecoin, StablecoinOperation, StablecoinProviderAccount } from '../../generated/prisma/client.js';
import { paginationQuery } from '../../platform/http/pagination.js';
import {
  GRID_OPERATIONS_STATUSES, ISSUANCE_STATUSES, OPERATION_TYPES, PROVIDER_ACCOUNT_STATUSES, STABLECOIN_NETWORKS, STABLECOIN_PROVIDERS,
} from './issuance.model.js';

const id = z.string().min(1).max(200);
const text = (max: number) => z.string().trim().min(1).max(max);
/** Token smallest units: digits only (REF pattern), positive, within a bigint column. */
const amount = z
  .string()
  .regex(/^[0-9]+$/, 'Must be a string of digits (the stablecoin\'s smallest unit).')
  .max(19)
  // Zod runs every check even after the regex failed: convert only digits.
  .refine((s) => !/^[0-9]+$/.test(s) || (BigInt(s) > 0n && BigInt(s) <= 9_223_372_036_854_775_807n), 'Must be positive and at most 9223372036854775807.');

/** POST /stablecoin-provider-accounts (REF StablecoinProviderAccountLinkRequest). */
export const linkProviderAccountBody = z.strictObject({
  provider: z.enum(STABLECOIN_PROVIDERS),
  apiClientId: text(255),
  apiClientSecret: z.string().min(1).max(1024),
  providerAccountId: text(255).optional(),
});
export type LinkProviderAccountBody = z.output<typeof linkProviderAccountBody>;

export const listProviderAccountsQuery = z.object({
  ...paginationQuery,
  provider: z.enum(STABLECOIN_PROVIDERS).optional(),
  status: z.enum(PROVIDER_ACCOUNT_STATUSES).optional(),
});
export type ListProviderAccountsQuery = z.output<typeof listProviderAccountsQuery>;

/** POST /stablecoins (REF StablecoinRegisterRequest). */
export const registerStablecoinBody = z.strictObject({
  providerTokenIdentifier: text(64),
  networkTokenIdentifier: text(200),
  network: z.enum(STABLECOIN_NETWORKS),
  stablecoinProviderAccountId: id.optional(),
});
export type RegisterStablecoinBody = z.output<typeof registerStablecoinBody>;

export const listStablecoinsQuery = z.object({
  ...paginationQuery,
  issuanceStatus: z.enum(ISSUANCE_STATUSES).optional(),
  gridOperationsStatus: z.enum(GRID_OPERATIONS_STATUSES).optional(),
  provider: z.enum(STABLECOIN_PROVIDERS).optional(),
});
export type ListStablecoinsQuery = z.output<typeof listStablecoinsQuery>;

const externalAccountId = id;
/** REF StablecoinMintFundingSource (discriminated on `type`). */
const mintFundingSource = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('WIRE') }),
  z.strictObject({ type: z.literal('ACH_DEBIT'), externalAccountId }),
  z.strictObject({ type: z.literal('SAME_DAY_ACH_DEBIT'), externalAccountId }),
  z.strictObject({ type: z.literal('GRID_INTERNAL_ACCOUNT'), accountId: id }),
  z.strictObject({ type: z.literal('PROVIDER_INTERNAL_BALANCE'), sourceTokenIdentifier: text(64), cryptoNetwork: text(64) }),
]);

export const createMintBody = z.strictObject({
  amount,
  fundingSource: mintFundingSource,
  destination: z.strictObject({ accountId: id }),
  description: z.string().max(1024).optional(),
});
export type CreateMintBody = z.output<typeof createMintBody>;

const burnSource = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('EXTERNAL_ACCOUNT') }),
  z.strictObject({ type: z.literal('GRID_INTERNAL_ACCOUNT'), accountId: id }),
  z.strictObject({ type: z.literal('PROVIDER_INTERNAL_BALANCE') }),
]);

export const createBurnBody = z.strictObject({
  amount,
  source: burnSource,
  destination: z.strictObject({
    type: z.literal('EXTERNAL_ACCOUNT'),
    externalAccountId,
    rail: z.enum(['WIRE', 'ACH_CREDIT', 'SAME_DAY_ACH_CREDIT', 'RTP_CREDIT']),
  }),
  description: z.string().max(1024).optional(),
});
export type CreateBurnBody = z.output<typeof createBurnBody>;

export const listOperationsQuery = z.object({ ...paginationQuery, operationType: z.enum(OPERATION_TYPES).optional() });
export type ListOperationsQuery = z.output<typeof listOperationsQuery>;

export const providerAccountIdParams = z.object({ stablecoinProviderAccountId: id });
export const stablecoinIdParams = z.object({ stablecoinId: id });
export const operationIdParams = z.object({ stablecoinOperationId: id });

const iso = (d: Date | null) => (d ? d.toISOString() : undefined);
const present = <T extends Record<string, unknown>>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as T;

/** REF StablecoinProviderAccount: never the credentials. */
export function providerAccountResource(a: StablecoinProviderAccount) {
  return present({
    id: a.id,
    provider: a.provider,
    providerAccountId: a.providerAccountId,
    providerEnvironment: a.providerEnvironment,
    status: a.status,
    lastVerifiedAt: iso(a.lastVerifiedAt),
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  });
}

/** REF Stablecoin. */
export function stablecoinResource(s: Stablecoin) {
  return present({
    id: s.id,
    name: s.name,
    symbol: s.symbol,
    baseCurrency: s.baseCurrency,
    network: s.network,
    decimals: s.decimals,
    issuanceStatus: s.issuanceStatus,
    gridOperationsStatus: s.gridOperationsStatus,
    networkTokenIdentifier: s.networkTokenIdentifier,
    currency: s.currency ?? undefined,
    provider: s.provider,
    stablecoinProviderAccountId: s.stablecoinProviderAccountId,
    providerEnvironment: s.providerEnvironment,
    providerTokenIdentifier: s.providerTokenIdentifier,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  });
}

/** REF StablecoinOperation. */
export function operationResource(o: StablecoinOperation) {
  return present({
    id: o.id,
    stablecoinId: o.stablecoinId,
    operationType: o.operationType,
    status: o.status,
    amount: o.amount.toString(),
    provider: o.provider,
    providerEnvironment: o.providerEnvironment,
    stablecoinProviderAccountId: o.stablecoinProviderAccountId,
    source: o.source as Record<string, unknown>,
    fundingInstructions: (o.fundingInstructions as Record<string, unknown> | null) ?? undefined,
    destination: o.destination as Record<string, unknown>,
    estimatedDelivery: (o.estimatedDelivery as Record<string, unknown> | null) ?? undefined,
    expiresAt: iso(o.expiresAt),
    providerStatus: o.providerStatus ?? undefined,
    failureReason: o.failureReason ?? undefined,
    description: o.description ?? undefined,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
  });
}
