import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { applyPayoutReport } from '../../src/domains/payments/settlement.service.js';
import { enqueueRefund } from '../../src/domains/payments/transactions.jobs.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';
import { Receiver } from '../helpers/receiver.js';
import { resourceKey } from '../../src/platform/ids.js';
import { anEuCustomer, loginWithSms } from '../sca/helpers.js';

/**
 * Issue 24: one writer per money operation. Whatever starts a payment — POST /quotes with
 * immediatelyExecute, a later execute, SCA's authorize, a real-time quote's deposit, a UMA payment,
 * POST /transfer-out, an agent's execution, the platform's approval of an agent's payment — the rows its
 * start writes are the same: quote and transaction PROCESSING, one hold journal with its two entries,
 * the history rows of both moves, OUTGOING_PAYMENT.PROCESSING and the balance event, and the
 * Idempotency-Key record when the request carried one. An agent's payment that waits for its platform
 * (by its execute or its quote's deposit) writes the same wait. An incoming payment is written by one
 * writer however it arrives: credited at once (a UMA payment, a sandbox transfer-in) with its history,
 * journal and event; paid out to the customer's deposit account at once or once its platform approved it
 * (REF's handshake), whose wait is written with its question. A payment's later moves — settled,
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

/** `work` while the workers run (verifications, fundings); they stop after it, so the payments stay where their writer left them. */
async function whileWorkersRun<T>(work: () => Promise<T>): Promise<T> {
  const workers = env.startWorkers();
  try {
    return await work();
  } finally {
    await workers.close();
  }
}

/** A funded customer with an ACTIVE destination (`customer`: another kind of customer, e.g. one under SCA). */
async function setup(customer: (p: TestPlatform) => Promise<{ customerId: string; accounts: Record<string, string> }> = (p) => anApprovedCustomer(env, p, ['USD'])): Promise<Setup> {
  return whileWorkersRun(async () => {
    const p = await env.platform();
    const c = await customer(p);
    const dest = await anActiveExternalAccount(p, usdBankAccount(), c.customerId);
    await fund(p, c.accounts.USD!, 100_000);
    return { p, customerId: c.customerId, usd: c.accounts.USD!, dest };
  });
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
  const journals = await prisma.ledgerJournal.findMany({ where: { platformId: s.p.platformId, referenceId: resourceKey(t.id) } });
  const entries = await prisma.ledgerEntry.findMany({ where: { journalId: { in: journals.map((j) => j.id) } }, orderBy: [{ bucket: 'asc' }] });
  const history = await prisma.statusChange.findMany({ where: { platformId: s.p.platformId, resourceId: { in: [t.id, q.id].map(resourceKey) }, toStatus: 'PROCESSING' }, orderBy: [{ machine: 'asc' }] });
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
    record: record ? { state: record.state, resource: resourceKind(record.resourceId) } : null,
  };
}

/** What an Idempotency-Key record names: the kind of its resource (Quote, Transaction, Deposit). */
const resourceKind = (id: string | null) => id?.slice(0, id.indexOf(':')) ?? null;

/** The Idempotency-Key record of a request: written by its effect (COMMITTED), or with its answer stored (DONE, routes with a lease). */
type KeyRecord = { state: 'COMMITTED' | 'DONE'; resource: string } | null;
const byEffect = (resource: string): KeyRecord => ({ state: 'COMMITTED', resource });
const answered = (resource: string): KeyRecord => ({ state: 'DONE', resource });

/** A start's rows; `record`: the request's Idempotency-Key record (none without a key). */
const expectedStart = (amount: number, record: KeyRecord, event: 'execute' | 'authorize' = 'execute') => ({
  transaction: { status: 'PROCESSING', pendingReason: null, held: BigInt(amount) },
  quote: { status: 'PROCESSING', executed: true },
  journals: [{ kind: 'PAYMENT_HOLD', key: 'T:hold' }],
  entries: [
    { account: 'source', bucket: 'AVAILABLE', amount: BigInt(-amount) },
    { account: 'source', bucket: 'HELD', amount: BigInt(amount) },
  ],
  history: ['quote', 'transaction'].map((machine) => ({ machine, event, from: event === 'execute' ? 'PENDING' : 'PENDING_AUTHORIZATION', to: 'PROCESSING' })),
  processingEvents: [{ status: 'PROCESSING', pendingReason: null }],
  balanceEvent: true,
  record,
});

describe('one writer per payment start', () => {
  it('POST /quotes with immediatelyExecute, keyed: the start rows and the key record', async () => {
    const s = await setup();
    const res = await s.p.request({ method: 'POST', url: '/quotes', payload: body(s, 1_100, true), headers: { 'idempotency-key': 'imm' } });
    expect(res.statusCode, res.body).toBe(201);
    expect(await startRows(s, res.json().transactionId, 'imm')).toEqual(expectedStart(1_100, byEffect('Quote')));
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('POST /quotes/{id}/execute, keyed: the same rows', async () => {
    const s = await setup();
    const q = (await s.p.request({ method: 'POST', url: '/quotes', payload: body(s, 1_200, false) })).json();
    const res = await s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute`, headers: { 'idempotency-key': 'exe' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(await startRows(s, q.transactionId, 'exe')).toEqual(expectedStart(1_200, byEffect('Quote')));
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
    expect(await startRows(s, q.transactionId)).toEqual(expectedStart(1_300, null));
    const t = await env.deps.prisma.transaction.findFirstOrThrow({ where: { id: q.transactionId } });
    expect(t.agentCountedAmount).toBe(1_300n);
    expect(await balances(env, s.usd)).toEqual({ available: 100_000n - 1_300n, held: 1_300n });
    await expectLedgerConsistent(env, s.p.platformId);
  });
});

/** An agent of the customer in REF's shape whose payments above `threshold` wait for the platform, and its calls. */
async function anAgent(s: Setup, threshold: number) {
  const policy = {
    permissions: ['VIEW_TRANSACTIONS', 'CREATE_QUOTES', 'EXECUTE_QUOTES', 'CREATE_TRANSFERS'],
    defaultExecutionMode: 'AUTO',
    spendingLimits: { currency: 'USD', perTransactionLimit: 100_000, dailyLimit: 500_000, dailyTransactionLimit: 20, monthlyLimit: 2_000_000 },
    approvalThresholds: { currency: 'USD', amount: threshold },
  };
  const created = await s.p.request({ method: 'POST', url: '/agents', payload: { customerId: s.customerId, name: 'Payroll bot', policy } });
  expect(created.statusCode, created.body).toBe(201);
  const { agent, deviceCode } = created.json();
  const redeemed = await env.app.inject({ method: 'POST', url: `${BASE}/agents/device-codes/${deviceCode.code}/redeem` });
  expect(redeemed.statusCode, redeemed.body).toBe(200);
  const token = redeemed.json().accessToken as string;
  const post = (url: string, payload?: object) => env.app.inject({ method: 'POST', url: `${BASE}${url}`, payload, headers: { authorization: `Bearer ${token}` } });
  /** The agent's quote of `amount` (`source`: another source, e.g. real-time funding) and its execution's answer (an AgentAction). */
  const quote = async (amount: number, source?: object) => {
    const res = await post('/agents/me/quotes', { ...body(s, amount, false), ...(source ? { source } : {}) });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const execute = async (quoteId: string) => {
    const res = await post(`/agents/me/quotes/${quoteId}/execute`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  return { agentId: agent.id as string, quote, execute };
}

/** A real-time funded quote's bank reference, and its exact deposit (`key`: the deposit request's Idempotency-Key). */
const fiatReference = (q: { paymentInstructions: Array<{ accountOrWalletInfo: { reference?: string } }> }) => q.paymentInstructions.map((i) => i.accountOrWalletInfo).find((i) => i.reference)!.reference!;
const realtimeSource = (s: Setup) => ({ sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: s.customerId });
async function deposit(s: Setup, q: { paymentInstructions: Array<{ accountOrWalletInfo: { reference?: string } }>; totalSendingAmount: number }, key?: string) {
  const res = await s.p.request({ method: 'POST', url: '/sandbox/deposits', payload: { reference: fiatReference(q), amount: q.totalSendingAmount, currency: 'USD' }, headers: key ? { 'idempotency-key': key } : {} });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe('one writer per payment start, every trigger', () => {
  it('POST /quotes/{id}/authorize with a verified SCA code: the same rows, moved by `authorize`', async () => {
    const s = await setup((p) => anEuCustomer(env, p));
    expect((await loginWithSms(s.p, s.customerId)).statusCode).toBe(200);
    const q = (await s.p.request({ method: 'POST', url: '/quotes', payload: body(s, 1_500, false) })).json();
    expect(q.status).toBe('PENDING_AUTHORIZATION');
    const res = await s.p.request({ method: 'POST', url: `/quotes/${q.id}/authorize`, payload: { code: '123456' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(await startRows(s, q.transactionId)).toEqual(expectedStart(1_500, null, 'authorize'));
    // The challenge was used up by the start's statement: a second code is refused, nothing more is held.
    expect((await s.p.request({ method: 'POST', url: `/quotes/${q.id}/authorize`, payload: { code: '123456' } })).statusCode).toBe(409);
    expect(await balances(env, s.usd)).toEqual({ available: 100_000n - 1_500n, held: 1_500n });
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it("a real-time funded quote's exact deposit, keyed: the same rows; the key's record names the deposit", async () => {
    const s = await setup();
    const q = (await s.p.request({ method: 'POST', url: '/quotes', payload: { ...body(s, 1_600, false), source: realtimeSource(s) } })).json();
    expect(q.status).toBe('PENDING');
    expect((await deposit(s, q, 'deposit')).outcome).toBe('EXECUTED');
    expect(await startRows(s, q.transactionId, 'deposit')).toEqual(expectedStart(1_600, answered('Deposit')));
    // Credited by the deposit's journal, then held by the start's.
    expect(await balances(env, s.usd)).toEqual({ available: 100_000n, held: 1_600n });
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('a payment to a UMA address, executed and immediate (both keyed): the same rows', async () => {
    const s = await setup();
    const umaQuote = async (immediatelyExecute: boolean, key?: string) => {
      const lookup = await s.p.request({ method: 'GET', url: `/receiver/uma/${encodeURIComponent('$alice@sandbox.uma')}?customerId=${s.customerId}` });
      expect(lookup.statusCode, lookup.body).toBe(200);
      const payload = { source: { sourceType: 'ACCOUNT', accountId: s.usd }, destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$alice@sandbox.uma', currency: 'USD' }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1_700, lookupId: lookup.json().lookupId, immediatelyExecute };
      const res = await s.p.request({ method: 'POST', url: '/quotes', payload, headers: key ? { 'idempotency-key': key } : {} });
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    };
    const q = await umaQuote(false);
    const executed = await s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute`, headers: { 'idempotency-key': 'uma-execute' } });
    expect(executed.statusCode, executed.body).toBe(200);
    const immediate = await umaQuote(true, 'uma-immediate');
    expect(await startRows(s, q.transactionId, 'uma-execute')).toEqual(expectedStart(q.totalSendingAmount, byEffect('Quote')));
    expect(await startRows(s, immediate.transactionId, 'uma-immediate')).toEqual(expectedStart(immediate.totalSendingAmount, byEffect('Quote')));
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('POST /transfer-out, keyed: the same rows', async () => {
    const s = await setup();
    const res = await s.p.request({ method: 'POST', url: '/transfer-out', payload: { source: { accountId: s.usd }, destination: { accountId: s.dest }, amount: 1_800 }, headers: { 'idempotency-key': 'out' } });
    expect(res.statusCode, res.body).toBe(201);
    expect(await startRows(s, res.json().id, 'out')).toEqual(expectedStart(1_800, byEffect('Quote')));
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it("an agent's execution within its policy, and the platform's approval of its payments (REF's action approval, POST /transactions/{id}/approve): the same rows", async () => {
    const s = await setup();
    const a = await anAgent(s, 5_000);
    const own = await a.quote(1_900);
    expect((await a.execute(own.id)).status).toBe('APPROVED');
    const byAction = await a.quote(6_000);
    expect((await a.execute(byAction.id)).status).toBe('PENDING_APPROVAL');
    const action = await env.deps.prisma.agentAction.findFirstOrThrow({ where: { transactionId: byAction.transactionId } });
    const approved = await s.p.request({ method: 'POST', url: `/agents/${a.agentId}/actions/${action.id}/approve` });
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json().status).toBe('APPROVED');
    const byTransaction = await a.quote(6_100);
    expect((await a.execute(byTransaction.id)).status).toBe('PENDING_APPROVAL');
    const res = await s.p.request({ method: 'POST', url: `/transactions/${byTransaction.transactionId}/approve` });
    expect(res.statusCode, res.body).toBe(200);
    const started = [[own, 1_900], [byAction, 6_000], [byTransaction, 6_100]] as const;
    for (const [q, amount] of started) expect(await startRows(s, q.transactionId)).toEqual(expectedStart(amount, null));
    // The agent's fields, written by its execution (or its wait), stay with the payment.
    const rows = await env.deps.prisma.transaction.findMany({ where: { id: { in: started.map(([q]) => q.transactionId) } }, orderBy: { sentAmount: 'asc' } });
    expect(rows.map((t) => [t.agentId, t.agentCountedAmount])).toEqual(started.map(([, amount]) => [a.agentId, BigInt(amount)]));
    expect(await balances(env, s.usd)).toEqual({ available: 100_000n - 14_000n, held: 14_000n });
    await expectLedgerConsistent(env, s.p.platformId);
  });
});

describe("one writer per agent's payment waiting for its platform", () => {
  /** What waiting wrote: no status move, nothing held, the payment announced PENDING again with its reason. */
  async function waitRows(s: Setup, transactionId: string) {
    const prisma = env.deps.prisma;
    const t = await prisma.transaction.findFirstOrThrow({ where: { id: transactionId } });
    const q = await prisma.quote.findFirstOrThrow({ where: { id: t.quoteId! } });
    const action = await prisma.agentAction.findFirstOrThrow({ where: { transactionId } });
    const events = await prisma.webhookEvent.findMany({ where: { platformId: s.p.platformId }, orderBy: [{ id: 'asc' }] });
    const about = (id: string) => events.filter((e) => (e.data as { id: string }).id === id);
    return {
      transaction: { status: t.status, pendingReason: t.pendingReason, counted: t.agentCountedAmount, askedAt: t.approvalRequestedAt?.getTime() === t.updatedAt.getTime() },
      quote: { status: q.status, validFor: q.expiresAt.getTime() - t.approvalRequestedAt!.getTime() },
      history: await prisma.statusChange.count({ where: { platformId: s.p.platformId, resourceId: { in: [t.id, q.id].map(resourceKey) } } }),
      journals: await prisma.ledgerJournal.count({ where: { platformId: s.p.platformId, referenceId: resourceKey(t.id) } }),
      events: about(t.id).map((e) => `${e.type} ${(e.data as { pendingReason?: string }).pendingReason ?? '-'}`),
      action: { status: action.status, events: about(action.id).map((e) => e.type) },
    };
  }

  it('by its execute and by its real-time quote\'s deposit: the same rows', async () => {
    const s = await setup();
    const a = await anAgent(s, 5_000);
    const executed = await a.quote(7_000);
    expect((await a.execute(executed.id)).status).toBe('PENDING_APPROVAL');
    const funded = await a.quote(7_000, realtimeSource(s));
    expect((await deposit(s, funded)).outcome).toBe('AWAITING_APPROVAL');
    const expected = {
      transaction: { status: 'PENDING', pendingReason: 'PLATFORM_APPROVAL', counted: 7_000n, askedAt: true },
      quote: { status: 'PENDING', validFor: env.config.AGENT_APPROVAL_WINDOW_SECONDS * 1000 },
      history: 0,
      journals: 0,
      events: ['OUTGOING_PAYMENT.PENDING -', 'OUTGOING_PAYMENT.PENDING PLATFORM_APPROVAL'],
      action: { status: 'PENDING_APPROVAL', events: ['AGENT_ACTION.PENDING_APPROVAL'] },
    };
    expect(await waitRows(s, executed.transactionId)).toEqual(expected);
    expect(await waitRows(s, funded.transactionId)).toEqual(expected);
    // Nothing held; the deposit credited the balance.
    expect(await balances(env, s.usd)).toEqual({ available: 100_000n + 7_000n, held: 0n });
    // A second execute of a waiting payment moves nothing.
    const again = await s.p.request({ method: 'POST', url: `/quotes/${executed.id}/execute` });
    expect(again.statusCode).toBe(409);
    expect(await waitRows(s, executed.transactionId)).toEqual(expected);
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
    expect(await prisma.ledgerJournal.count({ where: { platformId: s.p.platformId, referenceId: resourceKey(t.id) } })).toBe(0);
    const again = await s.p.request({ method: 'POST', url: '/quotes', payload: body(s, 1_400, false), headers: { 'idempotency-key': 'pending' } });
    expect([again.statusCode, again.json().id]).toEqual([201, q.id]);
    expect(await prisma.quote.count({ where: { platformId: s.p.platformId } })).toBe(1);
  });
});

describe('one writer per incoming payment', () => {
  /** Everything an incoming payment's arrival wrote, with ids and times left out. */
  async function incomingRows(s: Setup, transactionId: string, key?: string) {
    const prisma = env.deps.prisma;
    const t = await prisma.transaction.findFirstOrThrow({ where: { id: transactionId } });
    const history = await prisma.statusChange.findMany({ where: { platformId: s.p.platformId, resourceId: resourceKey(t.id) }, orderBy: [{ id: 'asc' }] });
    const journals = await prisma.ledgerJournal.findMany({ where: { platformId: s.p.platformId, referenceId: resourceKey(t.id) }, orderBy: [{ id: 'asc' }] });
    const entries = await prisma.ledgerEntry.findMany({ where: { journalId: { in: journals.map((j) => j.id) } } });
    const events = (await prisma.webhookEvent.findMany({ where: { platformId: s.p.platformId }, orderBy: [{ id: 'asc' }] })).filter((e) => (e.data as { id: string }).id === t.id);
    const record = key ? await prisma.idempotencyRecord.findUnique({ where: { platformId_key: { platformId: s.p.platformId, key } } }) : null;
    const name = (account: string) => (account === s.usd ? 'internal' : account);
    return {
      transaction: { status: t.status, pendingReason: t.pendingReason, destination: t.destinationKind, settled: t.settledAt !== null },
      history: history.map((h) => `${h.event} ${h.fromStatus}->${h.toStatus}`),
      journals: journals.map((j) => ({ kind: j.kind, key: j.idempotencyKey.replace(t.id, 'T'), entries: entries.filter((e) => e.journalId === j.id).map((e) => `${name(e.account)} ${e.bucket} ${e.amount}`).sort() })),
      // An event its writer's caller delivers in the flow has its attempt; the others wait for the webhook workers (not running here).
      events: events.map((e) => `${e.type} ${(e.data as { status: string }).status}${e.attemptCount > 0 ? ' asked' : ''}`),
      record: record ? { state: record.state, resource: resourceKind(record.resourceId) } : null,
    };
  }

  const incoming = async (s: Setup, amount: number, key: string) => {
    const address = (await env.deps.prisma.customer.findFirstOrThrow({ where: { id: s.customerId } })).umaAddress;
    const res = await s.p.request({ method: 'POST', url: '/sandbox/uma/incoming', payload: { receiverUmaAddress: address, amount, currency: 'USD' }, headers: { 'idempotency-key': key } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };

  it('credited at once — a sandbox transfer-in and a UMA payment to the internal account, keyed: the transaction COMPLETED with its history, its journal and entries, its event, the key record', async () => {
    const s = await setup();
    const pulled = await s.p.request({ method: 'POST', url: '/transfer-in', payload: { source: { accountId: s.dest }, destination: { accountId: s.usd }, amount: 700 }, headers: { 'idempotency-key': 'pull' } });
    expect(pulled.statusCode, pulled.body).toBe(201);
    const uma = await incoming(s, 900, 'uma-in');
    const credited = (kind: string, key: string, from: string, amount: number, record: KeyRecord) => ({
      transaction: { status: 'COMPLETED', pendingReason: null, destination: 'INTERNAL', settled: true },
      history: ['execute PENDING->PROCESSING', 'complete PROCESSING->COMPLETED'],
      journals: [{ kind, key, entries: [`${from} SYSTEM -${amount}`, `internal AVAILABLE ${amount}`].sort() }],
      events: ['INCOMING_PAYMENT.COMPLETED COMPLETED'],
      record,
    });
    expect(await incomingRows(s, pulled.json().id, 'pull')).toEqual(credited('TRANSFER_IN', 'T:pull', 'system:RAIL_CLEARING:ACH:USD', 700, byEffect('Transaction')));
    expect(await incomingRows(s, uma.id, 'uma-in')).toEqual(credited('UMA_INCOMING', 'T:settle', 'system:UMA_CLEARING:USD', 900, answered('Transaction')));
    expect((await balances(env, s.usd)).available).toBe(100_000n + 700n + 900n);
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it("paid out to the customer's UMA deposit account — at once, and after its platform's approval (REF's handshake, answer 202): the start's rows are the same; waiting wrote CREATED → PENDING and the question, delivered once in the flow", async () => {
    const s = await setup();
    const hooks = await new Receiver().start();
    try {
      await whileWorkersRun(() => anActiveExternalAccount(s.p, { ...usdBankAccount('555000111'), defaultUmaDepositAccount: true }, s.customerId));
      const direct = await incoming(s, 2_500, 'direct');
      expect(direct.status).toBe('PROCESSING');

      const configured = await s.p.request({ method: 'PATCH', url: '/config', payload: { webhookEndpoint: hooks.url, incomingPaymentApproval: true } });
      expect(configured.statusCode, configured.body).toBe(200);
      hooks.script.push(202);
      const asked = await incoming(s, 2_600, 'asked');
      expect(asked).toMatchObject({ status: 'PENDING', pendingReason: 'PLATFORM_APPROVAL' });
      const asks = hooks.received.filter((r) => r.json?.type === 'INCOMING_PAYMENT.PENDING');
      expect(asks.map((r) => r.json.data)).toEqual([expect.objectContaining({ id: asked.id, status: 'PENDING', pendingReason: 'PLATFORM_APPROVAL', requestedReceiverCustomerInfoFields: [] })]);
      const waiting = {
        transaction: { status: 'PENDING', pendingReason: 'PLATFORM_APPROVAL', destination: 'EXTERNAL', settled: false },
        history: ['receive CREATED->PENDING'],
        journals: [],
        events: ['INCOMING_PAYMENT.PENDING PENDING asked'],
        record: answered('Transaction'),
      };
      expect(await incomingRows(s, asked.id, 'asked')).toEqual(waiting);
      // Written relayed: the relay never hands the question on; its one attempt is the in-flow delivery.
      const question = await env.deps.prisma.webhookEvent.findFirstOrThrow({ where: { platformId: s.p.platformId, type: 'INCOMING_PAYMENT.PENDING', resourceId: resourceKey(asked.id) } });
      expect([question.relayedAt !== null, question.attemptCount, question.deliveryStatus]).toEqual([true, 1, 'DELIVERED']);

      const approved = await s.p.request({ method: 'POST', url: `/transactions/${asked.id}/approve`, payload: {} });
      expect(approved.statusCode, approved.body).toBe(200);
      const started = {
        transaction: { status: 'PROCESSING', pendingReason: null, destination: 'EXTERNAL', settled: false },
        history: ['execute PENDING->PROCESSING'],
        journals: [],
        events: ['INCOMING_PAYMENT.PENDING PENDING', 'INCOMING_PAYMENT.PROCESSING PROCESSING'],
        record: answered('Transaction'),
      };
      expect(await incomingRows(s, direct.id, 'direct')).toEqual(started);
      expect(await incomingRows(s, asked.id, 'asked')).toEqual({
        ...started,
        history: [...waiting.history, ...started.history],
        events: [...waiting.events, 'INCOMING_PAYMENT.PROCESSING PROCESSING'],
      });
      // Nothing moved in the ledger yet: the money waits in clearing until the rail pays it out.
      expect(await balances(env, s.usd)).toEqual({ available: 100_000n, held: 0n });
    } finally {
      await hooks.stop();
    }
  });
});

describe('one writer per settlement, failure, refund and return', () => {
  /** ACTIVE destinations whose account numbers pick the sandbox rail's behaviour (verified while the workers run). */
  async function destinations(s: Setup, ...numbers: string[]): Promise<string[]> {
    return whileWorkersRun(() => Promise.all(numbers.map((n) => anActiveExternalAccount(s.p, usdBankAccount(n), s.customerId))));
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
    const journals = await prisma.ledgerJournal.findMany({ where: { platformId: s.p.platformId, referenceId: resourceKey(t.id) }, orderBy: [{ id: 'asc' }] });
    const entries = await prisma.ledgerEntry.findMany({ where: { journalId: { in: journals.map((j) => j.id) } }, orderBy: [{ account: 'asc' }, { bucket: 'asc' }] });
    const history = await prisma.statusChange.findMany({ where: { platformId: s.p.platformId, resourceId: { in: [t.id, q.id].map(resourceKey) } }, orderBy: [{ id: 'asc' }] });
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
    return whileWorkersRun(() => waitFor(s, transactionId, status, refund));
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
