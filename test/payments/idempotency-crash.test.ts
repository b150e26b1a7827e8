import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer, balances, expectLedgerConsistent, fund } from '../helpers/builders.js';
import { call, startApi, type ServiceProcess } from '../helpers/processes.js';
import { ctxFor } from '../../src/deps.js';
import { claimingDb, IdempotencyKeyTakenError, type IdempotencyClaim } from '../../src/platform/idempotency.js';
import { fundSandboxAccount } from '../../src/domains/ledger/internal-accounts.service.js';
import { resourceKey } from '../../src/platform/ids.js';

// Idempotency-Key under crashes and concurrency (issue 11, docs/decisions.md "Idempotency"): the key's
// record is written by the transaction that commits the effect, so no interleaving of requests, leases
// or process deaths gives one key two effects.

/** Starting real API processes through tsx takes a while on a loaded 2-core machine. */
const PROCESS_TEST_TIMEOUT_MS = 300_000;

let env: TestEnv;
let latch: { reached: boolean; release: () => void; released: Promise<void> } | undefined;

beforeAll(async () => {
  env = await createTestEnv({ IDEMPOTENCY_LEASE_MS: '300' }, {
    extendApi: (api) => {
      // A request slower than any lease: it waits for the test before committing its effect.
      api.post('/slow-fund/:accountId', { config: { idempotent: true } }, async (req) => {
        if (latch) {
          latch.reached = true;
          await latch.released;
        }
        const account = await fundSandboxAccount(req.ctx, (req.params as { accountId: string }).accountId, 500n);
        return { availableBalance: Number(account.availableBalance) };
      });
    },
  });
});
afterAll(() => env.close());

function newLatch() {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  return { reached: false, release, released };
}

async function fundJournals(platformId: string, accountId: string): Promise<number> {
  return env.deps.prisma.ledgerJournal.count({ where: { platformId, kind: 'SANDBOX_FUNDING', referenceId: resourceKey(accountId) } });
}

const quoteBody = (source: string, destination: string, amount = 1_000) => ({
  source: { sourceType: 'ACCOUNT', accountId: source },
  destination: { destinationType: 'ACCOUNT', accountId: destination },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: amount,
  immediatelyExecute: true,
});

async function twoFundedCustomers(p: TestPlatform) {
  const a = await anApprovedCustomer(env, p, ['USD']);
  const b = await anApprovedCustomer(env, p, ['USD']);
  await fund(p, a.accounts.USD!, 100_000);
  return { from: a.accounts.USD!, to: b.accounts.USD! };
}

describe('Idempotency-Key across process deaths (real API processes, SIGKILL)', () => {
  let crashing: ServiceProcess | undefined;
  let healthy: ServiceProcess | undefined;
  afterAll(async () => {
    await crashing?.kill();
    await healthy?.kill();
  }, PROCESS_TEST_TIMEOUT_MS);

  it('a process killed between the effect and its response: the retry replays the original payment, which happened once', async () => {
    const p = await env.platform();
    const { from, to } = await twoFundedCustomers(p);
    crashing = await startApi(env, { FAULT_INJECTION: 'true' });
    healthy = await startApi(env);
    const body = quoteBody(from, to, 1_234);

    // The process dies right after the transaction that created the quote and held the money committed.
    const lost = await call(crashing.url, p.auth, 'POST', '/quotes', body, { 'idempotency-key': 'crash-quote', 'x-fault-crash-after-commit': '1' }).catch((err) => err);
    expect(lost).toBeInstanceOf(Error);
    await crashing.waitForExit();
    const quotes = await env.deps.prisma.quote.findMany({ where: { platformId: p.platformId } });
    expect(quotes).toHaveLength(1);

    // The client retries on another process: it gets that quote, not a second payment.
    const retry = await call(healthy.url, p.auth, 'POST', '/quotes', body, { 'idempotency-key': 'crash-quote' });
    expect(retry.status, retry.text).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.json.id).toBe(quotes[0]!.id);
    expect(retry.json.transactionId).toBe(quotes[0]!.transactionId);
    expect(retry.json.totalSendingAmount).toBe(1_234);
    // Once more: now the stored response itself, byte for byte.
    const again = await call(healthy.url, p.auth, 'POST', '/quotes', body, { 'idempotency-key': 'crash-quote' });
    expect(again.status).toBe(201);
    expect(again.text).toBe(retry.text);

    expect(await env.deps.prisma.quote.count({ where: { platformId: p.platformId } })).toBe(1);
    const holds = await env.deps.prisma.ledgerJournal.count({ where: { platformId: p.platformId, kind: 'PAYMENT_HOLD' } });
    expect(holds).toBe(1);
    const after = await balances(env, from);
    expect(after.available).toBe(100_000n - 1_234n);
  }, PROCESS_TEST_TIMEOUT_MS);

  it('the same for an execute and for sandbox funding: one hold, one credit', async () => {
    const p = await env.platform();
    const { from, to } = await twoFundedCustomers(p);
    crashing = await startApi(env, { FAULT_INJECTION: 'true' });
    const created = await call(healthy!.url, p.auth, 'POST', '/quotes', { ...quoteBody(from, to, 2_000), immediatelyExecute: false });
    expect(created.status).toBe(201);

    const lost = await call(crashing.url, p.auth, 'POST', `/quotes/${created.json.id}/execute`, undefined, { 'idempotency-key': 'crash-exec', 'x-fault-crash-after-commit': '1' }).catch((err) => err);
    expect(lost).toBeInstanceOf(Error);
    await crashing.waitForExit();
    const retry = await call(healthy!.url, p.auth, 'POST', `/quotes/${created.json.id}/execute`, undefined, { 'idempotency-key': 'crash-exec' });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.json.id).toBe(created.json.id);
    expect(await env.deps.prisma.ledgerJournal.count({ where: { platformId: p.platformId, kind: 'PAYMENT_HOLD' } })).toBe(1);

    crashing = await startApi(env, { FAULT_INJECTION: 'true' });
    const before = await fundJournals(p.platformId, from);
    const fundLost = await call(crashing.url, p.auth, 'POST', `/sandbox/internal-accounts/${from}/fund`, { amount: 777 }, { 'idempotency-key': 'crash-fund', 'x-fault-crash-after-commit': '1' }).catch((err) => err);
    expect(fundLost).toBeInstanceOf(Error);
    await crashing.waitForExit();
    const fundRetry = await call(healthy!.url, p.auth, 'POST', `/sandbox/internal-accounts/${from}/fund`, { amount: 777 }, { 'idempotency-key': 'crash-fund' });
    expect(fundRetry.status, fundRetry.text).toBe(200);
    expect(fundRetry.headers.get('idempotent-replayed')).toBe('true');
    expect(await fundJournals(p.platformId, from)).toBe(before + 1);
    expect((await balances(env, from)).available).toBe(100_000n - 2_000n + 777n);
    await expectLedgerConsistent(env, p.platformId);
  }, PROCESS_TEST_TIMEOUT_MS);

  it('50 parallel identical requests over two API processes make one payment; the others get it replayed or 409', async () => {
    const p = await env.platform();
    const { from, to } = await twoFundedCustomers(p);
    const second = await startApi(env);
    try {
      const body = quoteBody(from, to, 3_000);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => call(i % 2 ? healthy!.url : second.url, p.auth, 'POST', '/quotes', body, { 'idempotency-key': 'parallel-50' })),
      );
      const quotes = await env.deps.prisma.quote.findMany({ where: { platformId: p.platformId } });
      expect(quotes).toHaveLength(1);
      for (const r of results) {
        if (r.status === 201) expect(r.json.id).toBe(quotes[0]!.id);
        else {
          expect(r.status, r.text).toBe(409);
          expect(r.json.code).toBe('CONFLICT');
        }
      }
      expect(results.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
      expect(await env.deps.prisma.ledgerJournal.count({ where: { platformId: p.platformId, kind: 'PAYMENT_HOLD' } })).toBe(1);
      expect((await balances(env, from)).available).toBe(100_000n - 3_000n);
      // Later retries all get the one payment.
      const later = await call(second.url, p.auth, 'POST', '/quotes', body, { 'idempotency-key': 'parallel-50' });
      expect(later.status).toBe(201);
      expect(later.json.id).toBe(quotes[0]!.id);
    } finally {
      await second.kill();
    }
  }, PROCESS_TEST_TIMEOUT_MS);
});

describe('Idempotency-Key without the Redis lease', () => {
  it('two requests with one key whose transactions overlap: one commits, the other rolls back', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    const claim = (): IdempotencyClaim => ({ platformId: p.platformId, key: 'raw-race', fingerprint: 'f', expiresAt: new Date(Date.now() + 3_600_000), committed: false, taken: false });
    const base = ctxFor(env.deps, p.platformId);
    const ctxs = Array.from({ length: 8 }, () => {
      const c1 = claim();
      return { ...base, idempotency: c1, db: claimingDb(base.db, c1) };
    });
    const outcomes = await Promise.allSettled(ctxs.map((ctx) => fundSandboxAccount(ctx, c.accounts.USD!, 100n)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(IdempotencyKeyTakenError);
    expect((await balances(env, c.accounts.USD!)).available).toBe(100n);
    expect(await fundJournals(p.platformId, c.accounts.USD!)).toBe(1);
  });

  it('a request slower than its lease, whose lease is lost, is still applied once', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    latch = newLatch();
    const first = p.request({ method: 'POST', url: `/slow-fund/${c.accounts.USD}`, headers: { 'idempotency-key': 'slow' }, payload: {} });
    await eventually(async () => latch!.reached);
    // While it runs, a repeat is refused: its lease is renewed for as long as it runs.
    const during = await p.request({ method: 'POST', url: `/slow-fund/${c.accounts.USD}`, headers: { 'idempotency-key': 'slow' }, payload: {} });
    expect(during.statusCode).toBe(409);
    expect(during.json().code).toBe('CONFLICT');
    // Redis loses the lease (wiped, failed over): the next repeat runs, but cannot commit a second effect.
    for (const k of await env.deps.redis.keys(`${env.config.REDIS_PREFIX}:idem:*`)) await env.deps.redis.del(k);
    const secondReached = newLatch();
    const running = latch;
    latch = secondReached;
    const second = p.request({ method: 'POST', url: `/slow-fund/${c.accounts.USD}`, headers: { 'idempotency-key': 'slow' }, payload: {} });
    await eventually(async () => secondReached.reached);
    running.release();
    const a = await first;
    expect(a.statusCode, a.body).toBe(200);
    secondReached.release();
    const b = await second;
    expect(b.statusCode).toBe(409);
    latch = undefined;
    expect((await balances(env, c.accounts.USD!)).available).toBe(500n);
    expect(await fundJournals(p.platformId, c.accounts.USD!)).toBe(1);
    const replay = await p.request({ method: 'POST', url: `/slow-fund/${c.accounts.USD}`, headers: { 'idempotency-key': 'slow' }, payload: {} });
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toEqual(a.json());
  });

  it('a failure after the effect committed keeps the key: the retry gets the effect, not a second one', async () => {
    const p = await env.platform();
    const { from, to } = await twoFundedCustomers(p);
    // A quote whose response fails after its transaction committed: simulated by deleting the
    // answer the first request stored, which leaves the record as a crash would (COMMITTED).
    const first = await p.request({ method: 'POST', url: '/quotes', headers: { 'idempotency-key': 'after-commit' }, payload: quoteBody(from, to, 4_000) });
    expect(first.statusCode).toBe(201);
    await env.deps.prisma.idempotencyRecord.update({ where: { platformId_key: { platformId: p.platformId, key: 'after-commit' } }, data: { state: 'COMMITTED', responseStatus: null, responseBody: null } });
    const retry = await p.request({ method: 'POST', url: '/quotes', headers: { 'idempotency-key': 'after-commit' }, payload: quoteBody(from, to, 4_000) });
    expect(retry.statusCode).toBe(201);
    expect(retry.json().id).toBe(first.json().id);
    expect(await env.deps.prisma.quote.count({ where: { platformId: p.platformId } })).toBe(1);
  });
});
