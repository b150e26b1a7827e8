import type { PrismaClient } from './db.js';

/**
 * Platform groups (issue 29 item 2, docs/decisions.md "29a"): the sets of platforms one sweep statement
 * may cover so that it stays on one shard. Every sweeper that takes rows `FOR UPDATE SKIP LOCKED` runs
 * its statement once per group, naming the group with a plain `platform_id = ANY($1)` the planner prunes on.
 *
 *   plain Postgres                  one group holding every platform
 *   tenant table hash-partitioned   one group per partition of `table` (the CI rehearsal, issue 29 item 3)
 *   Citus, `table` distributed      one group per shard of `table` (get_shard_id_for_distribution_column):
 *                                   Citus takes row locks only in a statement routed to one shard
 *
 * `table` is the tenant table the statement reads; the tenant tables are co-located, so any of them
 * gives the same groups on Citus. Read at each sweep pass (one small statement): a platform created a
 * moment ago is swept at once. Groups are ordered, and each lists its platforms sorted. Platform ids are uuids (30e):
 * `min(uuid)` does not exist before PostgreSQL 16, and text[] is what every driver hands back as strings, hence `::text`
 * (a lowercase uuid's text sorts as the uuid does).
 */
export async function platformGroups(prisma: Pick<PrismaClient, '$queryRawUnsafe'>, table: string): Promise<string[][]> {
  if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`platformGroups: not a table name: ${table}`);
  const [layout] = await prisma.$queryRawUnsafe<Array<{ citus: boolean; hash_partitioned: boolean }>>(
    `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS citus,
            EXISTS (SELECT 1 FROM pg_partitioned_table pt JOIN pg_attribute a ON a.attrelid = pt.partrelid AND a.attnum = pt.partattrs[0]
                     WHERE pt.partrelid = to_regclass($1) AND pt.partstrat = 'h' AND pt.partnatts = 1 AND a.attname = 'platform_id') AS hash_partitioned`,
    table,
  );
  let rows: Array<{ platforms: string[] }>;
  if (layout?.citus && (await distributed(prisma, table))) {
    rows = await prisma.$queryRawUnsafe(
      `SELECT array_agg(id::text ORDER BY id) AS platforms FROM platforms GROUP BY get_shard_id_for_distribution_column($1::regclass, id) ORDER BY min(id::text)`,
      table,
    );
  } else if (layout?.hash_partitioned) {
    rows = await prisma.$queryRawUnsafe(
      `WITH parts AS (
         SELECT c.oid, regexp_match(pg_get_expr(c.relpartbound, c.oid), 'modulus (\\d+), remainder (\\d+)') AS mr
           FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = to_regclass($1))
       SELECT array_agg(p.id::text ORDER BY p.id) AS platforms
         FROM platforms p JOIN parts ON satisfies_hash_partition(to_regclass($1)::oid, parts.mr[1]::int, parts.mr[2]::int, p.id)
        GROUP BY parts.oid ORDER BY min(p.id::text)`,
      table,
    );
  } else {
    rows = await prisma.$queryRawUnsafe(`SELECT array_agg(id::text ORDER BY id) AS platforms FROM platforms HAVING count(*) > 0`);
  }
  return rows.map((r) => r.platforms);
}

async function distributed(prisma: Pick<PrismaClient, '$queryRawUnsafe'>, table: string): Promise<boolean> {
  const [row] = await prisma.$queryRawUnsafe<Array<{ hash: boolean }>>(
    `SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = to_regclass($1) AND partmethod = 'h') AS hash`,
    table,
  );
  return row?.hash === true;
}

/**
 * Runs `pass` once per platform group of `table` (see platformGroups) and adds up what each returned:
 * a sweep's statement per group, each on one shard. A group's failure is not another's: the others
 * still run, then the first failure is thrown.
 */
export async function perPlatformGroup(prisma: Pick<PrismaClient, '$queryRawUnsafe'>, table: string, pass: (platforms: string[]) => Promise<number>): Promise<number> {
  let total = 0;
  let failure: unknown;
  for (const group of await platformGroups(prisma, table)) {
    try {
      total += await pass(group);
    } catch (err) {
      failure ??= err;
    }
  }
  if (failure !== undefined) throw failure;
  return total;
}

/** The rows `read` finds in each platform group of `table` (see platformGroups), one statement per group, in order. */
export async function readPerPlatformGroup<T>(prisma: Pick<PrismaClient, '$queryRawUnsafe'>, table: string, read: (platforms: string[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (const group of await platformGroups(prisma, table)) out.push(...(await read(group)));
  return out;
}
