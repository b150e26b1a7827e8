import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/app.js';
import { anApprovedCustomer } from '../helpers/builders.js';
import { onStatement, poolOf } from '../../src/platform/db.js';
import { rowById } from '../../src/platform/raw-rows.js';

/**
 * Issue 12: rowById, the money path's raw reads, sends the reads of one table asked for in one turn of
 * the event loop as one statement per platform (issue 29, 29a: each on one shard) — and still scopes each
 * to the platform that asked.
 */
let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env.close();
});

describe('rowById', () => {
  it('reads asked for together are one statement per platform; a row is found only for its own platform, each caller getting its own object', async () => {
    const [p1, p2] = [await env.platform(), await env.platform()];
    const c1 = await anApprovedCustomer(env, p1, ['USD']);
    const c2 = await anApprovedCustomer(env, p2, ['USD']);
    const pool = poolOf(env.deps.prisma);
    const statements: Array<{ text: string; values?: unknown[] }> = [];
    const stop = onStatement(env.deps.prisma, (text, values) => statements.push({ text, values }));
    let reads: Array<Record<string, unknown> | undefined>;
    try {
      reads = await Promise.all([
        rowById<Record<string, unknown>>(pool, 'customers', p1.platformId, c1.customerId),
        // Another platform's id: not found (its platform's statement does not read that row).
        rowById<Record<string, unknown>>(pool, 'customers', p2.platformId, c1.customerId),
        rowById<Record<string, unknown>>(pool, 'customers', p1.platformId, c1.customerId),
        rowById<Record<string, unknown>>(pool, 'customers', p2.platformId, c2.customerId),
        rowById<Record<string, unknown>>(pool, 'customers', p1.platformId, 'Customer:00000000-0000-0000-0000-000000000000'),
      ]);
    } finally {
      stop();
    }
    // One statement per platform, each naming only its own: [ids, platform].
    expect(statements).toHaveLength(2);
    expect(statements.map((s) => s.values![1]).sort()).toEqual([p1.platformId, p2.platformId].sort());
    expect(reads[0]).toMatchObject({ id: c1.customerId, platformId: p1.platformId, status: 'APPROVED' });
    expect(reads[1]).toBeUndefined();
    expect(reads[2]).toEqual(reads[0]);
    expect(reads[2]).not.toBe(reads[0]);
    expect(reads[3]).toMatchObject({ id: c2.customerId, platformId: p2.platformId });
    expect(reads[4]).toBeUndefined();
  });
});
