import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { applyPayoutReport } from '../../src/domains/payments/settlement.service.js';
import { enqueueRefund } from '../../src/domains/payments/transactions.jobs.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';

/**
 * Issue 24: one writer per money operation. Whatever starts a payment — POST /quotes with
 * immediatelyExecute, a later execute, the platform's approval of an agent's payment — the rows its
 * start writes are the same: quote and transaction PROCESSING, one hold journal with its two entries,
 * the history rows of both moves, OUTGOING_PAYMENT.PROCESSING and the balance event, and the
 * Idempotency-Key record when the request carried one. An incoming payment credited at once (a UMA
 * payment, a sandbox transfer-in) is written with its history too. A payment's later moves — settled,
 * failed and refunded (release), returned by its bank and refunded (return) — write the same rows
 * (status, journals and entries, history, events) whichever trigger leads there: the worker's
 * submission, a poll, or a report the rail pushed.
 */

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ SANDBOX_RAIL_DELAY_SCALE: '0', SANDBOX_RETURN_AFTER_MS: '200', PAYMENT_POLL_MIN_MS: '20' });
});
afterAll(() => env.close());

interface Setup {
  p: TestPlatform;
  customerId: string;
  usd: string;
  dest: string;
}

/** A funded customer with an ACTIVE destination; the workers run only meanwhile, so the payments stay PROCESSING. */
async function setup(): Promise<Setup> {
  const workers = env.startWorkers();
  try {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    const dest = await anActiveExternalAccount(p, usdBankAccount(), c.customerId);
    await fund(p, c.accounts.USD!, 100_000);
    return { p, customerId: c.customerId, usd: c.accounts.USD!, dest };
  } finally {
    await workers.close();
  }
}

const body = (s: Setup, amount: number, immediatelyExecute: boolean) => ({
  source: { sourceType: 'ACCOUNT', accountId: s.usd },
  destination: { destinationType: 'ACCOUNT', accountId: s.dest },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: amount,
  immediatelyExecute,
});

/** What a payment's start wrote, with ids and times left out so that two starts compare. */
async function startRows(s: Setup, transactionId: string, key?: string) {
  const prisma = env.deps.prisma;
  const t = await prisma.transaction.findFirstOrThrow({ where: { id: transactionId } });
  const q = await prisma.quote.findFirstOrThrow({ where: { id: t.quoteId! } });
  const journals = await prisma.ledgerJournal.findMany({ where: { platformId: s.p.platformId, referenceId: t.id } });
  const entries = await prisma.ledgerEntry.findMany({ where: { journalId: { in: journals.map((j) => j.id) } }, orderBy: [{ bucket: 'asc' }] });
  const history = await prisma.statusChange.findMany({ where: { platformId: s.p.platformId, resourceId: { in: [t.id, q.id] }, toStatus: 'PROCESSING' }, orderBy: [{ machine: 'asc' }] });
  const events = await prisma.webhookEvent.findMany({ where: { platformId: s.p.platformId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  const record = key ? await prisma.idempotencyRecord.findUnique({ where: { platformId_key: { platformId: s.p.platformId, key } } }) : null;
  const processing = events.filter((e) => e.type === 'OUTGOING_PAYMENT.PROCESSING' && (e.data as { id: string }).id === t.id);
  return {
    transaction: { status: t.status, pendingReason: t.pendingReason, held: t.sentAmount },
    quote: { status: q.status, executed: q.executedAt !== null },
    journals: journals.map((j) => ({ kind: j.kind, key: j.idempotencyKey.replace(t.id, 'T') })),
    entries: entries.map((e) => ({ account: e.account === s.usd ? 'source' : e.account, bucket: e.bucket, amount: e.amount })),
    history: history.map((h) => ({ machine: h.machine, event: h.event, from: h.fromStatus, to: h.toStatus })),
    processingEvents: processing.map((e) => ({ status: (e.data as { status: string }).status, pendingReason: (e.data as { pendingReason?: string }).pendingReason ?? null })),
    balanceEvent: events.some((e) => e.type === 'INTERNAL_ACCOUNT.BALANCE_UPDATED' && (e.data as { id: string }).id === s.usd),
    record: record ? { state: record.state, resourceId: record.resourceId === q.id ? 'quote' : record.resourceId } : null,
  };
}

const expectedStart = (amount: number, keyed: boolean) => ({
  transaction: { status: 'PROCESSING', pendingReason: null, held: BigInt(amount) },
  quote: { status: 'PROCESSING', executed: true },
  journals: [{ kind: 'PAYMENT_HOLD', key: 'T:hold' }],
  entries: [
    { account: 'source', bucket: 'AVAILABLE', amount: BigInt(-amount) },
    { account: 'source', bucket: 'HELD', amount: BigInt(amount) },
  ],
  history: [
    { machine: 'quote', event: 'execute', from: 'PENDING', to: 'PROCESSING' },
    { machine: 'transaction', event: 'execute', from: 'PENDING', to: 'PROCESSING' },
  ],
  processingEvents: [{ status: 'PROCESSING', pendingReason: null }],
  balanceEvent: true,
  record: keyed ? { state: 'COMMITTED', resourceId: 'quote' } : null,
});

describe('one writer per payment start', () => {
  it('POST /quotes with immediatelyExecute, keyed: the start rows and the key record', async () => {
    const s = await setup();
    const res = await s.p.request({ method: 'POST', url: '/quotes', payload: body(s, 1_100, true), headers: { 'idempotency-key': 'imm' } });
    expect(res.statusCode, res.body).toBe(201);
    expect(await startRows(s, res.json().transactionId, 'imm')).toEqual(expectedStart(1_100, true));
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('POST /quotes/{id}/execute, keyed: the same rows', async () => {
    const s = await setup();
    const q = (await s.p.request({ method: 'POST', url: '/quotes', payload: body(s, 1_200, false) })).json();
    const res = await s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute`, headers: { 'idempotency-key': 'exe' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(await startRows(s, q.transactionId, 'exe')).toEqual(expectedStart(1_200, true));
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it("the platform's approval of an agent's payment: the same rows (agent fields kept); short of funds it is 400 and stays waiting", async () => {
    const s = await setup();
    const created = await s.p.request({ method: 'POST', url: '/agents', payload: { customerId: s.customerId, name: 'bot', policy: { currency: 'USD', maxTransactionAmount: 500_000, dailyLimit: 900_000, approvalThreshold: 1_000 } } });
    expect(created.statusCode, created.body).toBe(201);
    const code = (await s.p.request({ method: 'POST', url: `/agents/${created.json().id}/device-codes` })).json().code;
    const token = (await env.app.inject({ method: 'POST', url: `${BASE}/agents/device-codes/${code}/redeem` })).json().accessToken;
    const agent = (method: 'POST', url: string, payload?: object) => env.app.inject({ method, url: `${BASE}${url}`, payload, headers: { authorization: `Bearer ${token}` } });

    const big = (await agent('POST', '/quotes', body(s, 300_000, false))).json();
    expect((await agent('POST', `/quotes/${big.id}/execute`)).json().status).toBe('PENDING');
    const short = await s.p.request({ method: 'POST', url: `/transactions/${big.transactionId}/approve` });
    expect(short.statusCode, short.body).toBe(400);
    expect(short.json().code).toBe('INSUFFICIENT_FUNDS');
    expect((await s.p.request({ method: 'GET', url: `/transactions/${big.transactionId}` })).json()).toMatchObject({ status: 'PENDING', pendingReason: 'PLATFORM_APPROVAL' });

    const q = (await agent('POST', '/quotes', body(s, 1_300, false))).json();
    expect((await agent('POST', `/quotes/${q.id}/execute`)).json().status).toBe('PENDING');
    const approved = await s.p.request({ method: 'POST', url: `/transactions/${q.transactionId}/approve` });
    expect(approved.statusCode, approved.body).toBe(200);
    expect(await startRows(s, q.transactionId)).toEqual(expectedStart(1_300, false));
    const t = await env.deps.prisma.transaction.findFirstOrThrow({ where: { id: q.transactionId } });
    expect(t.agentCountedAmount).toBe(1_300n);
    expect(await balances(env, s.usd)).toEqual({ available: 100_000n - 1_300n, held: 1_300n });
    await expectLedgerConsistent(env, s.p.platformId);
  });
});

describe('one writer per quote created PENDING', () => {
  it('POST /quotes without immediatelyExecute, keyed: quote and transaction PENDING, their event and the key record, replayed from them', async () => {
    const s = await setup();
    const res = await s.p.request({ method: 'POST', url: '/quotes', payload: body(s, 1_400, false), headers: { 'idempotency-key': 'pending' } });
    expect(res.statusCode, res.body).toBe(201);
    const q = res.json();
    const prisma = env.deps.prisma;
    const t = await prisma.transaction.findFirstOrThrow({ where: { id: q.transactionId } });
    expect([t.status, t.sentAmount, (await prisma.quote.findFirstOrThrow({ where: { id: q.id } })).status]).toEqual(['PENDING', 1_400n, 'PENDING']);
    const events = (await prisma.webhookEvent.findMany({ where: { platformId: s.p.platformId } })).filter((e) => (e.data as { id: string }).id === t.id);
    expect(events.map((e) => [e.type, (e.data as { status: string }).status])).toEqual([['OUTGOING_PAYMENT.PENDING', 'PENDING']]);
    const record = await prisma.idempotencyRecord.findUniqueOrThrow({ where: { platformId_key: { platformId: s.p.platformId, key: 'pending' } } });
    expect([record.state, record.resourceId]).toEqual(['COMMITTED', q.id]);
    expect(await prisma.ledgerJournal.count({ where: { platformId: s.p.platformId, referenceId: t.id } })).toBe(0);
    const again = await s.p.request({ method: 'POST', url: '/quotes', payload: body(s, 1_400, false), headers: { 'idempotency-key': 'pending' } });
    expect([again.statusCode, again.json().id]).toEqual([201, q.id]);
    expect(await prisma.quote.count({ where: { platformId: s.p.platformId } })).toBe(1);
  });
});

describe('one writer per incoming credit', () => {
  async function creditRows(s: Setup, transactionId: string) {
    const prisma = env.deps.prisma;
    const t = await prisma.transaction.findFirstOrThrow({ where: { id: transactionId } });
    const history = await prisma.statusChange.findMany({ where: { platformId: s.p.platformId, resourceId: t.id }, orderBy: [{ id: 'asc' }] });
    const journals = await prisma.ledgerJournal.findMany({ where: { platformId: s.p.platformId, referenceId: t.id } });
    const events = (await prisma.webhookEvent.findMany({ where: { platformId: s.p.platformId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })).filter((e) => (e.data as { id: string }).id === t.id);
    return {
      status: t.status,
      history: history.map((h) => `${h.event}:${h.fromStatus}->${h.toStatus}`),
      journals: journals.length,
      events: events.map((e) => e.type),
    };
  }

  it('a sandbox transfer-in and a UMA payment credited at once are written alike, history included', async () => {
    const s = await setup();
    const pulled = await s.p.request({ method: 'POST', url: '/transfer-in', payload: { source: { accountId: s.dest }, destination: { accountId: s.usd }, amount: 700 } });
    expect(pulled.statusCode, pulled.body).toBe(201);
    const address = (await env.deps.prisma.customer.findFirstOrThrow({ where: { id: s.customerId } })).umaAddress;
    const uma = await s.p.request({ method: 'POST', url: '/sandbox/uma/incoming', payload: { receiverUmaAddress: address, amount: 900, currency: 'USD' } });
    expect(uma.statusCode, uma.body).toBe(201);
    const expected = { status: 'COMPLETED', history: ['execute:PENDING->PROCESSING', 'complete:PROCESSING->COMPLETED'], journals: 1, events: ['INCOMING_PAYMENT.COMPLETED'] };
    expect(await creditRows(s, pulled.json().id)).toEqual(expected);
    expect(await creditRows(s, uma.json().id)).toEqual(expected);
    expect((await balances(env, s.usd)).available).toBe(100_000n + 700n + 900n);
    await expectLedgerConsistent(env, s.p.platformId);
  });
});

describe('one writer per settlement, failure, refund and return', () => {
  /** ACTIVE destinations whose account numbers pick the sandbox rail's behaviour (verified while the workers run). */
  async function destinations(s: Setup, ...numbers: string[]): Promise<string[]> {
    const workers = env.startWorkers();
    try {
      return await Promise.all(numbers.map((n) => anActiveExternalAccount(s.p, usdBankAccount(n), s.customerId)));
    } finally {
      await workers.close();
    }
  }

  /** A payment of `amount` to `dest`, executed with the workers off (PROCESSING, not submitted). */
  async function executed(s: Setup, dest: string, amount: number): Promise<string> {
    const q = (await s.p.request({ method: 'POST', url: '/quotes', payload: { ...body(s, amount, false), destination: { destinationType: 'ACCOUNT', accountId: dest } } })).json();
    const res = await s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute` });
    expect(res.statusCode, res.body).toBe(200);
    return q.transactionId as string;
  }

  /** Everything a payment's life wrote, in order, with ids, times and references left out. */
  async function lifeRows(s: Setup, transactionId: string) {
    const prisma = env.deps.prisma;
    const t = await prisma.transaction.findFirstOrThrow({ where: { id: transactionId } });
    const q = await prisma.quote.findFirstOrThrow({ where: { id: t.quoteId! } });
    const journals = await prisma.ledgerJournal.findMany({ where: { platformId: s.p.platformId, referenceId: t.id }, orderBy: [{ id: 'asc' }] });
    const entries = await prisma.ledgerEntry.findMany({ where: { journalId: { in: journals.map((j) => j.id) } }, orderBy: [{ account: 'asc' }, { bucket: 'asc' }] });
    const history = await prisma.statusChange.findMany({ where: { platformId: s.p.platformId, resourceId: { in: [t.id, q.id] } }, orderBy: [{ id: 'asc' }] });
    const events = (await prisma.webhookEvent.findMany({ where: { platformId: s.p.platformId }, orderBy: [{ id: 'asc' }] })).filter((e) => (e.data as { id: string }).id === t.id);
    const name = (account: string) => (account === s.usd ? 'source' : account);
    return {
      transaction: { status: t.status, refund: t.refundStatus, settled: t.settledAt !== null },
      quote: q.status,
      journals: journals.map((j) => ({ kind: j.kind, key: j.idempotencyKey.replace(t.id, 'T'), entries: entries.filter((e) => e.journalId === j.id).map((e) => `${name(e.account)} ${e.bucket} ${e.amount}`) })),
      history: history.map((h) => `${h.machine} ${h.event} ${h.fromStatus}->${h.toStatus}`),
      events: events.map((e) => e.type),
    };
  }

  const waitFor = (s: Setup, transactionId: string, status: string, refund: string | null = null) =>
    eventually(async () => {
      const t = await env.deps.prisma.transaction.findFirstOrThrow({ where: { id: transactionId } });
      return t.status === status && t.refundStatus === refund ? t : undefined;
    }).catch(async (err) => {
      const t = await env.deps.prisma.transaction.findFirstOrThrow({ where: { id: transactionId } });
      throw new Error(`${transactionId} is ${t.status} (refund ${t.refundStatus}), not ${status} (refund ${refund}): ${err}`);
    });

  /** Runs the workers until the payment reaches `status` (and `refund`). */
  async function withWorkers(s: Setup, transactionId: string, status: string, refund: string | null = null) {
    const workers = env.startWorkers();
    try {
      return await waitFor(s, transactionId, status, refund);
    } finally {
      await workers.close();
    }
  }

  const hold = (amount: number) => ({ kind: 'PAYMENT_HOLD', key: 'T:hold', entries: [`source AVAILABLE ${-amount}`, `source HELD ${amount}`] });
  // The sandbox's service fee on ACH: 25.
  const settle = (amount: number) => ({ kind: 'PAYMENT_SETTLE', key: 'T:settle', entries: [`source HELD ${-amount}`, `system:RAIL_CLEARING:ACH:USD SYSTEM ${amount - 25}`, 'system:SERVICE_FEES:USD SYSTEM 25'] });
  const started = ['transaction execute PENDING->PROCESSING', 'quote execute PENDING->PROCESSING'];

  it('settle: the worker\'s submission (rail completes at once) and a pushed report write the same rows', async () => {
    const s = await setup();
    const bySubmission = await executed(s, s.dest, 2_100);
    await withWorkers(s, bySubmission, 'COMPLETED');
    const byReport = await executed(s, s.dest, 2_100);
    expect(await applyPayoutReport(env.deps, s.p.platformId, byReport, { status: 'COMPLETED', reference: 'pushed-1', retryable: false })).toEqual({ next: 'DONE' });
    const expected = {
      transaction: { status: 'COMPLETED', refund: null, settled: true },
      quote: 'COMPLETED',
      journals: [hold(2_100), settle(2_100)],
      history: [...started, 'transaction complete PROCESSING->COMPLETED', 'quote complete PROCESSING->COMPLETED'],
      events: ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED'],
    };
    expect(await lifeRows(s, bySubmission)).toEqual(expected);
    expect(await lifeRows(s, byReport)).toEqual(expected);
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('fail and refund (release): refused at submission and failed after it write the same rows', async () => {
    const s = await setup();
    const [refusing, failing] = await destinations(s, '123456002', '123456004');
    const atSubmit = await executed(s, refusing!, 2_200);
    await withWorkers(s, atSubmit, 'FAILED', 'COMPLETED');
    const afterSubmit = await executed(s, failing!, 2_200);
    await withWorkers(s, afterSubmit, 'FAILED', 'COMPLETED');
    const expected = {
      transaction: { status: 'FAILED', refund: 'COMPLETED', settled: false },
      quote: 'FAILED',
      journals: [hold(2_200), { kind: 'PAYMENT_RELEASE', key: 'T:release', entries: ['source AVAILABLE 2200', 'source HELD -2200'] }],
      history: [...started, 'transaction fail PROCESSING->FAILED', 'quote fail PROCESSING->FAILED', 'refund start NONE->PENDING', 'refund complete PENDING->COMPLETED'],
      events: ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_PENDING', 'OUTGOING_PAYMENT.REFUND_COMPLETED'],
    };
    expect(await lifeRows(s, atSubmit)).toEqual(expected);
    expect(await lifeRows(s, afterSubmit)).toEqual(expected);
    expect(await balances(env, s.usd)).toEqual({ available: 100_000n, held: 0n });
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('return: a bank return found by a poll and one pushed by the rail write the same rows', async () => {
    const s = await setup();
    const [returning] = await destinations(s, '123456005');
    const polled = await executed(s, returning!, 2_300);
    await withWorkers(s, polled, 'FAILED', 'COMPLETED');
    const pushed = await executed(s, s.dest, 2_300);
    const settled = await withWorkers(s, pushed, 'COMPLETED');
    expect(await applyPayoutReport(env.deps, s.p.platformId, pushed, { status: 'RETURNED', reference: settled.railReference!, retryable: false })).toEqual({ next: 'REFUND' });
    await enqueueRefund(env.deps, { platformId: s.p.platformId, transactionId: pushed });
    await withWorkers(s, pushed, 'FAILED', 'COMPLETED');
    const expected = {
      transaction: { status: 'FAILED', refund: 'COMPLETED', settled: true },
      quote: 'FAILED',
      journals: [hold(2_300), settle(2_300), { kind: 'PAYMENT_RETURN', key: 'T:return', entries: ['source AVAILABLE 2300', 'system:RAIL_CLEARING:ACH:USD SYSTEM -2275', 'system:SERVICE_FEES:USD SYSTEM -25'] }],
      history: [
        ...started,
        'transaction complete PROCESSING->COMPLETED',
        'quote complete PROCESSING->COMPLETED',
        'transaction bankReturn COMPLETED->FAILED',
        'quote bankReturn COMPLETED->FAILED',
        'refund start NONE->PENDING',
        'refund complete PENDING->COMPLETED',
      ],
      events: ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED', 'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_PENDING', 'OUTGOING_PAYMENT.REFUND_COMPLETED'],
    };
    expect(await lifeRows(s, polled)).toEqual(expected);
    expect(await lifeRows(s, pushed)).toEqual(expected);
    expect(await balances(env, s.usd)).toEqual({ available: 100_000n, held: 0n });
    await expectLedgerConsistent(env, s.p.platformId);
  });
});
