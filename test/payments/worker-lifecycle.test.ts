import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestEnv, eventually, type TestEnv } from '../helpers/app.js';
import { aFundedUsdPayer, balances, expectLedgerConsistent } from '../helpers/builders.js';
import { onStatement } from '../../src/platform/db.js';

/**
 * Issue 24h: the payments worker's statements for one payment on a rail with a delay (submission answered
 * PENDING, a poll, the settlement), through its queue as it runs: the submission's claim, the bank's record and
 * the submission's record (reference and the first poll's schedule together); the poll's read, the bank's answer
 * and the settlement (which ends the check schedule itself). No read of the row back after a write, no second
 * write of its schedule.
 */
const BUDGET = 6;

let env: TestEnv;
beforeAll(async () => {
  // ACH at a tenth of its delay: the submission answers PENDING and a poll settles the payment.
  env = await createTestEnv({ SANDBOX_RAIL_DELAY_SCALE: '0.1' });
}, 180_000);
afterAll(async () => {
  await env.close();
});

/** Whether a statement's values name `key` (directly or inside an array parameter). */
const names = (values: unknown[], key: string): boolean => values.some((v) => (Array.isArray(v) ? names(v, key) : typeof v === 'string' && v.includes(key)));

/** Waits (bounded) until the payment is COMPLETED with no check left, reading on a connection of its own (not counted). */
async function settled(id: string): Promise<void> {
  const db = new pg.Client({ connectionString: env.databaseUrl });
  await db.connect();
  try {
    const done = async () => (await db.query(`SELECT 1 FROM transactions WHERE id = $1 AND status = 'COMPLETED' AND reconcile_after IS NULL`, [id])).rowCount === 1;
    await eventually(done, 60_000, 50);
  } finally {
    await db.end();
  }
}

describe('the payments worker, one payment on a delayed rail (issue 24h)', () => {
  it(`submits, polls and settles it in at most ${BUDGET} statements naming it, once`, async () => {
    const workers = env.startWorkers();
    let p, payer;
    try {
      p = await env.platform();
      payer = await aFundedUsdPayer(env, p);
    } finally {
      await workers.close();
    }
    const { usd, dest } = payer;
    const res = await p.request({
      method: 'POST',
      url: '/quotes',
      payload: { source: { sourceType: 'ACCOUNT', accountId: usd }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 5_000, immediatelyExecute: true },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().transactionId as string;
    const uuid = id.slice(id.indexOf(':') + 1);
    const sent: Array<{ text: string; values: unknown[] }> = [];
    const stop = onStatement(env.deps.prisma, (text, values) => sent.push({ text: text.replace(/\s+/g, ' '), values: values ?? [] }));
    const running = env.startWorkers();
    try {
      await settled(id);
    } finally {
      await running.close();
      stop();
    }
    const mine = sent.filter((x) => names(x.values, uuid));
    console.log(`worker, one payment on ACH × 0.1: ${mine.length} statements naming it\n  ${mine.map((x) => x.text.slice(0, 120)).join('\n  ')}`);
    expect(mine.length, mine.map((x) => x.text.slice(0, 160)).join('\n')).toBeLessThanOrEqual(BUDGET);
    const t = await env.deps.prisma.transaction.findFirstOrThrow({ where: { id } });
    expect(t).toMatchObject({ status: 'COMPLETED', reconcileAfter: null });
    expect(t.railReference).not.toBeNull();
    const b = await balances(env, usd);
    expect(b.held).toBe(0n);
    expect(await env.deps.prisma.sandboxBankPayout.count({ where: { idempotencyKey: id } })).toBe(1);
    await expectLedgerConsistent(env, p.platformId);
  }, 180_000);
});
