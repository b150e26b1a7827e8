import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/app.js';
import { createPrisma, poolOf, query, type PrismaClient } from '../../src/platform/db.js';
import { plannedForAnyValue } from '../../src/platform/sql/planner.js';
import { claimSubmissions, recordSubmissions } from '../../src/domains/payments/money-path.repo.js';

/**
 * Issue 24 (24k): the money path's batched statements keep one cached generic plan per connection
 * (plannedForAnyValue, src/platform/sql/planner.ts) instead of being planned again for each batch's size.
 * Observed where Postgres counts it: `pg_prepared_statements.generic_plans` / `custom_plans` of the
 * connection's named statement. Postgres plans a prepared statement for its values on its first five calls;
 * from then on it uses the generic plan only while that costs less than the average plan made for the
 * values (plus a planning charge). A pool of one connection, so every call lands on the same one.
 */
let env: TestEnv;
let prisma: PrismaClient;
const CALLS = 12;

beforeAll(async () => {
  env = await createTestEnv();
  prisma = createPrisma(env.databaseUrl, { poolMax: 1, preparedStatements: env.config.DATABASE_PREPARED_STATEMENTS });
});
afterAll(async () => {
  await poolOf(prisma).end();
  await env.close();
});

/** The plan counts of the connection's prepared statement whose text starts with `start`. */
async function planCounts(start: string): Promise<{ generic: number; custom: number }> {
  const r = await poolOf(prisma).query<{ generic: string; custom: string }>(
    `SELECT generic_plans AS generic, custom_plans AS custom FROM pg_prepared_statements WHERE statement LIKE $1 || '%'`,
    [start],
  );
  expect(r.rows).toHaveLength(1);
  return { generic: Number(r.rows[0]!.generic), custom: Number(r.rows[0]!.custom) };
}

/** Batches of 1, 2 and 3 keys, in turn: the sizes a worker's batches have under a light load. */
const ids = (call: number) => Array.from({ length: 1 + (call % 3) }, () => `Transaction:${randomUUID()}`);

// Named statements only: behind a pooler that cannot track them (DATABASE_PREPARED_STATEMENTS=false) every
// statement is unnamed and planned on each call, whatever its text.
describe.skipIf(process.env.DATABASE_PREPARED_STATEMENTS === 'false')('plannedForAnyValue', () => {
  it('a key array seen by the planner: each small batch is planned again; planned for any value: the generic plan from the sixth call on', async () => {
    // A table of the key's shape, large enough that each key looked up has a cost the planner counts.
    const pool = poolOf(prisma);
    await pool.query(`CREATE TABLE plan_probe (platform_id text, id text, PRIMARY KEY (platform_id, id))`);
    await pool.query(`INSERT INTO plan_probe SELECT 'P' || (i % 4), 'K' || i FROM generate_series(1, 40000) i`);
    await pool.query(`ANALYZE plan_probe`);
    const seen = `SELECT k.id FROM plan_probe k WHERE k.platform_id = $1 AND k.id = ANY($2::text[])`;
    const unseen = `SELECT k.id FROM plan_probe k WHERE k.platform_id = $1 AND k.id = ANY(${plannedForAnyValue('$2', 'text[]')})`;
    for (let call = 0; call < CALLS; call++) {
      await query(pool, seen, ['P1', ids(call)]);
      await query(pool, unseen, ['P1', ids(call)]);
    }
    // The array's length, seen in a plan for the values, makes a batch of 1–3 look cheaper than the generic plan's 10 keys.
    expect(await planCounts(seen)).toEqual({ generic: 0, custom: CALLS });
    expect(await planCounts(unseen)).toEqual({ generic: CALLS - 5, custom: 5 });
  });

  it("the worker's claim and submission record keep their generic plan whatever the batch's size", async () => {
    const platformId = (await env.platform()).platformId;
    const pool = poolOf(prisma);
    const now = new Date();
    for (let call = 0; call < CALLS; call++) {
      const batch = ids(call);
      expect(await claimSubmissions(pool, platformId, batch, now)).toEqual([]);
      const recorded = await recordSubmissions(pool, platformId, batch.map((transactionId) => ({ transactionId, reference: `ref-${transactionId}`, submittedAt: now, reconcileAfter: null })));
      expect(recorded.size).toBe(0);
    }
    expect(await planCounts('UPDATE transactions t SET submitted_at = $1')).toEqual({ generic: CALLS - 5, custom: 5 });
    expect(await planCounts('UPDATE transactions t SET rail_reference = m.ref')).toEqual({ generic: CALLS - 5, custom: 5 });
  });
});
