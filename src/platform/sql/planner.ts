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
 * The keys of a text[] parameter as rows the planner counts as one row (`svc_keys`, migration
 * 20261127000000): a statement looking rows up by them keeps one generic plan per connection instead of
 * being planned on every call with the batch's size.
 */
export function keysPlannedAsOne(textArray: string): string {
  return `svc_keys(${textArray})`;
}
