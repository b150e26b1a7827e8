import type pg from 'pg';
import DataLoader from 'dataloader';
import { query } from './db.js';
import { camelCase } from './column-names.js';

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
 * reads), as modelRows gives it; undefined when there is none. The reads of one table asked for in one
 * turn of the event loop (concurrent requests) go as ONE prepared statement at setImmediate (issue 12:
 * the money path reads an account, a customer and a destination per payment); nothing is cached across
 * turns, and each caller gets its own object.
 */
export async function rowById<T>(pool: pg.Pool, table: string, platformId: string, id: string): Promise<T | undefined> {
  return (await rowReader(pool, table).load({ platformId, id })) as T | undefined;
}

interface RowKey {
  platformId: string;
  id: string;
}

const readers = new WeakMap<pg.Pool, Map<string, DataLoader<RowKey, Record<string, unknown> | undefined>>>();

function rowReader(pool: pg.Pool, table: string): DataLoader<RowKey, Record<string, unknown> | undefined> {
  let byTable = readers.get(pool);
  if (!byTable) readers.set(pool, (byTable = new Map()));
  let reader = byTable.get(table);
  if (!reader) {
    if (!/^[a-z_]+$/.test(table)) throw new Error(`rowById: bad table ${table}`);
    // Found by primary key only (the platform condition wrapped in IS TRUE, which no index serves: never
    // a scan of a platform's rows, whatever the statistics say). A row is given only to the key naming
    // its own platform, so an id asked for by two platforms is found for its own only.
    const sql = `SELECT * FROM ${table} WHERE id = ANY(svc_keys($1::text[])) AND (platform_id = ANY($2::text[])) IS TRUE`;
    const keyOf = (platformId: unknown, id: unknown) => `${platformId}\n${id}`;
    reader = new DataLoader<RowKey, Record<string, unknown> | undefined>(
      async (keys) => {
        const rows = modelRows<Record<string, unknown>>(await query(pool, sql, [keys.map((k) => k.id), keys.map((k) => k.platformId)]));
        const byKey = new Map(rows.map((row) => [keyOf(row.platformId, row.id), row]));
        const given = new Set<Record<string, unknown>>();
        return keys.map((k) => {
          const row = byKey.get(keyOf(k.platformId, k.id));
          if (!row) return undefined;
          // One row asked for twice in the batch: each caller gets its own object.
          if (given.has(row)) return { ...row };
          given.add(row);
          return row;
        });
      },
      { cache: false, maxBatchSize: 100, batchScheduleFn: (run) => setImmediate(run) },
    );
    byTable.set(table, reader);
  }
  return reader;
}

/** rowById for many ids at once: the rows found, in no particular order. */
export async function rowsByIds<T>(pool: pg.Pool, table: string, platformId: string, ids: readonly string[]): Promise<T[]> {
  if (!/^[a-z_]+$/.test(table)) throw new Error(`rowsByIds: bad table ${table}`);
  return modelRows<T>(await query(pool, `SELECT * FROM ${table} WHERE id = ANY($1::text[]) AND platform_id = $2`, [ids, platformId]));
}

const INT8 = 20;
const DATE = 1082;

/** pg reads a `date` as local midnight; Prisma gives UTC midnight. */
function utcDate(d: Date): Date {
  return new Date(Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()));
}
