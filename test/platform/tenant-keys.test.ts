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
 * - no trigger of a tenant table writes a table outside the platform's shard group (a platform-wide,
 *   reference or lookup table): Citus runs the trigger on the row's shard and refuses it there ("cannot
 *   execute a distributed query from a query on a shard"); tenant_lookups is written by the application
 *   (syncLookups, src/platform/tenant-lookups.ts), and each of its kinds names a table and columns that a
 *   unique index `(platform_id, …)` keys (29d).
 * Tables without `platform_id` must be named in PLATFORM_WIDE_TABLES (src/platform/tenant-tables.ts, which
 * `db:migrate` on Citus reads too) with the reason (Citus reference tables or local tables); a new table is a
 * tenant table by default and the lint names what it lacks.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { citusPlan } from '../../src/cli/citus-distribute.js';
import { snakeCase } from '../../src/platform/column-names.js';
import { LOOKUP_KINDS } from '../../src/platform/tenant-lookups.js';
import { COORDINATOR_LOCAL_TABLES, GLOBAL_LOOKUP_TABLES, PLATFORM_WIDE_TABLES, TENANT_COLUMN } from '../../src/platform/tenant-tables.js';
import { withDatabase } from '../helpers/global-setup.js';
import { cloneDatabase, dropDatabase } from '../helpers/test-databases.js';

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
interface CatalogTrigger {
  table: string;
  name: string;
  /** The trigger function's body (prosrc). */
  source: string;
}
interface Catalog {
  tables: CatalogTable[];
  indexes: CatalogIndex[];
  foreignKeys: CatalogForeignKey[];
  triggers: CatalogTrigger[];
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
  const triggers = await client.query<CatalogTrigger>(
    `SELECT t.relname AS table, g.tgname AS name, p.prosrc AS source
       FROM pg_trigger g JOIN pg_class t ON t.oid = g.tgrelid JOIN pg_namespace n ON n.oid = t.relnamespace JOIN pg_proc p ON p.oid = g.tgfoid
      WHERE n.nspname = 'public' AND NOT g.tgisinternal AND NOT t.relispartition
      ORDER BY 1, 2`,
  );
  return { tables: tables.rows, indexes: indexes.rows, foreignKeys: fks.rows, triggers: triggers.rows };
}

/** The tables a trigger function's body writes (INSERT INTO / UPDATE / DELETE FROM / MERGE INTO), by name. */
function tablesWritten(source: string): string[] {
  const out = new Set<string>();
  for (const m of source.matchAll(/\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|MERGE\s+INTO)\s+(?:ONLY\s+)?(?:"?public"?\.)?"?([a-z_][a-z0-9_]*)"?/gi)) out.add(m[1]!.toLowerCase());
  return [...out];
}

/**
 * Triggers of tenant tables that write a table outside the platform's shard group: a table that is not a
 * tenant table (platform-wide, reference, or a global lookup table). A write to the trigger's own table or
 * another tenant table is the same platform's (co-located) and allowed.
 */
function triggerViolations(catalog: Catalog, lookups: Record<string, unknown> = GLOBAL_LOOKUP_TABLES): string[] {
  const tenant = new Set(catalog.tables.filter((t) => t.columns.includes(TENANT_COLUMN) && !(t.name in lookups)).map((t) => t.name));
  const known = new Set(catalog.tables.map((t) => t.name));
  const out: string[] = [];
  for (const g of catalog.triggers) {
    if (!tenant.has(g.table)) continue;
    for (const w of tablesWritten(g.source)) if (known.has(w) && !tenant.has(w)) out.push(`${g.table}.${g.name} writes ${w}`);
  }
  return out;
}

/**
 * Lookup kinds whose table or columns are missing (a stale LOOKUP_KINDS would stop recording a value). A
 * kind's value need not be unique in its table: tenant_lookups' primary key makes it unique across platforms
 * (e.g. LIVENESS_TOKEN: the hash of a random token or of a code salted with the challenge's id).
 */
function lookupKindViolations(catalog: Catalog, kinds: Record<string, { table: string; fields: readonly string[] }> = LOOKUP_KINDS): string[] {
  const out: string[] = [];
  for (const [kind, k] of Object.entries(kinds)) {
    const table = catalog.tables.find((t) => t.name === k.table);
    const columns = k.fields.map(snakeCase);
    if (!table) {
      out.push(`${kind}: no table ${k.table}`);
      continue;
    }
    const missing = columns.filter((c) => !table.columns.includes(c));
    if (missing.length > 0) {
      out.push(`${kind}: ${k.table} has no column ${missing.join(', ')}`);
      continue;
    }
    if (!table.columns.includes(TENANT_COLUMN)) out.push(`${kind}: ${k.table} has no ${TENANT_COLUMN} (a lookup names the platform of a tenant row)`);
  }
  return out;
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

function tenantKeyViolations(catalog: Catalog, platformWide: Record<string, unknown> = PLATFORM_WIDE_TABLES, lookups: Record<string, unknown> = GLOBAL_LOOKUP_TABLES): Violations {
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
  await cloneDatabase(rootUrl, cloneName, inject('templateDb'));
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
  await dropDatabase(inject('databaseUrl'), cloneName);
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

  it('no trigger of a tenant table writes outside the platform’s shard group (Citus refuses it)', () => {
    const v = triggerViolations(catalog);
    expect(v, `triggers ${list(v)}`).toEqual([]);
    // The triggers that do write stay inside it (e.g. internal_accounts → collection_accounts_due, 29d).
    expect(catalog.triggers.some((g) => g.table === 'internal_accounts' && tablesWritten(g.source).includes('collection_accounts_due'))).toBe(true);
  });

  it('every lookup kind (tenant_lookups, written by syncLookups) names columns of a tenant table', () => {
    const v = lookupKindViolations(catalog);
    expect(v, `lookup kinds ${list(v)}`).toEqual([]);
  });

  it('on Citus (db:migrate): tenant tables distributed by platform_id in one group, the platform-wide ones reference tables', () => {
    const plan = citusPlan(catalog.tables, catalog.foreignKeys);
    const tenant = catalog.tables.filter((t) => t.columns.includes(TENANT_COLUMN) && !(t.name in GLOBAL_LOOKUP_TABLES)).map((t) => t.name);
    const byPlatform = plan.distributed.filter((d) => d.column === TENANT_COLUMN);
    expect(byPlatform.map((d) => d.table).sort()).toEqual(tenant.sort());
    expect(new Set(byPlatform.map((d) => (d.colocateWith === 'none' ? d.table : d.colocateWith))).size).toBe(1);
    const lookups = Object.entries(GLOBAL_LOOKUP_TABLES);
    expect(plan.distributed.filter((d) => d.column !== TENANT_COLUMN).map((d) => [d.table, d.column])).toEqual(lookups.filter(([, l]) => l.distributeBy !== null).map(([t, l]) => [t, l.distributeBy]));
    expect([...plan.reference, ...plan.local].sort()).toEqual([...Object.keys(PLATFORM_WIDE_TABLES), ...lookups.filter(([, l]) => l.distributeBy === null).map(([t]) => t)].sort());
    expect(plan.local).toEqual([...COORDINATOR_LOCAL_TABLES]);
    // A referenced table is distributed before the tables that point at it.
    const at = new Map(plan.distributed.map((d, i) => [d.table, i]));
    for (const f of catalog.foreignKeys) if (at.has(f.table) && at.has(f.refTable) && f.table !== f.refTable) expect(at.get(f.refTable)!).toBeLessThan(at.get(f.table)!);
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
      triggers: [
        { table: 'parts', name: 'parts_lookup', source: 'BEGIN INSERT INTO "loose" (id) VALUES (NEW.id); RETURN NULL; END' },
        { table: 'parts', name: 'parts_touch', source: 'BEGIN UPDATE widgets SET id = id WHERE platform_id = NEW.platform_id; RETURN NULL; END' },
      ],
    };
    const v = tenantKeyViolations(bad, {}, {});
    expect(v.tables).toEqual([expect.stringMatching(/^loose: no platform_id/)]);
    expect(v.keys).toEqual([expect.stringMatching(/^widgets\.widgets_pkey/)]);
    expect(v.foreignKeys).toEqual([expect.stringMatching(/^parts\.parts_widget_fkey/)]);
    expect(v.cascades).toEqual([expect.stringMatching(/^parts\.parts_widget_fkey/)]);
    expect(triggerViolations(bad, {})).toEqual(['parts.parts_lookup writes loose']);
    expect(lookupKindViolations(bad, { A: { table: 'parts', fields: ['widgetId'] }, B: { table: 'nope', fields: ['id'] }, C: { table: 'parts', fields: ['code'] }, D: { table: 'loose', fields: ['id'] } })).toEqual([
      'B: no table nope',
      'C: parts has no column code',
      'D: loose has no platform_id (a lookup names the platform of a tenant row)',
    ]);
  });
});
