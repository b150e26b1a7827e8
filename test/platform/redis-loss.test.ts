import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';
import { Receiver } from '../helpers/receiver.js';
import { anIndividual, colourPhoto, createCustomer, tempStorage, upload } from '../customers/helpers.js';
import { anEuCustomer, enrollTotp } from '../sca/helpers.js';
import type { RunningWorkers } from '../../src/workers.js';
import { eventLabel } from '../../src/domains/webhooks/webhooks.model.js';
import { resourceKey } from '../../src/platform/ids.js';

/**
 * Issue 11, items 2 and 3: every retry schedule survives the loss of Redis, and payments always reach a
 * terminal state. Work of every kind is queued — webhook deliveries mid-retry, payments to every sandbox
 * destination (submitted, polling, awaiting a bank return, refunding) and payments not yet submitted,
 * beneficiary checks, KYC decisions (one due after a manual review), a wallet's liveness outcome, an SCA
 * factor reset's review — then the test's own Redis is flushed (FLUSHDB: every BullMQ job gone) and the
 * worker restarted. Postgres is the record of what is owed: everything completes, exactly once.
 * No step waits for a duration: states are polled (eventually), and the sweepers run on short intervals.
 */

let redisServer: ChildProcess;
let redisPort: number;
let env: TestEnv;
let receiver: Receiver;
let workers: RunningWorkers | undefined;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  redisPort = await freePort();
  redisServer = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const probe = new Redis(redisPort, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  await eventually(async () => {
    await probe.connect().catch(() => undefined);
    return (await probe.ping()) === 'PONG';
  }, 15_000, 50);
  probe.disconnect();
  env = await createTestEnv({
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    ...tempStorage(),
    SANDBOX_RAIL_DELAY_SCALE: '0.02',
    // 003 completes slowly and 005 is returned a while after completing: both are mid-way when Redis is flushed.
    SANDBOX_SLOW_MS: '2500',
    SANDBOX_RETURN_AFTER_MS: '2500',
    PAYMENT_POLL_MIN_MS: '50',
    PAYMENT_STALE_MS: '300',
    PAYMENT_RECONCILE_INTERVAL_MS: '150',
    PAYMENT_RECONCILE_GRACE_MS: '300',
    PAYMENT_RECONCILE_RETRY_MS: '300',
    JOB_SWEEP_INTERVAL_MS: '150',
    JOB_SWEEP_GRACE_MS: '300',
    KYC_RECONCILE_INTERVAL_MS: '150',
    KYC_RECONCILE_AFTER_MS: '300',
    KYC_SANDBOX_REVIEW_DELAY_MS: '1500',
    EXTERNAL_ACCOUNT_SWEEP_INTERVAL_MS: '150',
    SCA_RESET_REVIEW_DELAY_MS: '1500',
    WEBHOOK_RETRY_BASE_MS: '100',
    WEBHOOK_RETRY_MAX_MS: '300',
  });
  receiver = await new Receiver().start();
}, 60_000);

afterAll(async () => {
  await workers?.close().catch(() => undefined);
  await env?.close();
  await receiver?.stop();
  if (redisServer && redisServer.exitCode === null) {
    redisServer.kill('SIGTERM');
    await new Promise((resolve) => redisServer.once('exit', resolve));
  }
});

/** What each sandbox destination suffix prescribes (README "Sandbox behaviour"). */
const PRESCRIBED: Record<string, { status: string; failureReason?: string; failureDetail?: string; refund?: string; settles: boolean; released: boolean; returned: boolean }> = {
  '789': { status: 'COMPLETED', settles: true, released: false, returned: false },
  '002': { status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED', refund: 'COMPLETED', settles: false, released: true, returned: false },
  '003': { status: 'COMPLETED', settles: true, released: false, returned: false },
  '004': { status: 'FAILED', failureReason: 'ACCOUNT_CANNOT_RECEIVE', refund: 'COMPLETED', settles: false, released: true, returned: false },
  '005': { status: 'FAILED', failureReason: 'PAYOUT_RETURNED', refund: 'COMPLETED', settles: true, released: false, returned: true },
  '006': { status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED', failureDetail: 'USER_CANCELLATION', refund: 'COMPLETED', settles: false, released: true, returned: false },
  '007': { status: 'FAILED', failureReason: 'ACCOUNT_CANNOT_RECEIVE', refund: 'FAILED', settles: false, released: false, returned: false },
};

async function pay(p: TestPlatform, from: string, destination: string, amount: number): Promise<string> {
  const q = await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: from }, destination: { destinationType: 'ACCOUNT', accountId: destination }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: amount } });
  expect(q.statusCode, q.body).toBe(201);
  const exec = await p.request({ method: 'POST', url: `/quotes/${q.json().id}/execute` });
  expect(exec.statusCode, exec.body).toBe(200);
  return q.json().transactionId as string;
}

const journals = (transactionId: string, kind: string) => env.deps.prisma.ledgerJournal.count({ where: { referenceId: resourceKey(transactionId), kind } });

describe('Redis loses its data (FLUSHDB) with work of every kind queued', () => {
  it('after a worker restart everything completes exactly once: webhooks, payments, refunds, checks, KYC, liveness, resets', async () => {
    workers = env.startWorkers();
    const p = await env.platform({ counterpartyRules: true });
    await env.deps.prisma.platform.update({ where: { id: p.platformId }, data: { webhookEndpoint: receiver.url } });
    // The receiver fails until Redis is flushed: deliveries are mid-retry then.
    receiver.script = Array.from({ length: 1_000_000 }, () => 503);
    const fee = await p.request({ method: 'PATCH', url: '/config', payload: { feeConfigs: [{ feeType: 'RAIL', rail: 'ACH', direction: 'OUT', originator: 'SVC', variableFeeBps: 30, fixedFee: { amount: 50, currency: 'USD' } }] } });
    expect(fee.statusCode, fee.body).toBe(200);
    const payer = await anApprovedCustomer(env, p, ['USD']);
    const platformUsd = (await env.deps.prisma.internalAccount.findFirstOrThrow({ where: { platformId: p.platformId, customerId: null, currency: 'USD' } })).id;
    const initial = 10_000_000;
    await fund(p, payer.accounts.USD!, initial);
    const destinations: Record<string, string> = {};
    for (const suffix of Object.keys(PRESCRIBED)) destinations[suffix] = await anActiveExternalAccount(p, usdBankAccount(`223456${suffix}`));

    // Phase 1, worker running: a payment to every destination, until each is under way at the rail.
    const payments = new Map<string, string>(); // transaction id → suffix
    let amount = 10_000;
    for (const suffix of Object.keys(PRESCRIBED)) payments.set(await pay(p, payer.accounts.USD!, destinations[suffix]!, (amount += 111)), suffix);
    await eventually(async () => (await env.deps.prisma.transaction.count({ where: { id: { in: [...payments.keys()] }, OR: [{ railReference: { not: null } }, { status: 'FAILED' }] } })) === payments.size, 30_000);
    await eventually(async () => (await env.deps.prisma.webhookEvent.count({ where: { platformId: p.platformId, deliveryStatus: 'PENDING', attemptCount: { gte: 1 } } })) > 0, 30_000);
    await workers.close();
    workers = undefined;

    // Phase 2, no worker: work that exists only as queued jobs (and as what Postgres records).
    for (const suffix of ['789', '005', '002']) payments.set(await pay(p, payer.accounts.USD!, destinations[suffix]!, (amount += 111)), suffix);
    const newAccount = await p.request({ method: 'POST', url: '/platform/external-accounts', payload: usdBankAccount('223456321') });
    expect(newAccount.statusCode, newAccount.body).toBe(201);
    const photo = { fileName: 'doc.png', contentType: 'image/png', content: await colourPhoto() };
    const verifications: string[] = [];
    for (const fullName of ['Ann Approved003', 'Rev Review006']) {
      const c = await createCustomer(p, anIndividual({ fullName }));
      expect((await upload(p, { documentHolder: c.id, documentType: 'PASSPORT', country: 'US', documentNumber: 'P1234567', issuingAuthority: 'DoS' }, photo)).statusCode).toBe(201);
      const v = await p.request({ method: 'POST', url: '/verifications', payload: { customerId: c.id } });
      expect(v.json().verificationStatus, v.body).toBe('IN_PROGRESS');
      verifications.push(v.json().id);
    }
    const walletOwner = await anApprovedCustomer(env, p, ['USDC']);
    const wallet = await p.request({ method: 'POST', url: '/customers/external-accounts', payload: { currency: 'USDC', customerId: walletOwner.customerId, ownershipType: 'FIRST_PARTY', accountInfo: { accountType: 'BASE_WALLET', address: privateKeyToAccount(generatePrivateKey()).address } } });
    expect(wallet.statusCode, wallet.body).toBe(201);
    expect(wallet.json().status).toBe('PENDING_OWNERSHIP_VERIFICATION');
    const walletPath = `/customers/external-accounts/${wallet.json().id}`;
    const liveness = await p.request({ method: 'POST', url: `${walletPath}/challenge`, payload: { method: 'LIVENESS' } });
    expect(liveness.statusCode, liveness.body).toBe(201);
    expect((await env.app.inject({ method: 'POST', url: new URL(liveness.json().verificationLink).pathname, payload: { outcome: 'PASSED' } })).statusCode).toBe(202);
    const sca = await anEuCustomer(env, p);
    await enrollTotp(env, p, sca.customerId);
    const reset = await p.request({ method: 'POST', url: `/sca/factors/reset?customerId=${sca.customerId}`, payload: { factor: 'TOTP', endUserIpAddress: '198.51.100.23' } });
    expect(reset.statusCode, reset.body).toBe(201);
    expect((await env.app.inject({ method: 'POST', url: new URL(reset.json().verificationLink).pathname, payload: { outcome: 'PASSED' } })).statusCode).toBe(202);

    // Redis loses everything: every queued, delayed and retrying job.
    const redis = new Redis(redisPort, '127.0.0.1');
    try {
      expect(await redis.dbsize()).toBeGreaterThan(0);
      await redis.flushdb();
      expect(await redis.dbsize()).toBe(0);
    } finally {
      redis.disconnect();
    }
    receiver.script = [];

    // Phase 3: a worker again, on the empty Redis.
    workers = env.startWorkers();
    const ids = [...payments.keys()];
    const terminal = async () => {
      const rows = await env.deps.prisma.transaction.findMany({ where: { id: { in: ids } } });
      return rows.every((t) => {
        const want = PRESCRIBED[payments.get(t.id)!]!;
        return t.status === want.status && (t.refundStatus ?? undefined) === want.refund;
      });
    };
    await eventually(terminal, 60_000, 100);

    // Every payment as its destination prescribes, through the API a platform reads.
    for (const [id, suffix] of payments) {
      const want = PRESCRIBED[suffix]!;
      const t = (await p.request({ method: 'GET', url: `/transactions/${id}` })).json();
      expect(t.status, `${suffix} ${id}`).toBe(want.status);
      expect(t.failureReason ?? undefined, `${suffix} ${id}`).toBe(want.failureReason);
      expect(t.failureDetail, `${suffix} ${id}`).toBe(want.failureDetail);
      expect(t.refund?.status, `${suffix} ${id}`).toBe(want.refund);
      expect(t.pendingReason, `${suffix} ${id}`).toBeUndefined();
      // Exactly once: one settle journal where the money left, one release or return where it came back.
      expect(await journals(id, 'PAYMENT_SETTLE'), `${suffix} settle`).toBe(want.settles ? 1 : 0);
      expect(await journals(id, 'PAYMENT_RELEASE'), `${suffix} release`).toBe(want.released ? 1 : 0);
      expect(await journals(id, 'PAYMENT_RETURN'), `${suffix} return`).toBe(want.returned ? 1 : 0);
    }
    // Balances exact: completed payments are debited, refunded ones are not, 007's stays held.
    const rows = await env.deps.prisma.transaction.findMany({ where: { id: { in: ids } } });
    const spent = rows.filter((t) => t.status === 'COMPLETED').reduce((s, t) => s + t.sentAmount, 0n);
    const held = rows.filter((t) => t.refundStatus === 'FAILED').reduce((s, t) => s + t.sentAmount, 0n);
    expect(await balances(env, payer.accounts.USD!)).toEqual({ available: BigInt(initial) - spent - held, held });
    // The platform keeps its fee only on payments that stayed completed: 005's was reversed.
    const fees = rows.filter((t) => t.status === 'COMPLETED').reduce((s, t) => s + t.platformFees, 0n);
    expect(rows.every((t) => t.platformFees > 0n)).toBe(true);
    expect(await balances(env, platformUsd)).toEqual({ available: fees, held: 0n });
    await expectLedgerConsistent(env, p.platformId);

    // The other queues' work, each applied once.
    await eventually(async () => (await p.request({ method: 'GET', url: `/platform/external-accounts/${newAccount.json().id}` })).json().status === 'ACTIVE', 30_000, 100);
    for (const id of verifications) await eventually(async () => (await p.request({ method: 'GET', url: `/verifications/${id}` })).json().verificationStatus === 'APPROVED', 30_000, 100);
    for (const id of verifications) expect(await env.deps.prisma.statusChange.count({ where: { machine: 'verification', resourceId: resourceKey(id), event: 'approve' } })).toBe(1);
    await eventually(async () => (await p.request({ method: 'GET', url: walletPath })).json().status === 'ACTIVE', 30_000, 100);
    expect(await env.deps.prisma.statusChange.count({ where: { machine: 'external-account', resourceId: resourceKey(wallet.json().id), toStatus: 'ACTIVE' } })).toBe(1);
    const resetPath = `/sca/factors/reset/${reset.json().resetId}?customerId=${sca.customerId}`;
    await eventually(async () => (await p.request({ method: 'GET', url: resetPath })).json().status === 'LIVENESS_PASSED', 30_000, 100);
    expect(await env.deps.prisma.statusChange.count({ where: { machine: 'sca-factor-reset', resourceId: resourceKey(reset.json().resetId), toStatus: 'LIVENESS_PASSED' } })).toBe(1);

    // Every webhook event (those mid-retry when Redis was flushed included) delivered and recorded DELIVERED.
    await eventually(async () => (await env.deps.prisma.webhookEvent.count({ where: { platformId: p.platformId, deliveryStatus: { not: 'DELIVERED' } } })) === 0, 60_000, 100);
    const events = await env.deps.prisma.webhookEvent.findMany({ where: { platformId: p.platformId }, select: { id: true } });
    const delivered = new Set(receiver.received.map((r) => r.json?.id));
    expect(events.length).toBeGreaterThan(payments.size);
    expect(events.filter((e) => !delivered.has(eventLabel(e.id)))).toEqual([]);
  }, 240_000);
});
