import type { PrismaClient } from './db.js';

/**
 * Values looked up before their platform is known (issue 29): a key of a tenant table includes
 * platform_id, so a client id, a token, a code or a provider's reference is found in two keyed reads —
 * its platform from tenant_lookups, then the row by (platform_id, value).
 *
 * tenant_lookups is written by the application, in the transaction that writes the row, through
 * syncLookups (issue 29, 29d). It was written by triggers (`svc_tenant_lookup`, migration
 * 20261216000000_tenant_keys) until Citus refused them: a trigger runs on the shard of the row's platform
 * and may write only that platform's shard group, and tenant_lookups is distributed by the value (so a
 * lookup is one shard and a value is unique across platforms). Migration 20261225000000_lookups_by_app
 * dropped the triggers; the lint (test/platform/tenant-keys.test.ts) checks LOOKUP_KINDS against the schema.
 */
export const LOOKUP_KINDS = {
  PLATFORM_CLIENT_ID: { table: 'platform_credentials', fields: ['clientId'] },
  KYC_LINK_TOKEN: { table: 'kyc_links', fields: ['tokenHash'] },
  AGENT_DEVICE_CODE: { table: 'agent_device_codes', fields: ['codeHash'] },
  AGENT_ACCESS_TOKEN: { table: 'agent_device_codes', fields: ['accessTokenHash'] },
  UMA_INVITATION_CODE: { table: 'uma_invitations', fields: ['code'] },
  BANK_LINK_TOKEN: { table: 'bank_links', fields: ['linkToken'] },
  SCA_RESET_TOKEN: { table: 'sca_factor_resets', fields: ['tokenHash'] },
  CARD_PROCESSOR_REF: { table: 'cards', fields: ['issuerAdapter', 'processorRef'] },
  STABLECOIN_PROVIDER_OPERATION: { table: 'stablecoin_operations', fields: ['provider', 'providerOperationId'] },
  COLLECTION_REFERENCE: { table: 'collection_coordinates', fields: ['adapterId', 'reference'] },
  // Issue 29 (29a, migration 20261220000000): a wallet-ownership liveness token's hash, a KYC case id, an external account's id (a beneficiary check's reference, the operator CLI's --id).
  LIVENESS_TOKEN: { table: 'external_account_challenges', fields: ['secretHash'] },
  KYC_CASE: { table: 'verifications', fields: ['id'] },
  EXTERNAL_ACCOUNT: { table: 'external_accounts', fields: ['id'] },
} as const satisfies Record<string, { table: string; fields: readonly string[] }>;

export type LookupKind = keyof typeof LOOKUP_KINDS;
/** A table whose rows carry looked-up values. */
export type LookupTable = (typeof LOOKUP_KINDS)[LookupKind]['table'];

/** A row of a lookup table as its model (camelCase fields), with its platform. */
type LookupRow = { platformId: string } & Record<string, unknown>;

/** What syncLookups needs of a client or transaction: a TenantDb, a TenantTx or a PrismaClient's transaction. */
interface LookupWriter {
  tenantLookup: {
    createMany(args: { data: Array<{ kind: string; value: string; platformId: string }> }): PromiseLike<unknown>;
    deleteMany(args: { where: { OR: Array<{ kind: string; value: string }> } }): PromiseLike<unknown>;
  };
}

/** A kind's columns joined by U+001F (as the retired svc_tenant_lookup_value did), or null when one is unset. */
function valueOf(kind: LookupKind, row: LookupRow | null): string | null {
  if (!row) return null;
  const fields: readonly string[] = LOOKUP_KINDS[kind].fields;
  const parts = fields.map((f) => row[f]);
  return parts.every((p) => typeof p === 'string') ? parts.join('\x1f') : null;
}

/**
 * THE writer of tenant_lookups. In the caller's transaction, after it wrote a row of `table`: `before` is the
 * row as it was (null for an insert), `after` as it is now. Each kind of the table whose value changed gets
 * its old lookup deleted and its new one inserted. A value another row holds (of any platform) fails the
 * insert with a unique violation on tenant_lookups_pkey, so the caller's transaction rolls back: values
 * stay globally unique. Sends nothing when no value changed.
 */
export async function syncLookups(tx: LookupWriter, table: LookupTable, before: LookupRow | null, after: LookupRow): Promise<void> {
  const gone: Array<{ kind: string; value: string }> = [];
  const added: Array<{ kind: string; value: string; platformId: string }> = [];
  for (const kind of Object.keys(LOOKUP_KINDS) as LookupKind[]) {
    if (LOOKUP_KINDS[kind].table !== table) continue;
    const was = valueOf(kind, before);
    const now = valueOf(kind, after);
    if (was === now) continue;
    if (was !== null) gone.push({ kind, value: was });
    if (now !== null) added.push({ kind, value: now, platformId: after.platformId });
  }
  if (gone.length > 0) await tx.tenantLookup.deleteMany({ where: { OR: gone } });
  if (added.length > 0) await tx.tenantLookup.createMany({ data: added });
}

/** The platform a value belongs to, or null when no row has it. `parts` are the kind's columns in order. */
export async function platformOfLookup(prisma: PrismaClient, kind: LookupKind, ...parts: string[]): Promise<string | null> {
  const row = await prisma.tenantLookup.findUnique({ where: { kind_value: { kind, value: parts.join('\x1f') } }, select: { platformId: true } });
  return row?.platformId ?? null;
}
