import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';
import { onStatement } from '../../src/platform/db.js';
import { settlePostingsOf } from '../../src/domains/payments/settlement.service.js';
import { submitPayments } from '../../src/domains/payments/settlement.batches.js';
import { settlePayments } from '../../src/domains/payments/money-path.repo.js';
import { ctxFor } from '../../src/deps.js';
import { queueOf } from '../../src/platform/queue.js';
import { PAYMENTS_QUEUE, enqueueSubmit } from '../../src/domains/payments/transactions.jobs.js';

/**
 * Issue 12: the payments worker submits the `submit` jobs it holds at once as one batch
 * (submitPayments): one claim, one destination read, the rail's calls side by side, the settlements.
 * Every payment must end exactly as if it had been submitted alone — whatever the batch mixes:
 * payouts the rail completes, refuses or fails, a payment to an internal account, the same payment
 * twice, another platform's payment — and a batch run again changes nothing.
 */
let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ SANDBOX_RAIL_DELAY_SCALE: '0' });
});
afterAll(async () => {
  await env.close();
});

interface Sender {
  p: TestPlatform;
  usd: string;
  dest: string;
  internal: string;
}

/** A platform with a funded customer, an ACTIVE bank destination and another customer's USD account; workers run only while it is made. */
async function sender(): Promise<Sender> {
  const workers = env.startWorkers();
  try {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    const other = await anApprovedCustomer(env, p, ['USD']);
    const dest = await anActiveExternalAccount(p, usdBankAccount(), c.customerId);
    await fund(p, c.accounts.USD!, 1_000_000);
    return { p, usd: c.accounts.USD!, dest, internal: other.accounts.USD! };
  } finally {
    await workers.close();
  }
}

/** A payment started with immediatelyExecute (PROCESSING; no worker runs, so its submit job waits). `received` picks the sandbox scenario (…902 refused at submit, …904 delivery fails). */
async function pay(s: Sender, received: number, to: 'bank' | 'internal' = 'bank'): Promise<string> {
  const res = await s.p.request({
    method: 'POST',
    url: '/quotes',
    payload: {
      source: { sourceType: 'ACCOUNT', accountId: s.usd },
      destination: { destinationType: 'ACCOUNT', accountId: to === 'bank' ? s.dest : s.internal },
      lockedCurrencySide: 'RECEIVING',
      lockedCurrencyAmount: received,
      immediatelyExecute: true,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  expect(res.json().status).toBe('PROCESSING');
  return res.json().transactionId as string;
}

const status = async (p: TestPlatform, id: string) => (await p.request({ method: 'GET', url: `/transactions/${id}` })).json();
const events = async (p: TestPlatform, type: string) =>
  (await env.deps.prisma.webhookEvent.findMany({ where: { platformId: p.platformId, type } })).map((e) => (e.data as { id: string }).id);

describe('batched payout submission', () => {
  it('ends every payment of a mixed batch as alone, pays each payout once, and a second run changes nothing', async () => {
    const a = await sender();
    const b = await sender();
    const ok = await Promise.all([1_100, 1_200, 1_300, 1_400, 1_500, 1_600].map((amount) => pay(a, amount)));
    const refused = await pay(a, 1_902);
    const failing = await pay(a, 2_904);
    const internal = await pay(a, 1_700, 'internal');
    const foreign = await pay(b, 1_800);
    const items = [...ok, refused, failing, internal].map((transactionId) => ({ platformId: a.p.platformId, transactionId }));
    items.push({ platformId: a.p.platformId, transactionId: ok[0]! }, { platformId: b.p.platformId, transactionId: foreign });

    const statements: string[] = [];
    const stop = onStatement(env.deps.prisma, (text) => statements.push(text));
    const outcomes = await submitPayments(env.deps, items);
    stop();

    expect(outcomes.filter((o) => o instanceof Error)).toEqual([]);
    expect(outcomes).toHaveLength(items.length);
    // The instant rail completed them: settled for good, nothing more to schedule.
    for (const i of [0, 1, 2, 3, 4, 5, 9, 10]) expect(outcomes[i]).toEqual({ next: 'SKIP' });
    expect(outcomes[6]).toEqual({ next: 'REFUND' });
    expect(outcomes[7]).toEqual({ next: 'REFUND' });
    expect(outcomes[8]).toEqual({ next: 'DONE' });

    for (const id of ok) expect((await status(a.p, id)).status).toBe('COMPLETED');
    expect((await status(b.p, foreign)).status).toBe('COMPLETED');
    expect((await status(a.p, internal)).status).toBe('COMPLETED');
    expect(await status(a.p, refused)).toMatchObject({ status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED' });
    expect(await status(a.p, failing)).toMatchObject({ status: 'FAILED' });
    // Each platform sees only its own payments.
    expect((await a.p.request({ method: 'GET', url: `/transactions/${foreign}` })).statusCode).toBe(404);

    // One payout per payment paid out to a bank (the duplicate item included), none for the internal one.
    const payouts = await env.deps.prisma.sandboxBankPayout.findMany({ where: { idempotencyKey: { in: [...ok, refused, failing, internal, foreign] } } });
    expect(payouts.map((p) => p.idempotencyKey).sort()).toEqual([...ok, refused, failing, foreign].sort());

    // One COMPLETED event per completed payment, whatever the duplicates.
    const completed = await events(a.p, 'OUTGOING_PAYMENT.COMPLETED');
    expect(completed.sort()).toEqual([...ok, internal].sort());
    expect(await events(b.p, 'OUTGOING_PAYMENT.COMPLETED')).toEqual([foreign]);

    // Money: the completed ones left, the failed ones are held until their refunds run; the internal one arrived.
    const okTotal = [1_100, 1_200, 1_300, 1_400, 1_500, 1_600].reduce((x, y) => x + y, 0);
    const sa = await balances(env, a.usd);
    const refusedSent = BigInt((await status(a.p, refused)).sentAmount.amount);
    const failingSent = BigInt((await status(a.p, failing)).sentAmount.amount);
    expect(sa.held).toBe(refusedSent + failingSent);
    expect((await balances(env, a.internal)).available).toBe(1_700n);
    const sent = await env.deps.prisma.transaction.aggregate({ where: { id: { in: [...ok, internal] } }, _sum: { sentAmount: true } });
    expect(sa.available).toBe(1_000_000n - sent._sum.sentAmount! - refusedSent - failingSent);
    expect(sent._sum.sentAmount! >= BigInt(okTotal + 1_700)).toBe(true);
    expect((await balances(env, b.usd)).held).toBe(0n);
    await expectLedgerConsistent(env, a.p.platformId);
    await expectLedgerConsistent(env, b.p.platformId);

    // Batched: the claim once per platform (issue 29: each on one shard), not once per payment.
    const claims = statements.filter((s) => /UPDATE transactions t SET submitted_at/.test(s));
    expect(claims).toHaveLength(2);

    // Run again (a redelivered batch): every step finds its work done.
    const before = await env.deps.prisma.webhookEvent.count({ where: { platformId: { in: [a.p.platformId, b.p.platformId] } } });
    const again = await submitPayments(env.deps, items);
    expect(again.filter((o) => o instanceof Error)).toEqual([]);
    expect(await env.deps.prisma.webhookEvent.count({ where: { platformId: { in: [a.p.platformId, b.p.platformId] } } })).toBe(before);
    expect(await balances(env, a.usd)).toEqual(sa);
    expect(await env.deps.prisma.sandboxBankPayout.count({ where: { idempotencyKey: { in: [...ok, refused, failing, internal, foreign] } } })).toBe(ok.length + 3);
  });

  it('settles many payments of one balance in one statement, each exactly once, the balance moved once', async () => {
    const a = await sender();
    const ids = await Promise.all(Array.from({ length: 24 }, (_, i) => pay(a, 1_000 + i)));
    const balanceEvents = async () => (await events(a.p, 'INTERNAL_ACCOUNT.BALANCE_UPDATED')).filter((id) => id === a.usd).length;
    const eventsBefore = await balanceEvents();
    const statements: string[] = [];
    const stop = onStatement(env.deps.prisma, (text) => statements.push(text));
    const outcomes = await submitPayments(
      env.deps,
      ids.map((transactionId) => ({ platformId: a.p.platformId, transactionId })),
    );
    stop();
    expect(outcomes.filter((o) => o instanceof Error)).toEqual([]);
    // The claim, the destinations, the bank's payouts (the sandbox takes batches) and ONE settlement statement for all.
    console.log(`batch of ${ids.length}: ${statements.length} statements`);
    const isSettlement = (s: string) => s.includes('"settled_at" = ') && s.includes('INSERT INTO ledger_journals');
    const settles = statements.filter(isSettlement);
    expect(settles).toHaveLength(1);
    expect(statements.filter((s) => s.includes('INSERT INTO sandbox_bank_payouts'))).toHaveLength(1);
    expect(statements.length).toBeLessThanOrEqual(4);
    // The balance moved once, and its event shows where it ended.
    expect((await balanceEvents()) - eventsBefore).toBe(1);
    for (const id of ids) expect((await status(a.p, id)).status).toBe('COMPLETED');
    const b = await balances(env, a.usd);
    expect(b.held).toBe(0n);
    const sent = await env.deps.prisma.transaction.aggregate({ where: { id: { in: ids } }, _sum: { sentAmount: true } });
    expect(b.available).toBe(1_000_000n - sent._sum.sentAmount!);
    expect((await events(a.p, 'OUTGOING_PAYMENT.COMPLETED')).sort()).toEqual([...ids].sort());
    await expectLedgerConsistent(env, a.p.platformId);

    // One payment alone is settled by the same statement text: one prepared statement, planned once, for any batch size.
    const alone = await pay(a, 2_000);
    const single: string[] = [];
    const stopSingle = onStatement(env.deps.prisma, (text) => single.push(text));
    expect(await submitPayments(env.deps, [{ platformId: a.p.platformId, transactionId: alone }])).toEqual([{ next: 'SKIP' }]);
    stopSingle();
    expect(single.filter(isSettlement)).toEqual(settles);
    expect((await status(a.p, alone)).status).toBe('COMPLETED');
  });

  it('refuses a batched settlement as a whole when one payment is no longer PROCESSING, writing nothing', async () => {
    const a = await sender();
    const [done, open] = [await pay(a, 1_100), await pay(a, 1_200)];
    expect(await submitPayments(env.deps, [{ platformId: a.p.platformId, transactionId: done }])).toEqual([{ next: 'SKIP' }]);
    const ctx = ctxFor(env.deps, a.p.platformId);
    const rows = await env.deps.prisma.transaction.findMany({ where: { id: { in: [done, open] } } });
    const before = { balance: await balances(env, a.usd), events: await env.deps.prisma.webhookEvent.count({ where: { platformId: a.p.platformId } }) };
    const list = await Promise.all(rows.map(async (t) => ({ t: { ...t, status: 'PROCESSING' }, postings: await settlePostingsOf(ctx.db, t) })));
    expect(await settlePayments(ctx, list)).toBe(false);
    expect((await status(a.p, open)).status).toBe('PROCESSING');
    expect(await balances(env, a.usd)).toEqual(before.balance);
    expect(await env.deps.prisma.webhookEvent.count({ where: { platformId: a.p.platformId } })).toBe(before.events);
    await expectLedgerConsistent(env, a.p.platformId);
  });
  it('queues the submissions of one event-loop turn as one job, and the worker settles each payment of it once', async () => {
    const a = await sender();
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => pay(a, 3_000 + i)));
    const queue = queueOf(env.deps, PAYMENTS_QUEUE);
    // The jobs the requests queued (one or several, as their commits fell) are dropped: the submissions are queued again, at once.
    await queue.drain();
    await Promise.all(ids.map((transactionId) => enqueueSubmit(env.deps, { platformId: a.p.platformId, transactionId })));
    const jobs = await queue.getJobs(['wait', 'prioritized']);
    expect(jobs.map((j) => j.name)).toEqual(['submits']);
    expect((jobs[0]!.data as unknown as { items: Array<{ transactionId: string }> }).items.map((i) => i.transactionId)).toEqual(ids);
    const workers = env.startWorkers();
    try {
      await eventually(async () => (await Promise.all(ids.map(async (id) => (await status(a.p, id)).status))).every((s) => s === 'COMPLETED'));
    } finally {
      await workers.close();
    }
    const b = await balances(env, a.usd);
    const sent = await env.deps.prisma.transaction.aggregate({ where: { id: { in: ids } }, _sum: { sentAmount: true } });
    expect(b).toEqual({ available: 1_000_000n - sent._sum.sentAmount!, held: 0n });
    expect((await events(a.p, 'OUTGOING_PAYMENT.COMPLETED')).sort()).toEqual([...ids].sort());
    expect(await env.deps.prisma.sandboxBankPayout.count({ where: { idempotencyKey: { in: ids } } })).toBe(ids.length);
    await expectLedgerConsistent(env, a.p.platformId);
  });
  it('queues the submissions of one turn as one job also when each request runs with a ctx of its own (an Idempotency-Key\'s, issue 24n)', async () => {
    const a = await sender();
    const ids = await Promise.all(Array.from({ length: 5 }, (_, i) => pay(a, 4_000 + i)));
    const queue = queueOf(env.deps, PAYMENTS_QUEUE);
    await queue.drain();
    // idempotency.ts gives a keyed request `{ ...req.ctx, idempotency }`: one object per request.
    await Promise.all(ids.map((transactionId) => enqueueSubmit({ ...ctxFor(env.deps, a.p.platformId) }, { platformId: a.p.platformId, transactionId })));
    const jobs = await queue.getJobs(['wait', 'prioritized']);
    expect(jobs.map((j) => j.name)).toEqual(['submits']);
    expect((jobs[0]!.data as unknown as { items: Array<{ transactionId: string }> }).items.map((i) => i.transactionId)).toEqual(ids);
    await queue.drain();
  });
});
