import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv } from '../helpers/app.js';
import { aFundedUsdPayer, expectLedgerConsistent } from '../helpers/builders.js';
import { pruneOnce } from '../../src/platform/retention.js';

/**
 * Issue 30 (30f): the status history is pruned like the other tables that only grow. A payment's (and its
 * quote's) status changes older than STATUS_CHANGE_RETENTION_DAYS are deleted by the retention pass; its
 * customer's are kept (KYC holds are counted from them); 0 keeps everything. The payment still reads, and its
 * states stay listed in the events log.
 */
describe('status history retention', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
  }, 180_000);
  afterAll(async () => {
    await env.close();
  });

  it("deletes a payment's history past the window, keeps its customer's, and keeps the payment and its events listed", async () => {
    const workers = env.startWorkers();
    const p = await env.platform();
    const { customerId, usd, dest } = await aFundedUsdPayer(env, p);
    // A KYC hold in the customer's history (verification.jobs.ts counts them).
    await env.deps.prisma.$executeRawUnsafe(
      `INSERT INTO status_changes (id, platform_id, machine, resource_id, event, from_status, to_status) VALUES (gen_random_uuid(), $1::uuid, 'customer', svc_resource_key($2), 'hold', 'APPROVED', 'HOLD')`,
      p.platformId, customerId);
    const res = await p.request({
      method: 'POST',
      url: '/quotes',
      payload: { source: { sourceType: 'ACCOUNT', accountId: usd }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 2_500, immediatelyExecute: true },
    });
    expect(res.statusCode, res.body).toBe(201);
    const transactionId = res.json().transactionId as string;
    try {
      await eventually(async () => (await p.request({ method: 'GET', url: `/transactions/${transactionId}` })).json().status === 'COMPLETED', 30_000);
    } finally {
      await workers.close();
    }
    const history = async () => Object.fromEntries((await env.deps.prisma.$queryRawUnsafe<Array<{ machine: string; n: number }>>(
      `SELECT machine, count(*)::int AS n FROM status_changes WHERE platform_id = $1::uuid GROUP BY machine`, p.platformId)).map((r) => [r.machine, r.n]));
    const before = await history();
    expect(before).toEqual({ transaction: 2, quote: 2, 'external-account': 1, customer: 1 });

    // Inside the window nothing goes.
    expect((await pruneOnce(env.deps)).statusChangesDeleted).toBe(0);
    await env.deps.prisma.$executeRawUnsafe(`UPDATE status_changes SET created_at = created_at - interval '91 days' WHERE platform_id = $1::uuid`, p.platformId);
    // 0 keeps the history forever.
    const forever = { ...env.deps, config: { ...env.deps.config, STATUS_CHANGE_RETENTION_DAYS: 0 } };
    expect((await pruneOnce(forever)).statusChangesDeleted).toBe(0);
    expect(await history()).toEqual(before);

    // Past the default 90 days: in batches of RETENTION_BATCH, every row but the customer's.
    const small = { ...env.deps, config: { ...env.deps.config, RETENTION_BATCH: 2 } };
    const prunable = Object.entries(before).filter(([m]) => m !== 'customer').reduce((a, [, n]) => a + n, 0);
    let deleted = 0;
    for (let pass = await pruneOnce(small); pass.statusChangesDeleted > 0; pass = await pruneOnce(small)) {
      expect(pass.statusChangesDeleted).toBeLessThanOrEqual(2);
      deleted += pass.statusChangesDeleted;
    }
    expect(deleted).toBe(prunable);
    expect(await history()).toEqual({ customer: before.customer });

    const read = await p.request({ method: 'GET', url: `/transactions/${transactionId}` });
    expect(read.statusCode).toBe(200);
    expect(read.json().status).toBe('COMPLETED');
    const events = (await p.request({ method: 'GET', url: `/webhook-events?resourceId=${transactionId}` })).json().data.map((e: { type: string }) => e.type);
    expect(events).toEqual(expect.arrayContaining(['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED']));
    await expectLedgerConsistent(env, p.platformId);
  }, 120_000);
});
