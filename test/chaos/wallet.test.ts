import { randomInt, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { balances, expectLedgerConsistent } from '../helpers/builders.js';
import { call, freePort, processEnv, ServiceProcess } from '../helpers/processes.js';
import { OwnRedis } from '../helpers/redis-server.js';
import { aWalletCustomer, otpLogin, stampOf, type ClientKey } from '../wallet/helpers.js';

/**
 * Embedded wallets under chaos (issue 28, anchor 28b): two API and two worker processes, a Redis of the
 * test's own. Custody reports on-chain credits to many wallets, each credit reported two or three times to
 * either API; mid-run credits recorded but never booked are left (as by a process that died between the
 * two), a worker is killed -9 while the sweep books them, an API is killed -9, Redis is restarted empty.
 * Then signed withdrawals, each execute sent twice at once. Afterwards: one INCOMING transaction and one
 * journal per credit, one hold per executed withdrawal, each wallet holding exactly credits − withdrawals,
 * the ledger balanced.
 */
const WALLETS = Number(process.env.CHAOS_WALLETS ?? 6);
const CREDITS_PER_WALLET = 4;
const SERVICE_ENV = {
  WALLET_SWEEP_INTERVAL_MS: '200',
  WALLET_SWEEP_LEASE_MS: '1000',
  OUTBOX_RELAY_INTERVAL_MS: '100',
  IDEMPOTENCY_LEASE_MS: '3000',
  JOB_SWEEP_INTERVAL_MS: '500',
  JOB_SWEEP_GRACE_MS: '1000',
  PAYMENT_POLL_MIN_MS: '50',
  PAYMENT_STALE_MS: '1000',
  SHUTDOWN_TIMEOUT_MS: '3000',
};

let env: TestEnv;
let p: TestPlatform;
let redis: OwnRedis;
const apis: ServiceProcess[] = [];
const workers: ServiceProcess[] = [];

beforeAll(async () => {
  env = await createTestEnv();
  p = await env.platform();
  redis = await new OwnRedis().start();
}, 120_000);
afterAll(async () => {
  for (const x of [...apis, ...workers]) await x.kill();
  await redis?.kill();
  await env?.close();
});

const childEnv = () => ({ ...processEnv(env, SERVICE_ENV), REDIS_URL: redis.url });

/** A platform's client: the same call (same Idempotency-Key) on any live API until it is not "try again". */
async function reliably(method: string, path: string, body: unknown, key: string, headers: Record<string, string> = {}) {
  for (let attempt = 0; attempt < 400; attempt++) {
    const live = apis.filter((a) => a.running);
    const api = live[randomInt(live.length || 1)];
    if (api) {
      const res = await call(api.url, p.auth, method, path, body, { 'idempotency-key': key, ...headers }).catch(() => undefined);
      if (res && res.status < 500 && !(res.status === 409 && res.json?.code === 'CONFLICT')) return res;
    }
    await new Promise((r) => setTimeout(r, 30 + randomInt(70)));
  }
  throw new Error(`${method} ${path} never succeeded`);
}

interface Wallet {
  customerId: string;
  accountId: string;
  key: ClientKey;
  credits: Map<string, bigint>;
}

describe('embedded wallets under chaos', () => {
  it('credits reported repeatedly, booked across a worker kill, an API kill and a Redis wipe, land once; signed withdrawals move money once', async () => {
    expect((await p.request({ method: 'PATCH', url: '/config', payload: { embeddedWalletConfig: { appName: 'Chaos Wallet' } } })).statusCode).toBe(200);
    const wallets: Wallet[] = [];
    for (let i = 0; i < WALLETS; i++) {
      const w = await aWalletCustomer(env, p);
      const otp = (await p.request({ method: 'GET', url: `/auth/credentials?accountId=${w.accountId}` })).json().data[0].id;
      const login = await otpLogin(p, otp);
      expect(login.second?.statusCode).toBe(200);
      wallets.push({ customerId: w.customerId, accountId: w.accountId, key: login.tek, credits: new Map() });
    }
    const payee = await aWalletCustomer(env, p);
    const dest = (await env.deps.prisma.internalAccount.findFirstOrThrow({ where: { customerId: payee.customerId, currency: 'USDB', type: { not: 'EMBEDDED_WALLET' } } })).id;

    apis.push(await new ServiceProcess('api', childEnv(), await freePort()).start(), await new ServiceProcess('api', childEnv(), await freePort()).start());
    workers.push(await new ServiceProcess('worker', childEnv()).start(), await new ServiceProcess('worker', childEnv()).start());

    // Phase 1: credits, each reported two or three times (distinct requests, not an idempotent replay).
    const report = async (w: Wallet, reference: string, amount: bigint) => {
      const copies = 2 + randomInt(2);
      const answers = await Promise.all(Array.from({ length: copies }, (_, k) => reliably('POST', `/sandbox/internal-accounts/${w.accountId}/receive`, { amount: Number(amount), reference }, `rcv-${reference}-${k}`)));
      for (const a of answers) expect(a.status, a.text).toBe(200);
    };
    const traffic = Promise.all(wallets.flatMap((w) => Array.from({ length: CREDITS_PER_WALLET }, () => {
      const reference = `spark-${randomUUID()}`;
      const amount = BigInt(10_000 + randomInt(90_000));
      w.credits.set(reference, amount);
      return report(w, reference, amount);
    })));
    const faults = (async () => {
      // Credits recorded but never booked (the reporting process died between the two), then the worker killed mid-sweep.
      for (const w of wallets) {
        const reference = `orphan-${randomUUID()}`;
        const amount = BigInt(1_000 + randomInt(9_000));
        w.credits.set(reference, amount);
        await env.deps.prisma.walletIncomingCredit.create({ data: { id: `Transaction:${randomUUID()}`, platformId: p.platformId, accountId: w.accountId, providerRef: reference, amount, currency: 'USDB', dueAt: new Date(0) } });
      }
      await workers[0]!.kill();
      workers[0] = await new ServiceProcess('worker', childEnv()).start();
      await apis[0]!.kill();
      apis[0] = await new ServiceProcess('api', childEnv(), apis[0]!.port).start();
      await redis.restartEmpty();
    })();
    await Promise.all([traffic, faults]);
    await eventually(async () => (await env.deps.prisma.walletIncomingCredit.count({ where: { platformId: p.platformId, creditedAt: null } })) === 0, 120_000, 200);

    // Phase 2: signed withdrawals, two executes of each quote at once.
    const withdrawals: Array<{ quoteId: string; wallet: Wallet }> = [];
    await Promise.all(wallets.map(async (w, i) => {
      for (let k = 0; k < 2; k++) {
        const q = await reliably('POST', '/quotes', { source: { sourceType: 'ACCOUNT', accountId: w.accountId }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 2_000 + i * 10 + k }, `q-${w.accountId}-${k}`);
        expect(q.status, q.text).toBe(201);
        const payload = q.json.paymentInstructions.find((x: any) => x.accountOrWalletInfo?.accountType === 'EMBEDDED_WALLET').accountOrWalletInfo.payloadToSign as string;
        const headers = { 'grid-wallet-signature': stampOf(w.key, payload) };
        const [a, b] = await Promise.all([1, 2].map((n) => reliably('POST', `/quotes/${q.json.id}/execute`, undefined, `x-${q.json.id}-${n}`, headers)));
        expect([a!.status, b!.status].filter((s) => s === 200).length, `${a!.text} / ${b!.text}`).toBeLessThanOrEqual(1);
        withdrawals.push({ quoteId: q.json.id, wallet: w });
      }
    }));
    await eventually(async () => {
      const txs = await env.deps.prisma.transaction.findMany({ where: { platformId: p.platformId, quoteId: { in: withdrawals.map((x) => x.quoteId) } }, select: { status: true } });
      return txs.every((t) => t.status === 'COMPLETED' || t.status === 'FAILED');
    }, 120_000, 200);

    // One INCOMING transaction, one journal and one INCOMING_PAYMENT.COMPLETED per credit.
    const all = wallets.flatMap((w) => [...w.credits.values()]);
    const incoming = await env.deps.prisma.transaction.findMany({ where: { platformId: p.platformId, type: 'INCOMING', destinationAccountId: { in: wallets.map((w) => w.accountId) } }, select: { id: true } });
    expect(incoming).toHaveLength(all.length);
    const journals = await env.deps.prisma.ledgerJournal.groupBy({ by: ['referenceId'], where: { platformId: p.platformId, kind: 'WALLET_INCOMING' }, _count: true });
    expect(journals).toHaveLength(all.length);
    expect(journals.every((j) => j._count === 1)).toBe(true);
    expect(await env.deps.prisma.webhookEvent.count({ where: { platformId: p.platformId, type: 'INCOMING_PAYMENT.COMPLETED' } })).toBe(all.length);

    // Withdrawals: one hold per executed quote; each wallet holds exactly its credits less what left it.
    const quotes = await env.deps.prisma.quote.findMany({ where: { platformId: p.platformId, id: { in: withdrawals.map((x) => x.quoteId) } } });
    const done = await env.deps.prisma.transaction.findMany({ where: { platformId: p.platformId, quoteId: { in: quotes.map((q) => q.id) }, status: 'COMPLETED' }, select: { quoteId: true, receivedAmount: true } });
    expect(done.length).toBeGreaterThan(0);
    const holds = await env.deps.prisma.ledgerJournal.groupBy({ by: ['referenceId'], where: { platformId: p.platformId, kind: 'PAYMENT_HOLD' }, _count: true });
    expect(holds.every((h) => h._count === 1)).toBe(true);
    const executed = new Set(done.map((t) => t.quoteId));
    for (const w of wallets) {
      const out = quotes.filter((q) => executed.has(q.id) && q.sourceAccountId === w.accountId).reduce((s, q) => s + q.totalSendingAmount, 0n);
      const credited = [...w.credits.values()].reduce((s, a) => s + a, 0n);
      expect(await balances(env, w.accountId), w.accountId).toEqual({ available: credited - out, held: 0n });
    }
    expect((await balances(env, dest)).available).toBe(done.reduce((s, t) => s + t.receivedAmount, 0n));
    await expectLedgerConsistent(env, p.platformId);
  }, 600_000);
});
