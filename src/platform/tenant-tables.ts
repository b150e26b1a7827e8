/**
 * Issue 29: which tables belong to a platform. A table with a `platform_id` column is a tenant table (on
 * Citus distributed by `platform_id`, co-located; on the partitioned rehearsal hash-partitioned by it). The
 * tables without one are named here with the reason; the schema lint (test/platform/tenant-keys.test.ts)
 * fails on a table that is neither, and `db:migrate` on Citus (src/cli/citus-distribute.ts) reads the same
 * lists to choose reference, local and lookup tables.
 */

export const TENANT_COLUMN = 'platform_id';

/** Tables that belong to no platform. Key: table; value: why (and what it becomes on Citus). */
export const PLATFORM_WIDE_TABLES: Record<string, string> = {
  _migrations: 'the migration runner’s own record (local to the coordinator)',
  platforms: 'the tenants themselves, keyed by their id (a reference table: every node joins against it)',
  service_keys: 'server-wide signing/sealing keys, not any platform’s (reference table)',
  // The sandbox adapters' simulated providers: the provider's own records, known by its reference
  // and idempotency key, read and written only by the sandbox adapter (reference tables).
  sandbox_bank_payouts: 'the sandbox rail’s simulated bank: its payouts',
  sandbox_bank_refunds: 'the sandbox rail’s simulated bank: its refunds',
  sandbox_issuer_clients: 'the sandbox stablecoin issuer’s simulated provider: its clients',
  sandbox_issuer_operations: 'the sandbox stablecoin issuer’s simulated provider: its operations',
  sandbox_collection_credits: 'the sandbox collection provider’s simulated bank: the credits it received',
  collection_poll_cursors: 'how far the reconciliation poll has read each collection provider (one row per adapter, no platform)',
};

/** Platform-wide tables that stay local to the Citus coordinator (neither distributed nor reference). */
export const COORDINATOR_LOCAL_TABLES: readonly string[] = ['_migrations'];

/**
 * Tables that carry `platform_id` as data but are keyed by a globally unique opaque value looked up
 * before the platform is known. Key: table; value: what it maps, and its Citus distribution column (a
 * column of its primary key: the value looked up, so a lookup is one shard), or null for a reference table
 * (unique keys on different columns, which no one distribution column can keep).
 */
export const GLOBAL_LOOKUP_TABLES: Record<string, { why: string; distributeBy: string | null }> = {
  collection_credits: {
    why: 'credits a collection provider reported, keyed by the provider’s credit id; an unmatched one has no platform',
    // Unique by id, by (adapter_id, provider_credit_id) and by transaction_id; written once per pay-in.
    distributeBy: null,
  },
  tenant_lookups: {
    why: 'client ids, hosted-KYC tokens, device codes, agent access tokens, invitation codes, bank-link tokens, SCA reset tokens → their platform and row',
    distributeBy: 'value',
  },
};

