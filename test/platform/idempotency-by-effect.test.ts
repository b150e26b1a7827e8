import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';
import { resourceKey } from '../../src/platform/ids.js';

// Issue 24: on the money-moving POSTs the Idempotency-Key's record is written by the effect's own
// statement — no Redis lease, no read before, no stored body after — and a repeat is answered from the
// record its effect (or a refusal before it) meets.

let env: TestEnv;
let workers: { close(): Promise<void> };
beforeAll(async () => {
  env = await createTestEnv({ SANDBOX_RAIL_DELAY_SCALE: '0' });
  workers = env.startWorkers();
});
afterAll(async () => {
  await workers.close();
  await env.close();
});

async function setup(): Promise<{ p: TestPlatform; usd: string; dest: string; customerId: string }> {
  const p = await env.platform();
  const c = await anApprovedCustomer(env, p, ['USD']);
  const dest = await anActiveExternalAccount(p, usdBankAccount(), c.customerId);
  await fund(p, c.accounts.USD!, 100_000);
  return { p, usd: c.accounts.USD!, dest, customerId: c.customerId };
}

const payment = (s: { usd: string; dest: string }, amount: number, immediatelyExecute = true) => ({
  source: { sourceType: 'ACCOUNT', accountId: s.usd },
  destination: { destinationType: 'ACCOUNT', accountId: s.dest },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: amount,
  immediatelyExecute,
});

/** The commands the API sends to Redis about Idempotency-Keys while `fn` runs (the lease was SET NX, then EVAL). */
async function redisCommands<T>(fn: () => Promise<T>): Promise<{ result: T; commands: string[] }> {
  const redis = env.deps.redis as unknown as { sendCommand: (cmd: { name: string; args?: unknown[] }) => unknown };
  const original = redis.sendCommand;
  const commands: string[] = [];
  redis.sendCommand = function (this: unknown, cmd: { name: string; args?: unknown[] }) {
    if ((cmd.args ?? []).some((a) => String(a).includes(':idem:'))) commands.push(cmd.name);
    return original.call(this, cmd);
  };
  try {
    return { result: await fn(), commands };
  } finally {
    redis.sendCommand = original;
  }
}

describe('Idempotency-Key written by the effect', () => {
  it('a keyed payment sends Redis nothing an unkeyed one would not, and stores its record with the payment', async () => {
    const s = await setup();
    await s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 100) });
    const unkeyed = await redisCommands(() => s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 100) }));
    const keyed = await redisCommands(() => s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 1_000), headers: { 'idempotency-key': 'fx-1' } }));
    expect(keyed.result.statusCode, keyed.result.body).toBe(201);
    expect(unkeyed.commands).toEqual([]);
    expect(keyed.commands).toEqual([]);
    // The control: a route whose effect does not write the key still takes the lease.
    const leased = await redisCommands(() => s.p.request({ method: 'POST', url: '/invitations', payload: {}, headers: { 'idempotency-key': 'lease-control' } }));
    expect(leased.commands).toContain('set');
    const record = await env.deps.prisma.idempotencyRecord.findUniqueOrThrow({ where: { platformId_key: { platformId: s.p.platformId, key: 'fx-1' } } });
    expect(record).toMatchObject({ state: 'COMMITTED', resourceId: keyed.result.json().id, responseBody: null });
    // The repeat is rebuilt from the quote, then stored: later repeats get the same bytes.
    const again = await s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 1_000), headers: { 'idempotency-key': 'fx-1' } });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().id).toBe(keyed.result.json().id);
    const third = await s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 1_000), headers: { 'idempotency-key': 'fx-1' } });
    expect(third.body).toBe(again.body);
    expect(await env.deps.prisma.quote.count({ where: { platformId: s.p.platformId, lockedAmount: 1_000n } })).toBe(1);
  });

  it('a different request under a used key is 422 IDEMPOTENCY_KEY_REUSED, and moves nothing', async () => {
    const s = await setup();
    const first = await s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 1_000), headers: { 'idempotency-key': 'reuse' } });
    expect(first.statusCode).toBe(201);
    const other = await s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 2_000), headers: { 'idempotency-key': 'reuse' } });
    expect(other.statusCode, other.body).toBe(422);
    expect(other.json().code).toBe('IDEMPOTENCY_KEY_REUSED');
    const b = await balances(env, s.usd);
    expect(b.available).toBe(100_000n - 1_000n);
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('a refused payment answers its repeat with the same refusal, even once the balance would cover it', async () => {
    const s = await setup();
    const refused = await s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 500_000), headers: { 'idempotency-key': 'short' } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().code).toBe('INSUFFICIENT_FUNDS');
    await fund(s.p, s.usd, 1_000_000);
    const repeat = await s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 500_000), headers: { 'idempotency-key': 'short' } });
    expect(repeat.statusCode).toBe(400);
    expect(repeat.headers['idempotent-replayed']).toBe('true');
    expect(repeat.body).toBe(refused.body);
    expect(await env.deps.prisma.quote.count({ where: { platformId: s.p.platformId, lockedAmount: 500_000n } })).toBe(0);
  });

  it('a repeated execute is answered from the record its quote was executed under', async () => {
    const s = await setup();
    const q = (await s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 3_000, false) })).json();
    const first = await s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute`, headers: { 'idempotency-key': 'ex' } });
    expect(first.statusCode, first.body).toBe(200);
    const repeat = await s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute`, headers: { 'idempotency-key': 'ex' } });
    expect(repeat.statusCode).toBe(200);
    expect(repeat.headers['idempotent-replayed']).toBe('true');
    // Without the key, the same call is what it is: the quote is no longer PENDING.
    const unkeyed = await s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute` });
    expect(unkeyed.statusCode).toBe(409);
    expect(await env.deps.prisma.ledgerJournal.count({ where: { platformId: s.p.platformId, kind: 'PAYMENT_HOLD', referenceId: resourceKey(q.transactionId) } })).toBe(1);
  });

  it('transfer-out and transfer-in repeats answer the one transfer their key made', async () => {
    const s = await setup();
    const out = { source: { accountId: s.usd }, destination: { accountId: s.dest }, amount: 2_000 };
    const a = await s.p.request({ method: 'POST', url: '/transfer-out', payload: out, headers: { 'idempotency-key': 'to' } });
    const b = await s.p.request({ method: 'POST', url: '/transfer-out', payload: out, headers: { 'idempotency-key': 'to' } });
    expect([a.statusCode, b.statusCode], b.body).toEqual([201, 201]);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.json().id).toBe(a.json().id);
    const into = { source: { accountId: s.dest }, destination: { accountId: s.usd }, amount: 700 };
    const c = await s.p.request({ method: 'POST', url: '/transfer-in', payload: into, headers: { 'idempotency-key': 'ti' } });
    const d = await s.p.request({ method: 'POST', url: '/transfer-in', payload: into, headers: { 'idempotency-key': 'ti' } });
    expect([c.statusCode, d.statusCode], d.body).toEqual([201, 201]);
    expect(d.headers['idempotent-replayed']).toBe('true');
    expect(d.json().id).toBe(c.json().id);
    expect(await env.deps.prisma.ledgerJournal.count({ where: { platformId: s.p.platformId, kind: 'TRANSFER_IN' } })).toBe(1);
    await expectLedgerConsistent(env, s.p.platformId);
  });
});
