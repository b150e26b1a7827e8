import type pg from 'pg';
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
 * reads), as modelRows gives it; undefined when there is none. A prepared statement (`query`).
 */
export async function rowById<T>(pool: pg.Pool, table: string, platformId: string, id: string): Promise<T | undefined> {
  if (!/^[a-z_]+$/.test(table)) throw new Error(`rowById: bad table ${table}`);
  return modelRows<T>(await query(pool, `SELECT * FROM ${table} WHERE id = $1 AND platform_id = $2`, [id, platformId]))[0];
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
