/**
 * Keys that name the tenant (issue 29, item 3 first half): the schema lint run on the migrated database.
 *
 * A table with a `platform_id` column is a tenant table: on Citus it is distributed by `platform_id`
 * (on the partitioned rehearsal, hash-partitioned by it), and then
 * - every primary key and unique index must contain `platform_id` (a distributed table's, or a
 *   partitioned table's, unique index must include the distribution / partition column);
 * - every foreign key between tenant tables must pair `platform_id` with `platform_id` (co-located
 *   rows reference each other on one node), and no foreign key of a tenant table may say
 *   `ON UPDATE CASCADE` (Citus refuses it on the distribution column; ids never change anyway);
 * - a value looked up before the platform is known (a client id, a token, a code) is made globally
 *   unique through GLOBAL_LOOKUP_TABLES, never by a unique index of the tenant table.
 * Tables without `platform_id` must be named in PLATFORM_WIDE_TABLES with the reason (Citus reference
 * tables or local tables); a new table is a tenant table by default and the lint names what it lacks.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { withDatabase } from '../helpers/global-setup.js';

const TENANT_COLUMN = 'platform_id';

/** Tables that belong to no platform. Key: table; value: why (and what it becomes on Citus). */
const PLATFORM_WIDE_TABLES: Record<string, string> = {
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

/**
 * Tables that carry `platform_id` as data but are keyed by a globally unique opaque value looked up
 * before the platform is known (distributed by that key on Citus). Key: table; value: what it maps.
 */
const GLOBAL_LOOKUP_TABLES: Record<string, string> = {
  collection_credits: 'credits a collection provider reported, keyed by the provider’s credit id; an unmatched one has no platform',
  tenant_lookups: 'client ids, hosted-KYC tokens, device codes, agent access tokens, invitation codes, bank-link tokens, SCA reset tokens → their platform and row',
};

interface CatalogTable {
  name: string;
  columns: string[];
}
interface CatalogIndex {
  table: string;
  name: string;
  primary: boolean;
  /** Key columns; null for an expression column. */
  columns: Array<string | null>;
  definition: string;
}
interface CatalogForeignKey {
  table: string;
  name: string;
  columns: string[];
  refTable: string;
  refColumns: string[];
  /** pg_constraint.confupdtype: a no action, r restrict, c cascade, n set null, d set default. */
  onUpdate: string;
  definition: string;
}
interface Catalog {
  tables: CatalogTable[];
  indexes: CatalogIndex[];
  foreignKeys: CatalogForeignKey[];
}

async function readCatalog(client: pg.Client): Promise<Catalog> {
  const tables = await client.query<{ name: string; columns: string[] }>(
    `SELECT c.relname AS name, array_agg(a.attname::text ORDER BY a.attnum) AS columns
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      GROUP BY c.relname ORDER BY c.relname`,
  );
  const indexes = await client.query<CatalogIndex>(
    `SELECT t.relname AS table, i.relname AS name, x.indisprimary AS primary,
            array(SELECT a.attname::text FROM unnest(x.indkey[0:x.indnkeyatts - 1]) WITH ORDINALITY k(attnum, ord)
                    LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.ord) AS columns,
            pg_get_indexdef(x.indexrelid) AS definition
       FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = 'public' AND x.indisunique AND t.relkind IN ('r', 'p') AND NOT t.relispartition
      ORDER BY 1, 2`,
  );
  const fks = await client.query<CatalogForeignKey>(
    `SELECT c.conrelid::regclass::text AS table, c.conname AS name,
            array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns,
            c.confrelid::regclass::text AS "refTable",
            array(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.ord) AS "refColumns",
            c.confupdtype AS "onUpdate", pg_get_constraintdef(c.oid) AS definition
       FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = 'public' AND c.contype = 'f' AND NOT t.relispartition AND c.conparentid = 0
      ORDER BY 1, 2`,
  );
  return { tables: tables.rows, indexes: indexes.rows, foreignKeys: fks.rows };
}

interface Violations {
  /** Tables without platform_id that PLATFORM_WIDE_TABLES does not name (or names wrongly). */
  tables: string[];
  /** PKs and uniques of tenant tables without platform_id. */
  keys: string[];
  /** FKs between tenant tables that do not pair platform_id with platform_id. */
  foreignKeys: string[];
  /** FKs of tenant tables with ON UPDATE CASCADE (or SET NULL / SET DEFAULT on update). */
  cascades: string[];
}

function tenantKeyViolations(catalog: Catalog, platformWide = PLATFORM_WIDE_TABLES, lookups = GLOBAL_LOOKUP_TABLES): Violations {
  const out: Violations = { tables: [], keys: [], foreignKeys: [], cascades: [] };
  const isTenant = new Map(catalog.tables.map((t) => [t.name, t.columns.includes(TENANT_COLUMN) && !(t.name in lookups)]));
  for (const t of catalog.tables) {
    const has = t.columns.includes(TENANT_COLUMN);
    if (t.name in lookups) continue;
    if (!has && !(t.name in platformWide)) out.tables.push(`${t.name}: no ${TENANT_COLUMN} column and not in PLATFORM_WIDE_TABLES (add ${TENANT_COLUMN}, or list it with the reason it belongs to no platform)`);
    if (has && t.name in platformWide) out.tables.push(`${t.name}: listed in PLATFORM_WIDE_TABLES but has ${TENANT_COLUMN} (remove it from the list)`);
  }
  const names = new Set(catalog.tables.map((t) => t.name));
  for (const name of [...Object.keys(platformWide), ...Object.keys(lookups)]) {
    if (!names.has(name)) out.tables.push(`${name}: listed but no such table (a stale name would exempt a future one)`);
  }
  for (const i of catalog.indexes) {
    if (!isTenant.get(i.table)) continue;
    if (!i.columns.includes(TENANT_COLUMN)) out.keys.push(`${i.table}.${i.name} (${i.primary ? 'primary key' : 'unique'}): ${i.definition.replace(/^CREATE UNIQUE INDEX \S+ ON \S+ USING btree /, '')}`);
  }
  for (const f of catalog.foreignKeys) {
    if (!isTenant.get(f.table)) continue;
    if (f.onUpdate !== 'a' && f.onUpdate !== 'r') out.cascades.push(`${f.table}.${f.name}: ${f.definition}`);
    if (!isTenant.get(f.refTable)) continue;
    const at = f.columns.indexOf(TENANT_COLUMN);
    if (at < 0 || f.refColumns[at] !== TENANT_COLUMN) out.foreignKeys.push(`${f.table}.${f.name} → ${f.refTable}: ${f.definition}`);
  }
  return out;
}

let catalog: Catalog;
let cloneName: string;

beforeAll(async () => {
  // A clone of the migrated template (test/helpers/global-setup.ts), named so its sweep of crashed runs recognises it.
  const rootUrl = inject('databaseUrl');
  cloneName = `svc_t_${Math.floor(Date.now() / 1000)}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: rootUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${cloneName}" TEMPLATE "${inject('templateDb')}"`);
  } finally {
    await admin.end();
  }
  const client = new pg.Client({ connectionString: withDatabase(rootUrl, cloneName) });
  await client.connect();
  try {
    catalog = await readCatalog(client);
  } finally {
    await client.end();
  }
});

afterAll(async () => {
  if (!cloneName) return;
  const admin = new pg.Client({ connectionString: inject('databaseUrl') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${cloneName}" WITH (FORCE)`).catch(() => undefined);
  await admin.end();
});

const list = (xs: string[]) => `${xs.length}:\n  ${xs.join('\n  ')}`;

describe('every key of a tenant table names the tenant (issue 29: Citus and hash partitions by platform_id)', () => {
  it('reads the migrated schema', () => {
    expect(catalog.tables.some((t) => t.name === '_migrations')).toBe(true);
    expect(catalog.tables.filter((t) => t.columns.includes(TENANT_COLUMN)).length).toBeGreaterThan(20);
  });

  it('tables without platform_id are the explicit platform-wide list', () => {
    const v = tenantKeyViolations(catalog);
    expect(v.tables, `tables ${list(v.tables)}`).toEqual([]);
  });

  it('every primary key and unique index of a tenant table includes platform_id', () => {
    const v = tenantKeyViolations(catalog);
    expect(v.keys, `keys without ${TENANT_COLUMN} ${list(v.keys)}`).toEqual([]);
  });

  it('every foreign key between tenant tables pairs platform_id with platform_id', () => {
    const v = tenantKeyViolations(catalog);
    expect(v.foreignKeys, `foreign keys by id alone ${list(v.foreignKeys)}`).toEqual([]);
  });

  it('no foreign key of a tenant table cascades (or nulls) on update', () => {
    const v = tenantKeyViolations(catalog);
    expect(v.cascades, `foreign keys acting on update ${list(v.cascades)}`).toEqual([]);
  });

  it('the lint reports each kind of offence (guards against a lint that cannot fail)', () => {
    const bad: Catalog = {
      tables: [
        { name: 'widgets', columns: ['id', 'platform_id'] },
        { name: 'parts', columns: ['id', 'platform_id', 'widget_id'] },
        { name: 'loose', columns: ['id'] },
      ],
      indexes: [
        { table: 'widgets', name: 'widgets_pkey', primary: true, columns: ['id'], definition: '' },
        { table: 'parts', name: 'parts_pkey', primary: true, columns: ['platform_id', 'id'], definition: '' },
      ],
      foreignKeys: [{ table: 'parts', name: 'parts_widget_fkey', columns: ['widget_id'], refTable: 'widgets', refColumns: ['id'], onUpdate: 'c', definition: '' }],
    };
    const v = tenantKeyViolations(bad, {}, {});
    expect(v.tables).toEqual([expect.stringMatching(/^loose: no platform_id/)]);
    expect(v.keys).toEqual([expect.stringMatching(/^widgets\.widgets_pkey/)]);
    expect(v.foreignKeys).toEqual([expect.stringMatching(/^parts\.parts_widget_fkey/)]);
    expect(v.cascades).toEqual([expect.stringMatching(/^parts\.parts_widget_fkey/)]);
  });
});
