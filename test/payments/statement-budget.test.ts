import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';
import { onStatement } from '../../src/platform/db.js';
import { submitPayment } from '../../src/domains/payments/settlement.service.js';
import { submitPayments } from '../../src/domains/payments/settlement.batches.js';
import { internalAccountResource } from '../../src/domains/ledger/index.js';
import { toJson } from '../../src/platform/outbox.js';

/**
 * Issue 12: the money path's round trips are a budget. Every statement sent to Postgres while the API
 * serves the call is counted (BEGIN/COMMIT included); the test fails when a change makes the path grow.
 */
const BUDGET = {
  quoteImmediateExecute: 4,
  /** Issue 24: the key's record is written by the payment's own statement, nothing more. */
  quoteImmediateExecuteIdempotent: 4,
  execute: 4,
  settle: 5,
  /** The worker's path: submitPayments, a batch of one when it has no backlog. */
  submitBatchOfOne: 4,
};

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ SANDBOX_RAIL_DELAY_SCALE: '0' });
});
afterAll(async () => {
  await env.close();
});

async function counted<T>(fn: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  const stop = onStatement(env.deps.prisma, (text) => statements.push(text.replace(/\s+/g, ' ').slice(0, 160)));
  try {
    return { result: await fn(), statements };
  } finally {
    stop();
  }
}

/** A funded customer and an ACTIVE destination; the workers run only while it is made, so they send no statement during the count. */
async function setup(): Promise<{ p: TestPlatform; usd: string; dest: string }> {
  const workers = env.startWorkers();
  try {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    const dest = await anActiveExternalAccount(p, usdBankAccount(), c.customerId);
    await fund(p, c.accounts.USD!, 1_000_000);
    return { p, usd: c.accounts.USD!, dest };
  } finally {
    await workers.close();
  }
}

const payment = (s: { usd: string; dest: string }, amount: number) => ({
  source: { sourceType: 'ACCOUNT', accountId: s.usd },
  destination: { destinationType: 'ACCOUNT', accountId: s.dest },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: amount,
  immediatelyExecute: true,
});

describe('statement budget of the money path', () => {
  it(`a quote with immediatelyExecute costs at most ${BUDGET.quoteImmediateExecute} statements and holds the money once`, async () => {
    const s = await setup();
    // Warm the per-process caches (credentials, platform settings) as a running server has them.
    expect((await s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 1_000) })).statusCode).toBe(201);
    const { result: res, statements } = await counted(() => s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 2_000) }));
    expect(res.statusCode, res.body).toBe(201);
    expect(['PROCESSING', 'COMPLETED']).toContain(res.json().status);
    console.log(`quote+immediateExecute: ${statements.length} statements\n  ${statements.join('\n  ')}`);
    expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(BUDGET.quoteImmediateExecute);
    const b = await balances(env, s.usd);
    expect(b.available + b.held).toBe(1_000_000n);
    expect(b.held).toBe(3_000n);
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it(`with an Idempotency-Key it costs as many statements as without (at most ${BUDGET.quoteImmediateExecuteIdempotent}), and its replay moves nothing`, async () => {
    const s = await setup();
    expect((await s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 1_000), headers: { 'idempotency-key': 'warm-1' } })).statusCode).toBe(201);
    const unkeyed = await counted(() => s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 500) }));
    expect(unkeyed.result.statusCode).toBe(201);
    const { result: res, statements } = await counted(() => s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 2_000), headers: { 'idempotency-key': 'budget-1' } }));
    expect(res.statusCode, res.body).toBe(201);
    console.log(`quote+immediateExecute with Idempotency-Key: ${statements.length} statements\n  ${statements.join('\n  ')}`);
    expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(BUDGET.quoteImmediateExecuteIdempotent);
    // Issue 24: the key adds no statement (no pre-read, no stored body afterwards).
    expect(statements.length, statements.join('\n')).toBe(unkeyed.statements.length);
    const record = await env.deps.prisma.idempotencyRecord.findUniqueOrThrow({ where: { platformId_key: { platformId: s.p.platformId, key: 'budget-1' } } });
    expect(record).toMatchObject({ state: 'COMMITTED', resourceId: res.json().id });
    const again = await s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 2_000), headers: { 'idempotency-key': 'budget-1' } });
    expect(again.statusCode).toBe(201);
    expect(again.json().id).toBe(res.json().id);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const b = await balances(env, s.usd);
    expect(b.held).toBe(3_500n);
    expect(b.available + b.held).toBe(1_000_000n);
  });

  it('an execute with an Idempotency-Key costs as many statements as without', async () => {
    const s = await setup();
    const q1 = (await s.p.request({ method: 'POST', url: '/quotes', payload: { ...payment(s, 1_000), immediatelyExecute: false } })).json();
    const q2 = (await s.p.request({ method: 'POST', url: '/quotes', payload: { ...payment(s, 1_000), immediatelyExecute: false } })).json();
    const unkeyed = await counted(() => s.p.request({ method: 'POST', url: `/quotes/${q1.id}/execute` }));
    expect(unkeyed.result.statusCode).toBe(200);
    const keyed = await counted(() => s.p.request({ method: 'POST', url: `/quotes/${q2.id}/execute`, headers: { 'idempotency-key': 'exec-1' } }));
    expect(keyed.result.statusCode, keyed.result.body).toBe(200);
    expect(keyed.statements.length, keyed.statements.join('\n')).toBe(unkeyed.statements.length);
    const again = await s.p.request({ method: 'POST', url: `/quotes/${q2.id}/execute`, headers: { 'idempotency-key': 'exec-1' } });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect((await balances(env, s.usd)).held).toBe(2_000n);
  });

  it(`POST /quotes/{id}/execute costs at most ${BUDGET.execute} statements; a second execute moves nothing`, async () => {
    const s = await setup();
    const q = (await s.p.request({ method: 'POST', url: '/quotes', payload: { ...payment(s, 2_500), immediatelyExecute: false } })).json();
    expect(q.status).toBe('PENDING');
    const { result: res, statements } = await counted(() => s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute` }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: q.id, status: 'PROCESSING', transactionId: q.transactionId });
    console.log(`execute: ${statements.length} statements\n  ${statements.join('\n  ')}`);
    expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(BUDGET.execute);
    const again = await s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute` });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('QUOTE_NOT_PENDING');
    const b = await balances(env, s.usd);
    expect(b.held).toBe(2_500n);
    expect(b.available + b.held).toBe(1_000_000n);
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('an execute the balance does not cover is 400 INSUFFICIENT_FUNDS and writes nothing', async () => {
    const s = await setup();
    const q = (await s.p.request({ method: 'POST', url: '/quotes', payload: { ...payment(s, 999_000), immediatelyExecute: false } })).json();
    const spend = await s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 2_000) });
    expect(spend.statusCode).toBe(201);
    const res = await s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute` });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().code).toBe('INSUFFICIENT_FUNDS');
    expect((await s.p.request({ method: 'GET', url: `/quotes/${q.id}` })).json().status).toBe('PENDING');
    const events = await env.deps.prisma.webhookEvent.findMany({ where: { platformId: s.p.platformId, type: 'OUTGOING_PAYMENT.PROCESSING' } });
    expect(events.map((e) => (e.data as { id: string }).id)).not.toContain(q.transactionId);
    const big = await s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 999_000) });
    expect(big.statusCode).toBe(400);
    expect(big.json().code).toBe('INSUFFICIENT_FUNDS');
    expect(await env.deps.prisma.quote.count({ where: { platformId: s.p.platformId } })).toBe(2);
    const b = await balances(env, s.usd);
    expect(b.held).toBe(2_000n);
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it(`settling a payment on the instant sandbox rail costs at most ${BUDGET.settle} statements, the sandbox bank's own included`, async () => {
    const s = await setup();
    const q = (await s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 3_000) })).json();
    expect(q.status).toBe('PROCESSING');
    const { statements } = await counted(() => submitPayment(env.deps, s.p.platformId, q.transactionId));
    console.log(`settle: ${statements.length} statements\n  ${statements.join('\n  ')}`);
    // Settled for good (no bank return to watch for): the statement also ended its check schedule.
    expect((await env.deps.prisma.transaction.findFirstOrThrow({ where: { id: q.transactionId } })).reconcileAfter).toBeNull();
    const t = (await s.p.request({ method: 'GET', url: `/transactions/${q.transactionId}` })).json();
    expect(t.status).toBe('COMPLETED');
    expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(BUDGET.settle);
    const b = await balances(env, s.usd);
    expect(b.held).toBe(0n);
    expect(b.available).toBe(1_000_000n - 3_000n);
    await expectLedgerConsistent(env, s.p.platformId);
    // The balance event the statement built in SQL is the account's resource as the API shows it.
    const events = await env.deps.prisma.webhookEvent.findMany({ where: { platformId: s.p.platformId, type: 'INTERNAL_ACCOUNT.BALANCE_UPDATED' }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    const last = events.filter((e) => (e.data as { id: string }).id === s.usd).at(-1)!;
    const account = await env.deps.prisma.internalAccount.findFirstOrThrow({ where: { id: s.usd } });
    expect(last.data).toEqual(toJson(internalAccountResource(account)));
    const types = (await env.deps.prisma.webhookEvent.findMany({ where: { platformId: s.p.platformId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }))
      .filter((e) => (e.data as { id: string }).id === q.transactionId || (e.data as { id: string }).id === s.usd)
      .map((e) => e.type)
      .slice(-5);
    expect(types).toEqual(['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.PROCESSING', 'INTERNAL_ACCOUNT.BALANCE_UPDATED', 'INTERNAL_ACCOUNT.BALANCE_UPDATED', 'OUTGOING_PAYMENT.COMPLETED']);
  });

  it(`the worker settles a batch of one in at most ${BUDGET.submitBatchOfOne} statements, once`, async () => {
    const s = await setup();
    const q = (await s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 4_000) })).json();
    expect(q.status).toBe('PROCESSING');
    const { result, statements } = await counted(() => submitPayments(env.deps, [{ platformId: s.p.platformId, transactionId: q.transactionId }]));
    console.log(`batch of one: ${statements.length} statements\n  ${statements.join('\n  ')}`);
    // Settled for good at once (no bank return to watch for): nothing is left to schedule.
    expect(result).toEqual([{ next: 'SKIP' }]);
    expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(BUDGET.submitBatchOfOne);
    const t = (await s.p.request({ method: 'GET', url: `/transactions/${q.transactionId}` })).json();
    expect(t.status).toBe('COMPLETED');
    expect((await env.deps.prisma.transaction.findFirstOrThrow({ where: { id: q.transactionId } })).reconcileAfter).toBeNull();
    const b = await balances(env, s.usd);
    expect(b.held).toBe(0n);
    expect(b.available).toBe(1_000_000n - 4_000n);
    await expectLedgerConsistent(env, s.p.platformId);
    // Run again (a redelivered job): nothing moves twice.
    expect(await submitPayments(env.deps, [{ platformId: s.p.platformId, transactionId: q.transactionId }])).toEqual([{ next: 'SKIP' }]);
    expect((await balances(env, s.usd)).available).toBe(1_000_000n - 4_000n);
  });
});
