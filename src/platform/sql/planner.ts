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
 * `(SELECT $n::type)::type`, an InitPlan the plan reads when it runs (an index condition `id = ANY(…)` on it is
 * still an index condition). Postgres plans a named prepared statement for each call's values on its first five
 * calls, then keeps its cached generic plan only while that costs less than the average plan made for the values
 * plus a planning charge (plancache.c, choose_custom_plan); an array's length, seen in a plan for the values, made
 * a small batch's plan look cheaper than the generic one (which counts 10 elements), so the money path's batched
 * statements were planned again on most calls. A value the planner cannot see costs the same in both plans: after
 * five calls, one generic plan per connection, never re-planned (test/platform/generic-plans.test.ts;
 * docs/decisions.md, 24k). No session setting is involved, so it holds behind PgBouncer in transaction mode; the
 * plan is the one `plan_cache_mode = force_generic_plan` would choose. `type` is a type name (`text[]`).
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
