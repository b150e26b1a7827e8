/**
 * Issue 29: the plan `db:migrate` follows on Citus (src/cli/citus-distribute.ts). The plan of the real
 * migrated schema is checked in test/platform/tenant-keys.test.ts; these are its rules on small catalogs.
 */
import { describe, expect, it } from 'vitest';
import { citusPlan, type CatalogForeignKey, type CatalogTable } from '../../src/cli/citus-distribute.js';

const tables: CatalogTable[] = [
  { name: '_migrations', columns: ['name', 'checksum'] },
  { name: 'platforms', columns: ['id', 'name'] },
  { name: 'service_keys', columns: ['id'] },
  { name: 'transactions', columns: ['platform_id', 'id', 'quote_id'] },
  { name: 'quotes', columns: ['platform_id', 'id'] },
  { name: 'customers', columns: ['platform_id', 'id'] },
  { name: 'tenant_lookups', columns: ['kind', 'value', 'platform_id'] },
  { name: 'collection_credits', columns: ['id', 'adapter_id', 'provider_credit_id', 'platform_id'] },
];
const fks: CatalogForeignKey[] = [
  { table: 'transactions', refTable: 'quotes' },
  { table: 'quotes', refTable: 'customers' },
  { table: 'customers', refTable: 'platforms' },
];

describe('the Citus distribution plan', () => {
  it('distributes tenant tables by platform_id in one co-location group, referenced tables first', () => {
    const plan = citusPlan(tables, fks);
    expect(plan.distributed).toEqual([
      { table: 'customers', column: 'platform_id', colocateWith: 'none' },
      { table: 'quotes', column: 'platform_id', colocateWith: 'customers' },
      { table: 'transactions', column: 'platform_id', colocateWith: 'customers' },
      { table: 'tenant_lookups', column: 'value', colocateWith: 'none' },
    ]);
    // collection_credits: unique keys on different columns, so a copy on every node.
    expect(plan.reference).toEqual(['collection_credits', 'platforms', 'service_keys']);
    expect(plan.local).toEqual(['_migrations']);
  });

  it('on a distributed schema plans only the new tables, co-located with the existing group', () => {
    const known = new Set(['platforms', 'service_keys', 'customers', 'quotes', 'transactions', 'tenant_lookups', 'collection_credits']);
    const plan = citusPlan([...tables, { name: 'accounts', columns: ['platform_id', 'id'] }, { name: 'sandbox_bank_payouts', columns: ['id'] }], fks, known);
    expect(plan.distributed).toEqual([{ table: 'accounts', column: 'platform_id', colocateWith: 'customers' }]);
    expect(plan.reference).toEqual(['sandbox_bank_payouts']);
    expect(citusPlan(tables, fks, known)).toEqual({ reference: [], distributed: [], local: ['_migrations'] });
  });

  it('refuses a table without platform_id that the platform-wide list does not name', () => {
    expect(() => citusPlan([...tables, { name: 'widgets', columns: ['id'] }], fks)).toThrow(/widgets/);
  });

  it('refuses a reference table that points at a tenant table', () => {
    expect(() => citusPlan(tables, [...fks, { table: 'service_keys', refTable: 'customers' }])).toThrow(/service_keys.*customers/);
  });
});
