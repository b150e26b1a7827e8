import type { PrismaClient } from './db.js';

/**
 * Values looked up before their platform is known (issue 29): a key of a tenant table includes
 * platform_id, so a client id, a token, a code or a provider's reference is found in two keyed reads —
 * its platform from tenant_lookups (kept by the tables' `svc_tenant_lookup` triggers, migration
 * 20261216000000_tenant_keys, in the transaction that writes the row), then the row by
 * (platform_id, value). The kinds and the columns they join are the migration's.
 */
export type LookupKind =
  | 'PLATFORM_CLIENT_ID'
  | 'KYC_LINK_TOKEN'
  | 'AGENT_DEVICE_CODE'
  | 'AGENT_ACCESS_TOKEN'
  | 'UMA_INVITATION_CODE'
  | 'BANK_LINK_TOKEN'
  | 'SCA_RESET_TOKEN'
  | 'CARD_PROCESSOR_REF'
  | 'STABLECOIN_PROVIDER_OPERATION'
  | 'COLLECTION_REFERENCE'
  // Issue 29 (29a, migration 20261220000000): a wallet-ownership liveness token's hash, a KYC case id, an external account's id (a beneficiary check's reference, the operator CLI's --id).
  | 'LIVENESS_TOKEN'
  | 'KYC_CASE'
  | 'EXTERNAL_ACCOUNT';

/** The platform a value belongs to, or null when no row has it. `parts` are the kind's columns in order. */
export async function platformOfLookup(prisma: PrismaClient, kind: LookupKind, ...parts: string[]): Promise<string | null> {
  // U+001F joins a kind's columns, as svc_tenant_lookup_value does.
  const row = await prisma.tenantLookup.findUnique({ where: { kind_value: { kind, value: parts.join('\x1f') } }, select: { platformId: true } });
  return row?.platformId ?? null;
}
