import type pg from 'pg';

/**
 * Issue 12: rows of a raw statement on a hot path (`query` in db.ts) in the shape Prisma gives its
 * models, so the domain code around them does not change: snake_case columns become the models'
 * camelCase fields (the schema maps each field to its snake_case column), int8 columns become
 * bigint (pg hands them over as strings). Timestamps (Date), json/jsonb (parsed), int4 (number),
 * text and booleans come from pg as Prisma gives them.
 */
export function modelRows<T>(result: pg.QueryResult): T[] {
  const fields = result.fields.map((f) => ({ column: f.name, key: camel(f.name), bigint: f.dataTypeID === INT8 }));
  return result.rows.map((row: Record<string, unknown>) => {
    const out: Record<string, unknown> = {};
    for (const f of fields) {
      const v = row[f.column];
      out[f.key] = f.bigint && v !== null && v !== undefined ? BigInt(v as string) : v;
    }
    return out as T;
  });
}

const INT8 = 20;

const names = new Map<string, string>();

function camel(column: string): string {
  let key = names.get(column);
  if (key === undefined) {
    key = column.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
    names.set(column, key);
  }
  return key;
}
