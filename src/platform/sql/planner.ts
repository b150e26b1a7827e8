import { Prisma } from '../../generated/prisma/client.js';

/*
 * Planner hints of the money path's statements (issue 24): each named by what it makes Postgres do, so
 * domain SQL reads as plain rules. The measurements that justified them are in docs/decisions.md
 * ("Money path: planner hints").
 */

/**
 * `conditions` checked on the rows the key index found, never used to choose an index: wrapped as
 * `(…) IS TRUE`, which no index matches. Statistics taken while a table was small (a fresh platform's
 * rows look few) otherwise lead the planner to scan every row of the platform, or every PROCESSING one.
 */
export function checkedAfterKeyLookup(conditions: string): string {
  return `(${conditions}) IS TRUE`;
}

/** checkedAfterKeyLookup for a Prisma.Sql fragment. */
export function checkedAfterKeyLookupSql(conditions: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(${conditions}) IS TRUE`;
}

/**
 * A bind parameter (`$n`, or a value of a Prisma.Sql fragment) the planner plans without looking at its value:
 * `(SELECT $n::type)::type`, an InitPlan the plan reads when it runs (an index condition `id = ANY(…)` on it stays
 * an index condition). Postgres plans a named prepared statement for each call's values on its first five calls,
 * then keeps its cached generic plan only while that costs less than the average plan made for the values plus a
 * planning charge (plancache.c, choose_custom_plan). A value it sees moves the estimate: a key array's length (the
 * generic plan counts 10 keys, so a batch of one to eight looked cheaper planned afresh), a status's share of the
 * table (even through checkedAfterKeyLookup's `IS TRUE`, whose selectivity is its condition's). Hidden, both plans
 * cost the same and the connection keeps the generic one from the sixth call on, planning again only when a table
 * the statement reads is vacuumed or analyzed (test/platform/generic-plans.test.ts; docs/decisions.md, 24k). No
 * session setting is involved, so it holds behind PgBouncer in transaction mode. For values that only feed a key
 * lookup or filter the rows it found — never the platform, on which partitions and shards are pruned at planning.
 * (svc_keys, migration 20261127000000, meant the same and did not: a STABLE function is evaluated for estimates.)
 * `type` is a type name (`text[]`).
 */
export function plannedForAnyValue(param: string, type: string): string {
  const t = sqlType(type);
  return `(SELECT ${param}::${t})::${t}`;
}

/** plannedForAnyValue for a value of a Prisma.Sql fragment (it becomes the fragment's bind parameter). */
export function plannedForAnyValueSql(value: unknown, type: string): Prisma.Sql {
  const t = Prisma.raw(sqlType(type));
  return Prisma.sql`(SELECT ${value}::${t})::${t}`;
}

function sqlType(type: string): string {
  if (!/^[a-z_][a-z0-9_]*(\[\])?$/.test(type)) throw new Error(`not an SQL type name: ${JSON.stringify(type)}`);
  return type;
}
