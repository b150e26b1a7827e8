import { randomBytes, randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer, expectLedgerConsistent, usdBankAccount } from '../helpers/builders.js';
import { call, ServiceProcess, freePort, processEnv } from '../helpers/processes.js';
import { OwnRedis } from '../helpers/redis-server.js';
import { Receiver } from '../helpers/receiver.js';
import { eventLabel } from '../../src/domains/webhooks/webhooks.model.js';
import { resourceKey } from '../../src/platform/ids.js';

/**
 * The chaos test (issue 11): two API and two worker processes, a Redis of the test's own, many
 * concurrent clients doing mixed money operations with Idempotency-Keys and retrying as a platform
 * would; mid-run a worker is killed -9, an API process is killed -9 and restarted, and Redis is
 * restarted with its data lost. Afterwards every guarantee is checked from the clients' own record
 * of what they asked for: money to the unit per account, every payment terminal with the outcome its
 * destination prescribes, one effect per key, every webhook event delivered, the ledger balanced.
 *
 * `npm test` runs it bounded (CHAOS_OPS, default 240); `npm run test:chaos` runs the full size.
 */
const CLIENTS = Number(process.env.CHAOS_CLIENTS ?? 64);
const OPS = Number(process.env.CHAOS_OPS ?? 240);
const SETTLE_TIMEOUT_MS = Number(process.env.CHAOS_SETTLE_TIMEOUT_MS ?? 240_000);
/** Which faults to inject (all by default; a subset helps when diagnosing one). */
const FAULTS = (process.env.CHAOS_FAULTS ?? 'worker,api,redis').split(',');

/** Destination identifier suffixes (README "Sandbox behaviour") and what each must end as. */
const DESTINATIONS = {
  OK: { last3: '123', status: 'COMPLETED', failureReason: undefined, refund: undefined },
  FAIL_AT_SUBMIT: { last3: '002', status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED', refund: 'COMPLETED' },
  SLOW: { last3: '003', status: 'COMPLETED', failureReason: undefined, refund: undefined },
  DELIVERY_FAILS: { last3: '004', status: 'FAILED', failureReason: 'ACCOUNT_CANNOT_RECEIVE', refund: 'COMPLETED' },
  RETURNED: { last3: '005', status: 'FAILED', failureReason: 'PAYOUT_RETURNED', refund: 'COMPLETED' },
  CANCELLED: { last3: '006', status: 'FAILED', failureReason: 'USER_CANCELLATION', refund: 'COMPLETED' },
  REFUND_FAILS: { last3: '007', status: 'FAILED', failureReason: 'ACCOUNT_CANNOT_RECEIVE', refund: 'FAILED' },
} as const;
type Scenario = keyof typeof DESTINATIONS;
const SCENARIOS = Object.keys(DESTINATIONS) as Scenario[];

/** Sandbox timings short enough for a test, sweeps frequent enough to notice lost work quickly. */
const SERVICE_ENV = {
  SANDBOX_RAIL_DELAY_SCALE: '0.02',
  SANDBOX_SLOW_MS: '1500',
  SANDBOX_RETURN_AFTER_MS: '500',
  PAYMENT_POLL_MIN_MS: '50',
  PAYMENT_STALE_MS: '1000',
  PAYMENT_RECONCILE_RETRY_MS: '500',
  QUOTE_EXPIRY_SWEEP_INTERVAL_MS: '500',
  EXTERNAL_ACCOUNT_SWEEP_INTERVAL_MS: '500',
  OUTBOX_RELAY_INTERVAL_MS: '100',
  WEBHOOK_RETRY_BASE_MS: '100',
  WEBHOOK_RETRY_MAX_MS: '1000',
  WEBHOOK_TIMEOUT_MS: '3000',
  IDEMPOTENCY_LEASE_MS: '3000',
  JOB_SWEEP_INTERVAL_MS: '500',
  JOB_SWEEP_GRACE_MS: '1000',
  PAYMENT_RECONCILE_INTERVAL_MS: '500',
  PAYMENT_RECONCILE_GRACE_MS: '1000',
  KYC_RECONCILE_INTERVAL_MS: '1000',
  KYC_RECONCILE_AFTER_MS: '1000',
  AUTH_CACHE_KEY: 'chaos-test-auth-cache-key-0123456789',
  // Issue 25: incoming payments wait for the platform's answer (REF's handshake); one not decided in time is rejected.
  INCOMING_APPROVAL_WINDOW_MS: '3000',
  SHUTDOWN_TIMEOUT_MS: '3000',
  // Pay-in coordinates open in the background, before this test sets its webhook endpoint (their events would be
  // UNDELIVERABLE, rightly): pay-in credits have their own chaos test (collection-credits.test.ts), as in test/helpers/app.ts.
  COLLECTION_PROVIDER: 'none',
};

interface Intent {
  key: string;
  kind: 'PAY' | 'TRANSFER' | 'FUND' | 'RECEIVE';
  from: string;
  to?: string;
  amount: bigint;
  scenario?: Scenario;
  quoteId?: string;
  transactionId?: string;
}

let env: TestEnv;
let redis: OwnRedis;
let receiver: Receiver;
const apis: ServiceProcess[] = [];
const workers: ServiceProcess[] = [];
const figures: Record<string, number | string> = {};
let sampling = false;
let sampler: Promise<void> = Promise.resolve();

beforeAll(async () => {
  env = await createTestEnv();
  redis = await new OwnRedis().start();
  receiver = await new Receiver().start();
}, 120_000);

afterAll(async () => {
  sampling = false;
  await sampler.catch(() => undefined);
  for (const p of [...apis, ...workers]) await p.kill();
  await redis?.kill();
  await receiver?.stop();
  await env?.close();
});

function childEnv(): Record<string, string> {
  return { ...processEnv(env, SERVICE_ENV), REDIS_URL: redis.url };
}

async function startApi(): Promise<ServiceProcess> {
  return new ServiceProcess('api', childEnv(), await freePort()).start();
}

function liveApis(): ServiceProcess[] {
  return apis.filter((a) => a.running);
}

/**
 * A platform's client: retries a call with the same Idempotency-Key on any live API process until it
 * gets an answer that is not "try again" (network failure, 5xx, 409 CONFLICT while in flight).
 */
async function reliably(p: TestPlatform, method: string, path: string, body: unknown, key: string, stats: { retries: number; fiveHundreds: number }) {
  for (let attempt = 0; ; attempt++) {
    const live = liveApis();
    const api = live[randomInt(live.length || 1)];
    if (api) {
      const res = await call(api.url, p.auth, method, path, body, { 'idempotency-key': key }).catch(() => undefined);
      if (res && res.status < 500 && !(res.status === 409 && res.json?.code === 'CONFLICT')) return res;
      if (res && res.status >= 500) stats.fiveHundreds += 1;
    }
    stats.retries += 1;
    if (attempt > 400) throw new Error(`${method} ${path} never succeeded`);
    await new Promise((r) => setTimeout(r, 50 + randomInt(150)));
  }
}

describe('chaos: two APIs, two workers, faults mid-run', () => {
  it('conserves money, finishes every payment as prescribed, applies each key once and delivers every event', async () => {
    const p = await env.platform();
    const started = Date.now();
    apis.push(await startApi(), await startApi());
    const stats = { retries: 0, fiveHundreds: 0 };

    const cfg = await reliably(p, 'PATCH', '/config', { webhookEndpoint: receiver.url, incomingPaymentApproval: true }, `cfg-${randomBytes(4).toString('hex')}`, stats);
    expect(cfg.status, cfg.text).toBe(200);
    // The workers start once the endpoint is set: their first sweeps already write events (the collection
    // coordinates of the platform's accounts, INTERNAL_ACCOUNT.FUNDING_INSTRUCTIONS_UPDATED), which a platform
    // without an endpoint records UNDELIVERABLE.
    workers.push(await new ServiceProcess('worker', childEnv()).start(), await new ServiceProcess('worker', childEnv()).start());

    // Senders and receivers; one platform external account per sandbox scenario.
    const senders = await Promise.all(Array.from({ length: 8 }, () => anApprovedCustomer(env, p, ['USD'])));
    const receivers = await Promise.all(Array.from({ length: 4 }, () => anApprovedCustomer(env, p, ['USD'])));
    const destinations = {} as Record<Scenario, string>;
    for (const s of SCENARIOS) {
      const res = await reliably(p, 'POST', '/platform/external-accounts', usdBankAccount(`9876${randomInt(10_000).toString().padStart(4, '0')}${DESTINATIONS[s].last3}`), `ea-${s}`, stats);
      expect(res.status, res.text).toBe(201);
      destinations[s] = res.json.id;
    }
    await eventually(async () => (await env.deps.prisma.externalAccount.count({ where: { platformId: p.platformId, status: 'ACTIVE' } })) === SCENARIOS.length, 60_000, 100);

    const intents: Intent[] = [];
    for (const s of senders) intents.push({ key: `fund-${s.customerId}`, kind: 'FUND', from: s.accounts.USD!, amount: 1_000_000_000n });
    for (const i of intents) expect((await reliably(p, 'POST', `/sandbox/internal-accounts/${i.from}/fund`, { amount: Number(i.amount) }, i.key, stats)).status).toBe(200);

    // Balances sampled all along: none may ever be negative.
    let minBalance = 0n;
    sampling = true;
    sampler = (async () => {
      while (sampling) {
        const [row] = await env.deps.prisma.$queryRaw<Array<{ m: bigint | null }>>`SELECT MIN(LEAST(available_balance, held_balance))::bigint AS m FROM internal_accounts WHERE platform_id = ${p.platformId}`;
        if (row?.m !== null && row!.m! < minBalance) minBalance = row!.m!;
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    // The operations: payments to every scenario, transfers executed twice at once, more funding.
    let next = 0;
    let done = 0;
    const faults: string[] = [];
    const faultAt = { worker: Math.floor(OPS * 0.25), api: Math.floor(OPS * 0.45), redis: Math.floor(OPS * 0.65) };
    const injectFaults = async () => {
      if (FAULTS.includes('worker') && done >= faultAt.worker && !faults.includes('worker')) {
        faults.push('worker');
        await workers[0]!.kill();
        workers[0] = await new ServiceProcess('worker', childEnv()).start();
      }
      if (FAULTS.includes('api') && done >= faultAt.api && !faults.includes('api')) {
        faults.push('api');
        const victim = apis[0]!;
        await victim.kill();
        apis[0] = await startApi();
      }
      if (FAULTS.includes('redis') && done >= faultAt.redis && !faults.includes('redis')) {
        faults.push('redis');
        await redis.restartEmpty();
      }
    };
    let injecting: Promise<void> = Promise.resolve();
    let faultError: unknown;
    const opOf = (n: number): Intent => {
      const sender = senders[n % senders.length]!.accounts.USD!;
      // …501: neither the amount nor what arrives after a rail fee (ACH: 25) ends in a magic 902–907.
      const amount = BigInt(10 + randomInt(500)) * 1000n + 501n;
      if (n % 10 === 9) return { key: `fund-${n}-${randomBytes(3).toString('hex')}`, kind: 'FUND', from: sender, amount };
      // An incoming UMA payment to a receiver, approved by the platform's 200 in the flow (issue 25).
      if (n % 10 === 7) return { key: `recv-${n}-${randomBytes(3).toString('hex')}`, kind: 'RECEIVE', from: receivers[n % receivers.length]!.customerId, to: receivers[n % receivers.length]!.accounts.USD!, amount };
      if (n % 4 === 3) return { key: `xfer-${n}-${randomBytes(3).toString('hex')}`, kind: 'TRANSFER', from: sender, to: receivers[n % receivers.length]!.accounts.USD!, amount };
      const scenario = SCENARIOS[n % SCENARIOS.length]!;
      return { key: `pay-${n}-${randomBytes(3).toString('hex')}`, kind: 'PAY', from: sender, to: destinations[scenario], amount, scenario };
    };
    const client = async () => {
      for (;;) {
        const n = next++;
        if (n >= OPS) return;
        const intent = opOf(n);
        intents.push(intent);
        if (intent.kind === 'FUND') {
          const res = await reliably(p, 'POST', `/sandbox/internal-accounts/${intent.from}/fund`, { amount: Number(intent.amount) }, intent.key, stats);
          expect(res.status, res.text).toBe(200);
        } else if (intent.kind === 'RECEIVE') {
          const body = { senderUmaAddress: '$payer@other.example', receivingCurrencyCode: 'USD', receivingCurrencyAmount: Number(intent.amount), customerId: intent.from };
          const res = await reliably(p, 'POST', '/sandbox/uma/receive', body, intent.key, stats);
          expect(res.status, res.text).toBeLessThan(300);
          intent.transactionId = res.json.id;
        } else {
          const immediate = intent.kind === 'PAY';
          const res = await reliably(p, 'POST', '/quotes', {
            source: { sourceType: 'ACCOUNT', accountId: intent.from },
            destination: { destinationType: 'ACCOUNT', accountId: intent.to },
            lockedCurrencySide: 'SENDING',
            lockedCurrencyAmount: Number(intent.amount),
            immediatelyExecute: immediate,
          }, intent.key, stats);
          expect(res.status, res.text).toBe(201);
          intent.quoteId = res.json.id;
          intent.transactionId = res.json.transactionId;
          if (!immediate) {
            // Two executes of one quote at once, each retried under its own key: one moves money.
            const [a, b] = await Promise.all([
              reliably(p, 'POST', `/quotes/${intent.quoteId}/execute`, undefined, `${intent.key}-x1`, stats),
              reliably(p, 'POST', `/quotes/${intent.quoteId}/execute`, undefined, `${intent.key}-x2`, stats),
            ]);
            const statuses = [a.status, b.status].sort();
            expect(statuses, `${a.text} / ${b.text}`).toEqual([200, 409]);
          }
        }
        done++;
        injecting = injecting.then(injectFaults).catch((err) => {
          faultError ??= err;
        });
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    await injecting;
    if (faultError) throw faultError;
    figures.operations = OPS;
    figures.clients = CLIENTS;
    figures.faults = faults.join(', ');
    figures.clientRetries = stats.retries;
    figures.serverErrorsSeenByClients = stats.fiveHundreds;
    figures.runSeconds = Math.round((Date.now() - started) / 1000);
    expect(faults).toEqual(FAULTS);

    // Every payment reaches a terminal state, with the loss of Redis behind it.
    const payments = intents.filter((i) => i.transactionId);
    const terminal = (t: { status: string; refundStatus: string | null }) => t.status === 'COMPLETED' || t.status === 'REJECTED' || (t.status === 'FAILED' && (t.refundStatus === 'COMPLETED' || t.refundStatus === 'FAILED' || t.refundStatus === null));
    const settleStarted = Date.now();
    await eventually(async () => {
      const rows = await env.deps.prisma.transaction.findMany({ where: { platformId: p.platformId, id: { in: payments.map((i) => i.transactionId!) } }, select: { status: true, refundStatus: true } });
      figures.stuckPayments = rows.filter((t) => !terminal(t)).length;
      return rows.length === payments.length && rows.every(terminal);
    }, SETTLE_TIMEOUT_MS, 250);
    figures.settleSeconds = Math.round((Date.now() - settleStarted) / 1000);

    // The bank returns (005) come after completion: wait for each to be applied.
    await eventually(async () => {
      const returned = payments.filter((i) => i.scenario === 'RETURNED').map((i) => i.transactionId!);
      return (await env.deps.prisma.transaction.count({ where: { id: { in: returned }, status: 'FAILED', refundStatus: 'COMPLETED' } })) === returned.length;
    }, SETTLE_TIMEOUT_MS, 250);

    // Each payment ended as its destination prescribes.
    const rows = await env.deps.prisma.transaction.findMany({ where: { platformId: p.platformId, id: { in: payments.map((i) => i.transactionId!) } } });
    const byId = new Map(rows.map((t) => [t.id, t]));
    const wrong: string[] = [];
    for (const i of payments) {
      const t = byId.get(i.transactionId!)!;
      // An incoming payment is approved, or — its in-flow question unanswered (a killed API process, a timeout) — rejected.
      if (i.kind === 'RECEIVE') {
        const unanswered = ['PAYMENT_APPROVAL_TIMED_OUT', 'PAYMENT_APPROVAL_WEBHOOK_ERROR'];
        if (t.status !== 'COMPLETED' && !(t.status === 'REJECTED' && unanswered.includes(t.failureReason ?? ''))) wrong.push(`RECEIVE ${t.id}: ${t.status} ${t.failureReason}`);
        continue;
      }
      const want = i.kind === 'TRANSFER' ? { status: 'COMPLETED', failureReason: undefined, refund: undefined } : DESTINATIONS[i.scenario!];
      if (t.status !== want.status || (want.failureReason && t.failureReason !== want.failureReason) || (want.refund && t.refundStatus !== want.refund)) {
        wrong.push(`${i.scenario ?? i.kind} ${t.id}: ${t.status} ${t.failureReason} refund ${t.refundStatus}`);
      }
    }
    expect(wrong).toEqual([]);
    figures.payments = payments.length;
    figures.byOutcome = SCENARIOS.map((s) => `${s}=${payments.filter((i) => i.scenario === s).length}`).join(' ') + ` TRANSFER=${payments.filter((i) => i.kind === 'TRANSFER').length}`;

    // One effect per key: one quote per quote key, one hold per payment, one credit per funding key.
    const quotes = await env.deps.prisma.quote.count({ where: { platformId: p.platformId } });
    const quoted = payments.filter((i) => i.kind !== 'RECEIVE');
    expect(quotes).toBe(quoted.length);
    const holds = await env.deps.prisma.ledgerJournal.groupBy({ by: ['referenceId'], where: { platformId: p.platformId, kind: 'PAYMENT_HOLD' }, _count: true });
    expect(holds).toHaveLength(quoted.length);
    // One incoming payment per key, settled at most once.
    const received = payments.filter((i) => i.kind === 'RECEIVE');
    expect(new Set(received.map((i) => i.transactionId)).size).toBe(received.length);
    expect(await env.deps.prisma.transaction.count({ where: { platformId: p.platformId, type: 'INCOMING' } })).toBe(received.length);
    const settles = await env.deps.prisma.ledgerJournal.groupBy({ by: ['referenceId'], where: { platformId: p.platformId, kind: 'PAYMENT_SETTLE', referenceId: { in: received.map((i) => resourceKey(i.transactionId!)) } }, _count: true });
    expect(settles.every((h) => h._count === 1)).toBe(true);
    figures.incoming = `${received.length} (${received.filter((i) => byId.get(i.transactionId!)!.status === 'COMPLETED').length} approved)`;
    expect(holds.every((h) => h._count === 1)).toBe(true);
    const fundings = intents.filter((i) => i.kind === 'FUND');
    expect(await env.deps.prisma.ledgerJournal.count({ where: { platformId: p.platformId, kind: 'SANDBOX_FUNDING' } })).toBe(fundings.length);

    // Money to the unit, from the clients' own record.
    const expected = new Map<string, { available: bigint; held: bigint }>();
    const acct = (id: string) => expected.get(id) ?? expected.set(id, { available: 0n, held: 0n }).get(id)!;
    for (const i of intents) {
      if (i.kind === 'FUND') acct(i.from).available += i.amount;
      else if (i.kind === 'RECEIVE') {
        if (byId.get(i.transactionId!)!.status === 'COMPLETED') acct(i.to!).available += i.amount;
      } else if (i.kind === 'TRANSFER') {
        acct(i.from).available -= i.amount;
        acct(i.to!).available += i.amount;
      } else if (DESTINATIONS[i.scenario!].status === 'COMPLETED') acct(i.from).available -= i.amount;
      else if (DESTINATIONS[i.scenario!].refund === 'FAILED') {
        acct(i.from).available -= i.amount;
        acct(i.from).held += i.amount;
      }
    }
    const actual = await env.deps.prisma.internalAccount.findMany({ where: { id: { in: [...expected.keys()] } } });
    const diffs = actual.filter((a) => a.availableBalance !== expected.get(a.id)!.available || a.heldBalance !== expected.get(a.id)!.held).map((a) => `${a.id}: ${a.availableBalance}/${a.heldBalance} != ${expected.get(a.id)!.available}/${expected.get(a.id)!.held}`);
    expect(diffs).toEqual([]);
    sampling = false;
    await sampler;
    expect(minBalance).toBe(0n);
    await expectLedgerConsistent(env, p.platformId);

    // Every webhook event delivered, each id at least once.
    const deliveredStarted = Date.now();
    await eventually(async () => (await env.deps.prisma.webhookEvent.count({ where: { platformId: p.platformId, deliveryStatus: { not: 'DELIVERED' }, type: { not: 'TEST' } } })) === 0, SETTLE_TIMEOUT_MS, 250).catch(async (err) => {
      // Which events were never delivered, by type and status (the failure names them).
      const left = await env.deps.prisma.webhookEvent.groupBy({ by: ['type', 'deliveryStatus'], where: { platformId: p.platformId, deliveryStatus: { not: 'DELIVERED' }, type: { not: 'TEST' } }, _count: true });
      throw new Error(`${(err as Error).message}: undelivered ${JSON.stringify(left)}`);
    });
    const events = (await env.deps.prisma.webhookEvent.findMany({ where: { platformId: p.platformId, type: { not: 'TEST' } }, select: { id: true } })).map((e) => ({ id: eventLabel(e.id) }));
    const seen = new Set(receiver.received.map((r) => r.json?.id));
    const missing = events.filter((e) => !seen.has(e.id)).map((e) => e.id);
    expect(missing).toEqual([]);
    figures.webhookEvents = events.length;
    figures.webhookDeliveriesReceived = receiver.received.length;
    figures.webhookDuplicates = receiver.received.length - seen.size;
    figures.deliverSeconds = Math.round((Date.now() - deliveredStarted) / 1000);
    figures.webhookDeliveredPercent = events.length ? Math.round((100 * events.filter((e) => seen.has(e.id)).length) / events.length) : 100;

    console.log(`chaos figures: ${JSON.stringify(figures, null, 2)}`);
  }, 900_000);
});
