import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';
import { ctxFor } from '../../src/deps.js';
import { onStatement } from '../../src/platform/db.js';
import { newId, resourceKey } from '../../src/platform/ids.js';
import type { IdempotencyClaim } from '../../src/platform/idempotency.js';
import { insertStartedPayment, type StartedPayment } from '../../src/domains/payments/money-path.repo.js';

/**
 * Issue 12: the immediate payments a process starts in one turn of its event loop are written by one
 * statement (money-path.repo.ts insertStartedPayment). A batch is all or nothing; a refused one is
 * written payment by payment, so each request still gets its own answer.
 */
let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ SANDBOX_RAIL_DELAY_SCALE: '0' });
});
afterAll(async () => {
  await env.close();
});

interface Setup {
  p: TestPlatform;
  usd: string;
  dest: string;
}

/** A customer whose USD balance holds `funds`, and an ACTIVE destination (workers only while it is made: payments stay PROCESSING). */
async function setup(funds: number): Promise<Setup> {
  const workers = env.startWorkers();
  try {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    const dest = await anActiveExternalAccount(p, usdBankAccount(), c.customerId);
    await fund(p, c.accounts.USD!, funds);
    return { p, usd: c.accounts.USD!, dest };
  } finally {
    await workers.close();
  }
}

const payment = (s: Setup, amount: number, immediatelyExecute = true) => ({
  source: { sourceType: 'ACCOUNT', accountId: s.usd },
  destination: { destinationType: 'ACCOUNT', accountId: s.dest },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: amount,
  immediatelyExecute,
});

/** The types of the events about a transaction, sorted (one statement's rows share a creation time). */
async function eventTypes(platformId: string, transactionId: string): Promise<string[]> {
  const rows = await env.deps.prisma.webhookEvent.findMany({ where: { platformId } });
  return rows.filter((e) => (e.data as { id?: string }).id === transactionId).map((e) => e.type).sort();
}

/** Rows of a started payment like the service builds them: a PENDING quote's, copied under fresh ids for `amount`. */
async function pendingPayment(s: Setup, amount: number): Promise<StartedPayment> {
  const res = await s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, amount, false) });
  expect(res.statusCode, res.body).toBe(201);
  const quote = await env.deps.prisma.quote.findFirstOrThrow({ where: { id: res.json().id } });
  const transaction = await env.deps.prisma.transaction.findFirstOrThrow({ where: { quoteId: quote.id } });
  const [quoteId, transactionId] = [newId('Quote'), newId('Transaction')];
  return {
    quote: { ...quote, id: quoteId, transactionId },
    transaction: { ...transaction, id: transactionId, quoteId },
  };
}

async function counted<T>(fn: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  const stop = onStatement(env.deps.prisma, (text) => statements.push(text));
  try {
    return { result: await fn(), statements };
  } finally {
    stop();
  }
}

const claimOf = (platformId: string, key: string): IdempotencyClaim => ({ platformId, key, fingerprint: `fp-${key}`, expiresAt: new Date(Date.now() + 3_600_000), committed: false, taken: false });

describe('immediate payments started together', () => {
  it('payments started in one turn are one statement: each held once, with its own events', async () => {
    const s = await setup(100_000);
    const ctx = ctxFor(env.deps, s.p.platformId);
    const rows = [await pendingPayment(s, 1_000), await pendingPayment(s, 2_000), await pendingPayment(s, 3_000)];
    const { result, statements } = await counted(() => Promise.allSettled(rows.map((r) => insertStartedPayment(ctx, r))));
    expect(result.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect(statements).toHaveLength(1);
    const b = await balances(env, s.usd);
    expect(b.held).toBe(6_000n);
    expect(b.available).toBe(94_000n);
    for (const r of rows) {
      const t = await env.deps.prisma.transaction.findFirstOrThrow({ where: { id: r.transaction.id } });
      expect(t.status).toBe('PROCESSING');
      expect((await env.deps.prisma.quote.findFirstOrThrow({ where: { id: r.quote.id } })).status).toBe('PROCESSING');
      expect(await eventTypes(s.p.platformId, r.transaction.id)).toEqual(['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.PROCESSING']);
      const history = await env.deps.prisma.statusChange.findMany({ where: { platformId: s.p.platformId, resourceId: { in: [r.transaction.id, r.quote.id].map(resourceKey) } } });
      expect(history.map((h) => `${h.fromStatus}>${h.toStatus}`)).toEqual(['PENDING>PROCESSING', 'PENDING>PROCESSING']);
    }
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('a batch one payment of which the balance does not cover is written one by one: that one is 400 INSUFFICIENT_FUNDS, the others are held', async () => {
    const s = await setup(5_000);
    const ctx = ctxFor(env.deps, s.p.platformId);
    const rows = [await pendingPayment(s, 2_000), await pendingPayment(s, 4_000), await pendingPayment(s, 3_000)];
    const { result, statements } = await counted(() => Promise.allSettled(rows.map((r) => insertStartedPayment(ctx, r))));
    // The batch (refused, nothing written), then each payment on its own, in order: 2,000 fits, 4,000 no longer does, 3,000 does.
    expect(statements).toHaveLength(4);
    expect(result[0]!.status).toBe('fulfilled');
    expect(result[1]!.status).toBe('rejected');
    expect((result[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'INSUFFICIENT_FUNDS' });
    expect(result[2]!.status).toBe('fulfilled');
    const b = await balances(env, s.usd);
    expect(b.held).toBe(5_000n);
    expect(b.available).toBe(0n);
    expect(await env.deps.prisma.transaction.findFirst({ where: { id: rows[1]!.transaction.id } })).toBeNull();
    expect(await env.deps.prisma.quote.findFirst({ where: { id: rows[1]!.quote.id } })).toBeNull();
    expect(await eventTypes(s.p.platformId, rows[1]!.transaction.id)).toEqual([]);
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it("payments of two platforms in one turn are one statement each: one platform's refused batch leaves the other's written", async () => {
    const [a, b] = [await setup(5_000), await setup(100_000)];
    const rowsA = [await pendingPayment(a, 2_000), await pendingPayment(a, 4_000)];
    const rowsB = [await pendingPayment(b, 1_000), await pendingPayment(b, 2_000)];
    const [ctxA, ctxB] = [ctxFor(env.deps, a.p.platformId), ctxFor(env.deps, b.p.platformId)];
    const { result, statements } = await counted(() =>
      Promise.allSettled([insertStartedPayment(ctxA, rowsA[0]!), insertStartedPayment(ctxB, rowsB[0]!), insertStartedPayment(ctxA, rowsA[1]!), insertStartedPayment(ctxB, rowsB[1]!)]),
    );
    // B's batch; A's batch (refused), then A's payments one by one.
    expect(statements).toHaveLength(4);
    expect(result.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((result[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'INSUFFICIENT_FUNDS' });
    expect((await balances(env, a.usd)).held).toBe(2_000n);
    expect((await balances(env, b.usd)).held).toBe(3_000n);
    for (const r of rowsB) expect((await env.deps.prisma.transaction.findFirstOrThrow({ where: { id: r.transaction.id } })).platformId).toBe(b.p.platformId);
    await expectLedgerConsistent(env, a.p.platformId);
    await expectLedgerConsistent(env, b.p.platformId);
  });

  it('one Idempotency-Key twice in a batch commits one payment; the other request is 409 CONFLICT and moves nothing', async () => {
    const s = await setup(100_000);
    const base = ctxFor(env.deps, s.p.platformId);
    const rows = [await pendingPayment(s, 1_000), await pendingPayment(s, 1_000), await pendingPayment(s, 1_000)];
    const claims = [claimOf(s.p.platformId, 'same'), claimOf(s.p.platformId, 'same'), claimOf(s.p.platformId, 'other')];
    const result = await Promise.allSettled(rows.map((r, i) => insertStartedPayment({ ...base, idempotency: claims[i] }, r)));
    // Written one by one, in order, after the batch failed: the first request with the key wins.
    expect(result.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((result[1] as PromiseRejectedResult).reason).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(claims.map((c) => [c.committed, c.taken])).toEqual([[true, false], [false, true], [true, false]]);
    const records = await env.deps.prisma.idempotencyRecord.findMany({ where: { platformId: s.p.platformId }, orderBy: { key: 'asc' } });
    expect(records.map((r) => [r.key, r.resourceId])).toEqual([['other', rows[2]!.quote.id], ['same', rows[0]!.quote.id]]);
    expect(await env.deps.prisma.transaction.findFirst({ where: { id: rows[1]!.transaction.id } })).toBeNull();
    expect(await env.deps.prisma.quote.findFirst({ where: { id: rows[1]!.quote.id } })).toBeNull();
    expect((await balances(env, s.usd)).held).toBe(2_000n);
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('concurrent requests on one balance: exactly those it covers are 201 and held, the rest 400 INSUFFICIENT_FUNDS writing nothing', async () => {
    const s = await setup(10_000);
    const res = await Promise.all(Array.from({ length: 14 }, () => s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 1_000) })));
    const created = res.filter((r) => r.statusCode === 201);
    const refused = res.filter((r) => r.statusCode !== 201);
    expect(created).toHaveLength(10);
    expect(refused).toHaveLength(4);
    for (const r of refused) {
      expect(r.statusCode, r.body).toBe(400);
      expect(r.json().code).toBe('INSUFFICIENT_FUNDS');
    }
    for (const r of created) expect(r.json().status).toBe('PROCESSING');
    const b = await balances(env, s.usd);
    expect(b.held).toBe(10_000n);
    expect(b.available).toBe(0n);
    expect(await env.deps.prisma.quote.count({ where: { platformId: s.p.platformId, status: 'PROCESSING' } })).toBe(10);
    expect(await env.deps.prisma.transaction.count({ where: { platformId: s.p.platformId, status: 'PROCESSING' } })).toBe(10);
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('concurrent requests with Idempotency-Keys, each key sent twice: one payment per key, every response its own or the replay', async () => {
    const s = await setup(100_000);
    const keys = ['k1', 'k2', 'k3', 'k4'];
    const res = await Promise.all(keys.flatMap((k) => [0, 1].map(() => s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 1_000), headers: { 'idempotency-key': k } }))));
    for (const r of res) expect([201, 409], r.body).toContain(r.statusCode);
    for (const [i, k] of keys.entries()) {
      const ids = res.slice(2 * i, 2 * i + 2).filter((r) => r.statusCode === 201).map((r) => r.json().id);
      expect(ids.length, k).toBeGreaterThanOrEqual(1);
      expect(new Set(ids).size, k).toBe(1);
    }
    expect(await env.deps.prisma.transaction.count({ where: { platformId: s.p.platformId, status: 'PROCESSING' } })).toBe(4);
    expect((await balances(env, s.usd)).held).toBe(4_000n);
    await expectLedgerConsistent(env, s.p.platformId);
  });
});
