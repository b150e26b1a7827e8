import type pg from 'pg';
import { COORDINATOR_LOCAL_TABLES, GLOBAL_LOOKUP_TABLES, PLATFORM_WIDE_TABLES, TENANT_COLUMN } from '../platform/tenant-tables.js';

/**
 * Issue 29: `db:migrate` on Citus (docs/deploy.md "Citus"). When the database has the `citus` extension,
 * the migrated schema is distributed by platform: every tenant table (one with `platform_id`) is a
 * distributed table on `platform_id`, all co-located, so the rows one payment touches live on one worker;
 * the platform-wide tables (src/platform/tenant-tables.ts) are reference tables, copied to every node,
 * except the coordinator's own (`_migrations`); the global lookup tables are distributed by the value looked
 * up (or reference tables, when they have unique keys on different columns). The plan is worked out from the catalog each run, so tables added by later migrations are distributed
 * too, and a table Citus already knows is left alone (idempotent).
 */

export interface CatalogTable {
  name: string;
  columns: string[];
}
export interface CatalogForeignKey {
  table: string;
  refTable: string;
}

export interface DistributedTable {
  table: string;
  column: string;
  /** Citus `colocate_with`: the tenant tables' anchor, or 'none' for a table of its own group. */
  colocateWith: string;
}

export interface CitusPlan {
  /** create_reference_table, in foreign-key order (a referenced table first). */
  reference: string[];
  /** create_distributed_table, in foreign-key order. */
  distributed: DistributedTable[];
  /** Left on the coordinator as plain tables. */
  local: string[];
}

/**
 * The plan for `tables` (public schema). `known` are tables Citus already distributes or replicates: they
 * are left out of the plan, and the first known tenant table (by name) anchors the co-location group so
 * that a table added later joins the group of the existing ones.
 */
export function citusPlan(tables: readonly CatalogTable[], foreignKeys: readonly CatalogForeignKey[], known: ReadonlySet<string> = new Set()): CitusPlan {
  const byName = [...tables].sort((a, b) => a.name.localeCompare(b.name));
  const local = byName.filter((t) => COORDINATOR_LOCAL_TABLES.includes(t.name)).map((t) => t.name);
  const lookups = byName.filter((t) => t.name in GLOBAL_LOOKUP_TABLES);
  const tenants = byName.filter((t) => !(t.name in GLOBAL_LOOKUP_TABLES) && t.columns.includes(TENANT_COLUMN));
  const wide = byName.filter((t) => !COORDINATOR_LOCAL_TABLES.includes(t.name) && !(t.name in GLOBAL_LOOKUP_TABLES) && !t.columns.includes(TENANT_COLUMN));
  const unlisted = wide.filter((t) => !(t.name in PLATFORM_WIDE_TABLES)).map((t) => t.name);
  if (unlisted.length > 0) {
    throw new Error(`tables without ${TENANT_COLUMN} not listed in PLATFORM_WIDE_TABLES (src/platform/tenant-tables.ts): ${unlisted.join(', ')}`);
  }
  for (const t of lookups) {
    const column = GLOBAL_LOOKUP_TABLES[t.name]!.distributeBy;
    if (column !== null && !t.columns.includes(column)) throw new Error(`lookup table ${t.name} has no column ${column} to distribute by`);
  }
  const referenceSet = new Set([...wide, ...lookups.filter((t) => GLOBAL_LOOKUP_TABLES[t.name]!.distributeBy === null)].map((t) => t.name).sort());
  for (const fk of foreignKeys) {
    if (referenceSet.has(fk.table) && !referenceSet.has(fk.refTable)) {
      throw new Error(`reference table ${fk.table} has a foreign key to ${fk.refTable}, which is not a reference table (Citus refuses it)`);
    }
  }
  const tenantOrder = inForeignKeyOrder(tenants.map((t) => t.name), foreignKeys);
  // The first table distributed (one that references no other tenant table) founds the group.
  const anchor = tenants.find((t) => known.has(t.name))?.name ?? tenantOrder[0];
  const distributed: DistributedTable[] = [
    ...tenantOrder.map((table) => ({
      table,
      column: TENANT_COLUMN,
      colocateWith: table === anchor ? 'none' : anchor!,
    })),
    ...lookups.flatMap((t) => {
      const column = GLOBAL_LOOKUP_TABLES[t.name]!.distributeBy;
      return column === null ? [] : [{ table: t.name, column, colocateWith: 'none' }];
    }),
  ];
  return {
    reference: inForeignKeyOrder([...referenceSet], foreignKeys).filter((t) => !known.has(t)),
    distributed: distributed.filter((d) => !known.has(d.table)),
    local,
  };
}

/** `names` with every table after the tables of `names` it references (a self-reference is ignored). */
function inForeignKeyOrder(names: readonly string[], foreignKeys: readonly CatalogForeignKey[]): string[] {
  const set = new Set(names);
  const out: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') throw new Error(`foreign keys form a cycle through ${name}`);
    state.set(name, 'visiting');
    for (const fk of foreignKeys) if (fk.table === name && fk.refTable !== name && set.has(fk.refTable)) visit(fk.refTable);
    state.set(name, 'done');
    out.push(name);
  };
  for (const n of names) visit(n);
  return out;
}

type Queryable = Pick<pg.Client, 'query'>;

export async function hasCitus(client: Queryable): Promise<boolean> {
  return ((await client.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`)).rowCount ?? 0) > 0;
}

/** Tables Citus already knows (distributed, reference or Citus-managed local). */
export async function citusKnownTables(client: Queryable): Promise<Set<string>> {
  const r = await client.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'`,
  );
  return new Set(r.rows.map((x) => x.name));
}

async function readCatalog(client: Queryable): Promise<{ tables: CatalogTable[]; foreignKeys: CatalogForeignKey[] }> {
  const tables = await client.query<CatalogTable>(
    `SELECT c.relname AS name, array_agg(a.attname::text ORDER BY a.attnum) AS columns
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      GROUP BY c.relname`,
  );
  const foreignKeys = await client.query<CatalogForeignKey>(
    `SELECT t.relname AS table, r.relname AS "refTable"
       FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = 'public' AND c.contype = 'f' AND c.conparentid = 0`,
  );
  return { tables: tables.rows, foreignKeys: foreignKeys.rows };
}

/**
 * The session settings a migration needs on Citus: triggers stay on the tenant tables (ledger balance,
 * lookups, status guards) and run on the shards; DDL on distributed tables inside a migration's
 * transaction goes over one connection per node, so a later statement of the file can see it.
 */
export async function prepareCitusSession(client: Queryable): Promise<void> {
  await client.query(`SET citus.enable_unsafe_triggers = on`);
  await client.query(`SET citus.multi_shard_modify_mode = 'sequential'`);
}

/**
 * Distributes what the plan says (nothing when the schema is already distributed) and makes every function
 * of the public schema known to the workers (a trigger function calling another by name needs both there).
 * Runs in the caller's transaction when there is one. Returns what it did, one line per call.
 */
export async function distributeOnCitus(client: Queryable): Promise<string[]> {
  const { tables, foreignKeys } = await readCatalog(client);
  const plan = citusPlan(tables, foreignKeys, await citusKnownTables(client));
  const done: string[] = [];
  for (const t of plan.reference) {
    await client.query(`SELECT create_reference_table($1::regclass)`, [quoteIdent(t)]);
    done.push(`reference ${t}`);
  }
  for (const d of plan.distributed) {
    await client.query(`SELECT create_distributed_table($1::regclass, $2, colocate_with => $3)`, [quoteIdent(d.table), d.column, d.colocateWith]);
    done.push(`distributed ${d.table} by ${d.column}${d.colocateWith === 'none' ? '' : ` with ${d.colocateWith}`}`);
  }
  const functions = await client.query<{ fn: string }>(
    `SELECT p.oid::regprocedure::text AS fn FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'public' AND p.prokind = 'f'
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
        AND NOT EXISTS (SELECT 1 FROM pg_dist_object o WHERE o.classid = 'pg_proc'::regclass AND o.objid = p.oid)
      ORDER BY 1`,
  );
  for (const f of functions.rows) {
    await client.query(`SELECT create_distributed_function($1)`, [f.fn]);
    done.push(`function ${f.fn}`);
  }
  return done;
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
