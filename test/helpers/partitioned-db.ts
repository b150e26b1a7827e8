/**
 * Issue 29 (29b): the rehearsal of Citus without Citus. A test database whose tenant tables are
 * hash-partitioned by `platform_id`: PostgreSQL then enforces the rules Citus enforces on distributed
 * tables (every unique key and every foreign key between tenant tables carries the partition column)
 * and prunes partitions where Citus prunes shards (a plain `platform_id = $n`, or `= ANY($n)`).
 *
 * - partitionedTemplate(): from the migrated template (test/helpers/global-setup.ts), a second template
 *   whose tenant tables are swapped for partitioned twins. Everything is derived from the catalog (no
 *   hand list): which tables (those with `platform_id` all of whose unique indexes contain it; the lookup
 *   tables keyed by a global value stay plain), their columns, defaults, checks and comments (LIKE), their
 *   primary keys, uniques and indexes (by their definitions, under their own names: code that reads a
 *   constraint's name sees the same one), their triggers and the foreign keys from and to them.
 *   The test helpers use it when TEST_DB_PARTITIONS is set (global-setup.ts), so existing test files run
 *   on it unchanged (.ci/partitioned-tests).
 * - capturePlans(): the plan of every statement the code executes, nested ones (triggers, functions,
 *   foreign-key checks) included, through auto_explain: each plan arrives at the client as a NOTICE,
 *   collected from the pg pool the service uses (poolOf). The database must carry AUTO_EXPLAIN_SETTINGS
 *   (createTestEnv's `databaseSettings`) so every connection of the pool explains from its first statement.
 * - partitionsTouched(): per partitioned table, the partitions a plan reads or writes.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { poolOf, type PrismaClient } from '../../src/platform/db.js';
import { withDatabase } from './global-setup.js';

export const PARTITION_SUFFIX = '__h';

/** Partition i of table t. */
export function partitionName(table: string, i: number): string {
  return `${table}${PARTITION_SUFFIX}${i}`;
}

/** The template's name: the migrated template's hash, the partition count, and this file's own version. */
export function partitionedTemplateName(templateDb: string, partitions: number): string {
  const self = createHash('sha256').update(readFileSync(fileURLToPath(import.meta.url))).digest('hex').slice(0, 6);
  return `${templateDb.replace(/^svc_tpl_/, 'svc_tplp_')}_${partitions}_${self}`;
}

/**
 * The partitioned twin of `templateDb` (made once, under the same advisory lock as the migrated template;
 * kept like it). Returns its name.
 */
export async function partitionedTemplate(directUrl: string, templateDb: string, partitions = 4): Promise<string> {
  const name = partitionedTemplateName(templateDb, partitions);
  const admin = new pg.Client({ connectionString: directUrl });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock(727002)');
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      const building = `${name}_building`;
      await admin.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
      await admin.query(`CREATE DATABASE "${building}" TEMPLATE "${templateDb}"`);
      const db = new pg.Client({ connectionString: withDatabase(directUrl, building) });
      await db.connect();
      try {
        await partitionByPlatform(db, partitions);
      } finally {
        await db.end();
      }
      // Renamed only when complete: a crash half-way never leaves a template that looks finished.
      await admin.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
    }
  } finally {
    await admin.query('SELECT pg_advisory_unlock(727002)').catch(() => undefined);
    await admin.end();
  }
  return name;
}

const q = (ident: string) => `"${ident.replace(/"/g, '""')}"`;

/** The tables that become partitioned: a platform_id column, and every unique index contains it. */
export async function partitionableTables(db: pg.Client): Promise<string[]> {
  const r = await db.query<{ name: string }>(
    `SELECT c.relname AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute pa ON pa.attrelid = c.oid AND pa.attname = 'platform_id' AND NOT pa.attisdropped
      WHERE n.nspname = 'public' AND c.relkind = 'r' AND NOT c.relispartition
        AND NOT EXISTS (SELECT 1 FROM pg_index x WHERE x.indrelid = c.oid AND x.indisunique
                          AND NOT (pa.attnum = ANY (x.indkey[0:x.indnkeyatts - 1])))
      ORDER BY 1`,
  );
  return r.rows.map((x) => x.name);
}

/**
 * Swaps every partitionable table of `db` for a twin hash-partitioned by platform_id, in one transaction.
 * The rows (a migrated template has few) are copied.
 */
export async function partitionByPlatform(db: pg.Client, partitions: number): Promise<string[]> {
  const tables = await partitionableTables(db);
  if (tables.length === 0) throw new Error('partitionByPlatform: no table has platform_id');
  const oids = (await db.query<{ oid: number }>(`SELECT oid::int FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relname = ANY($1::text[])`, [tables])).rows.map((r) => r.oid);
  const fks = (
    await db.query<{ table: string; name: string; def: string }>(
      `SELECT conrelid::regclass::text AS table, conname AS name, pg_get_constraintdef(oid) AS def
         FROM pg_constraint WHERE contype = 'f' AND conparentid = 0 AND (conrelid = ANY($1::oid[]) OR confrelid = ANY($1::oid[]))
        ORDER BY 1, 2`,
      [oids],
    )
  ).rows;
  const indexes = (
    await db.query<{ table: string; index: string; def: string; con: string | null; condef: string | null }>(
      `SELECT t.relname AS table, i.relname AS index, pg_get_indexdef(x.indexrelid) AS def,
              c.conname AS con, pg_get_constraintdef(c.oid) AS condef
         FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
         LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.conrelid = x.indrelid AND c.contype IN ('p', 'u', 'x')
        WHERE x.indrelid = ANY($1::oid[]) ORDER BY x.indisprimary DESC, 1, 2`,
      [oids],
    )
  ).rows;
  const triggers = (
    await db.query<{ table: string; def: string }>(
      `SELECT tgrelid::regclass::text AS table, pg_get_triggerdef(oid) AS def FROM pg_trigger
        WHERE tgrelid = ANY($1::oid[]) AND NOT tgisinternal ORDER BY 1, tgname`,
      [oids],
    )
  ).rows;
  const comments = (
    await db.query<{ table: string; comment: string }>(
      `SELECT relname AS table, obj_description(oid, 'pg_class') AS comment FROM pg_class WHERE oid = ANY($1::oid[]) AND obj_description(oid, 'pg_class') IS NOT NULL`,
      [oids],
    )
  ).rows;
  const columns = new Map(
    (
      await db.query<{ table: string; cols: string[] }>(
        `SELECT c.relname AS table, array_agg(a.attname::text ORDER BY a.attnum) AS cols
           FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
          WHERE c.oid = ANY($1::oid[]) GROUP BY 1`,
        [oids],
      )
    ).rows.map((r) => [r.table, r.cols]),
  );

  await db.query('BEGIN');
  try {
    for (const f of fks) await db.query(`ALTER TABLE ${f.table} DROP CONSTRAINT ${q(f.name)}`);
    for (const t of tables) {
      const twin = `${t}__partitioned`;
      await db.query(
        `CREATE TABLE public.${q(twin)} (LIKE public.${q(t)} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING COMMENTS INCLUDING STORAGE INCLUDING COMPRESSION INCLUDING GENERATED INCLUDING IDENTITY)
           PARTITION BY HASH (platform_id)`,
      );
      for (let i = 0; i < partitions; i++) {
        await db.query(`CREATE TABLE public.${q(partitionName(t, i))} PARTITION OF public.${q(twin)} FOR VALUES WITH (MODULUS ${partitions}, REMAINDER ${i})`);
      }
      const cols = columns.get(t)!.map(q).join(', ');
      await db.query(`INSERT INTO public.${q(twin)} (${cols}) SELECT ${cols} FROM public.${q(t)}`);
      await db.query(`DROP TABLE public.${q(t)}`);
      await db.query(`ALTER TABLE public.${q(twin)} RENAME TO ${q(t)}`);
    }
    // Keys and indexes under their own names (and so the partitions' indexes are attached to them).
    for (const i of indexes) {
      if (i.con && i.condef) await db.query(`ALTER TABLE public.${q(i.table)} ADD CONSTRAINT ${q(i.con)} ${i.condef}`);
      else await db.query(i.def);
    }
    for (const t of triggers) await db.query(t.def);
    for (const c of comments) await db.query(`COMMENT ON TABLE public.${q(c.table)} IS ${pg.escapeLiteral(c.comment)}`);
    for (const f of fks) await db.query(`ALTER TABLE ${f.table} ADD CONSTRAINT ${q(f.name)} ${f.def}`);
    await db.query('COMMIT');
  } catch (err) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
  await db.query('ANALYZE');
  return tables;
}

/**
 * Database settings (ALTER DATABASE … SET) under which every statement's plan, nested ones included,
 * is sent to the client as a NOTICE (auto_explain: PostgreSQL's contrib module, superuser to load).
 * log_analyze with timing off: partitions pruned while executing show `Actual Loops: 0`.
 */
export const AUTO_EXPLAIN_SETTINGS: Record<string, string> = {
  session_preload_libraries: 'auto_explain',
  'auto_explain.log_min_duration': '0',
  'auto_explain.log_format': 'json',
  'auto_explain.log_nested_statements': 'on',
  'auto_explain.log_level': 'notice',
  'auto_explain.log_analyze': 'on',
  'auto_explain.log_timing': 'off',
  'auto_explain.log_triggers': 'off',
  client_min_messages: 'notice',
};

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Alias?: string;
  'Actual Loops'?: number;
  'Subplans Removed'?: number;
  Plans?: PlanNode[];
  [k: string]: unknown;
}

export interface CapturedPlan {
  /** The statement's text as the server saw it (a function's statement for nested ones). */
  query: string;
  plan: PlanNode;
}

export interface PlanCapture {
  plans: CapturedPlan[];
  /** Forgets what was captured so far. */
  clear(): void;
  stop(): void;
}

const hooked = new WeakSet<object>();
const sinks = new WeakMap<pg.Pool, Set<(p: CapturedPlan) => void>>();

/** Parses one auto_explain NOTICE ("duration: … ms  plan:\n{json}"); undefined for other notices. */
export function parseAutoExplain(message: string): CapturedPlan | undefined {
  const at = message.indexOf('plan:');
  if (!message.startsWith('duration:') || at < 0) return undefined;
  const body = JSON.parse(message.slice(at + 'plan:'.length)) as { 'Query Text'?: string; Plan: PlanNode };
  return { query: body['Query Text'] ?? '', plan: body.Plan };
}

/**
 * Collects the plans auto_explain sends on every connection of the service's pool (the database must
 * carry AUTO_EXPLAIN_SETTINGS). Connections already open are hooked when next handed out.
 */
export function capturePlans(prisma: PrismaClient): PlanCapture {
  const pool = poolOf(prisma);
  let set = sinks.get(pool);
  if (!set) {
    const s = new Set<(p: CapturedPlan) => void>();
    sinks.set(pool, (set = s));
    const hook = (client: pg.PoolClient) => {
      if (hooked.has(client)) return;
      hooked.add(client);
      client.on('notice', (msg) => {
        const p = parseAutoExplain(String(msg.message ?? ''));
        if (p) for (const sink of s) sink(p);
      });
    };
    pool.on('connect', hook);
    pool.on('acquire', hook);
  }
  const plans: CapturedPlan[] = [];
  const sink = (p: CapturedPlan) => plans.push(p);
  set.add(sink);
  return { plans, clear: () => void plans.splice(0), stop: () => void set!.delete(sink) };
}

/** The table a partition belongs to (partitions are named by partitionName), or undefined for a plain table. */
export function parentOf(relation: string): string | undefined {
  const m = new RegExp(`^(.*)${PARTITION_SUFFIX}\\d+$`).exec(relation);
  return m ? m[1] : undefined;
}

/**
 * Per partitioned table, the partitions `plan` reads or writes: scans left after planning and start-up
 * pruning, minus those never executed (run-time pruning; seen when the plan was analyzed). Plain tables
 * are not listed.
 */
export function partitionsTouched(plan: PlanNode): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const walk = (node: PlanNode) => {
    const rel = node['Relation Name'];
    const parent = rel ? parentOf(rel) : undefined;
    if (rel && parent && node['Actual Loops'] !== 0) {
      let s = out.get(parent);
      if (!s) out.set(parent, (s = new Set()));
      s.add(rel);
    }
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(plan);
  return out;
}

/** The tables of `plan` for which more than one partition is touched, as `table ×n`. */
export function unprunedTables(plan: PlanNode): string[] {
  return [...partitionsTouched(plan)].filter(([, s]) => s.size > 1).map(([t, s]) => `${t} ×${s.size}`);
}
