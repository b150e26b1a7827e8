import type pg from 'pg';
import { coalescer, type Coalescer } from './coalesce.js';
import { query } from './db.js';
import { camelCase } from './column-names.js';
import { sqlIdentifier } from './sql/identifiers.js';
import { plannedForAnyValue } from './sql/planner.js';

/**
 * Issue 12: rows of a raw statement on a hot path (`query` in db.ts) in the shape Prisma gives its
 * models, so the domain code around them does not change: snake_case columns become the models'
 * camelCase fields (the schema maps each field to its snake_case column), int8 columns become
 * bigint (pg hands them over as strings). Timestamps (Date), json/jsonb (parsed), int4 (number),
 * text and booleans come from pg as Prisma gives them.
 */
export function modelRows<T>(result: pg.QueryResult): T[] {
  const fields = result.fields.map((f) => ({ column: f.name, key: camelCase(f.name), type: f.dataTypeID }));
  return result.rows.map((row: Record<string, unknown>) => {
    const out: Record<string, unknown> = {};
    for (const f of fields) {
      const v = row[f.column];
      out[f.key] = v === null || v === undefined ? v : f.type === INT8 ? BigInt(v as string) : f.type === DATE ? utcDate(v as Date) : v;
    }
    return out as T;
  });
}

/**
 * The row of `table` with this id, of this platform only (the tenant scope tenantDb adds to Prisma's
 * reads), as modelRows gives it; undefined when there is none. Read with the other reads of the table
 * asked for in the same turn of the event loop (keyedReads; issue 12: the money path reads an account,
 * a customer and a destination per payment).
 */
export async function rowById<T>(pool: pg.Pool, table: string, platformId: string, id: string): Promise<T | undefined> {
  return ((await rowReader(table)(pool).load({ platformId, id })) ?? undefined) as T | undefined;
}

const rowReaders = new Map<string, (pool: pg.Pool) => Coalescer<RowKey, Record<string, unknown> | null>>();

function rowReader(table: string): (pool: pg.Pool) => Coalescer<RowKey, Record<string, unknown> | null> {
  let reader = rowReaders.get(table);
  if (!reader) {
    // Found by primary key (platform_id, id) (issue 29): the platform is a plain leading condition the
    // key's first column serves, and a planner prunes partitions and shards on, in a plan for any values too
    // (29b: `= ANY($2)` of a generic plan touched every partition); keyedReads batches per platform.
    const sql = `SELECT * FROM ${sqlIdentifier(table)} WHERE platform_id = $2 AND id = ANY(${plannedForAnyValue('$1', 'text[]')})`;
    reader = keyedReads<Record<string, unknown>, Record<string, unknown>>({
      read: async (pool, ids, platformId) => modelRows(await query(pool, sql, [ids, platformId])),
      keyOf: (row) => [row.platformId, row.id],
      // One row asked for twice in the batch: each caller gets its own object.
      pick: (row, again) => (again ? { ...row } : row),
    });
    rowReaders.set(table, reader);
  }
  return reader;
}

/** A read by key: a row's id and the platform asking for it. */
export interface RowKey {
  platformId: string;
  id: string;
}

/**
 * Reads by (platform, id) key on a pool, per pool: the keys of one platform asked for in one turn of the
 * event loop are read by ONE statement at setImmediate (coalescer: nothing is kept across turns, every read
 * is sent after it was asked for; issue 29: one batch per platform, so each statement stays on the
 * platform's partition or shard). `read` gets the ids and their platform; a row is handed
 * only to the keys naming its id AND its platform (`keyOf`), so another platform's id is not found even
 * when the statement is wrong; `pick` makes each caller's value (`again`: the row was
 * already handed to an earlier key of the batch).
 */
export function keyedReads<Row, R>(opts: {
  read(pool: pg.Pool, ids: string[], platformId: string): Promise<Row[]>;
  keyOf(row: Row): [platformId: unknown, id: unknown];
  pick(row: Row, again: boolean): R;
}): (pool: pg.Pool) => Coalescer<RowKey, R | null> {
  const readers = new WeakMap<pg.Pool, Coalescer<RowKey, R | null>>();
  const keyOf = (platformId: unknown, id: unknown) => `${platformId}\n${id}`;
  return (pool) => {
    let reader = readers.get(pool);
    if (!reader) {
      reader = coalescer<RowKey, R | null>({
        flush: 'turn',
        maxBatch: 100,
        key: (k) => k.platformId,
        run: async (keys) => {
          const rows = await opts.read(pool, keys.map((k) => k.id), keys[0]!.platformId);
          const byKey = new Map(rows.map((row) => [keyOf(...opts.keyOf(row)), row]));
          const given = new Set<Row>();
          return keys.map((k) => {
            const row = byKey.get(keyOf(k.platformId, k.id));
            if (row === undefined) return null;
            const again = given.has(row);
            given.add(row);
            return opts.pick(row, again);
          });
        },
      });
      readers.set(pool, reader);
    }
    return reader;
  };
}

/** rowById for many ids at once: the rows found, in no particular order. */
export async function rowsByIds<T>(pool: pg.Pool, table: string, platformId: string, ids: readonly string[]): Promise<T[]> {
  return modelRows<T>(await query(pool, `SELECT * FROM ${sqlIdentifier(table)} WHERE platform_id = $2 AND id = ANY(${plannedForAnyValue('$1', 'text[]')})`, [ids, platformId]));
}

const INT8 = 20;
const DATE = 1082;

/** pg reads a `date` as local midnight; Prisma gives UTC midnight. */
function utcDate(d: Date): Date {
  return new Date(Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()));
}
