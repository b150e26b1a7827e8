import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, eventually, type TestEnv } from '../helpers/app.js';
import { expectLedgerConsistent } from '../helpers/builders.js';
import { BridgeServer } from '../helpers/bridge-server.js';
import { Receiver } from '../helpers/receiver.js';
import type { RunningWorkers } from '../../src/workers.js';
import { claimDuePayments } from '../../src/domains/payments/transactions.jobs.js';
import { aFundedPayer, aUsdDestination, pay, settleCount, waitFor } from './helpers.js';

/**
 * Push mode: the bridge answers PENDING and reports outcomes to POST /adapters/http/webhooks; the
 * service does not poll. Lost reports are caught by reconciliation (PAYMENT_STALE_MS after the rail's
 * expected time), answers given twice change nothing.
 */
let env: TestEnv;
let workers: RunningWorkers;
let bridge: BridgeServer;
let receiver: Receiver;

beforeAll(async () => {
  bridge = await new BridgeServer().start();
  bridge.settleMs = 100;
  env = await createTestEnv({
    RAIL_ADAPTERS: 'ACH:http',
    ADAPTER_HTTP_URL: bridge.url,
    ADAPTER_HTTP_PUBLIC_KEY: bridge.publicKeyPem,
    ADAPTER_HTTP_STATUS_DELIVERY: 'push',
    ADAPTER_HTTP_EXPECTED_SETTLEMENT_MS: '200',
    ADAPTER_HTTP_TIMEOUT_MS: '1000',
    PAYMENT_STALE_MS: '400',
    PAYMENT_RECONCILE_RETRY_MS: '400',
    QUOTE_EXPIRY_SWEEP_INTERVAL_MS: '100',
    PAYMENT_RECONCILE_INTERVAL_MS: '100',
    PAYMENT_POLL_MIN_MS: '20',
  });
  bridge.trust(env.deps.signer.publicKeyPem);
  bridge.push = (body, headers) => env.app.inject({ method: 'POST', url: `${BASE}/adapters/http/webhooks`, payload: body, headers });
  receiver = await new Receiver().start();
  workers = env.startWorkers();
});
afterAll(async () => {
  await workers.close();
  await env.close();
  await bridge.stop();
  await receiver.stop();
});

const statusPollsOf = (reference: string) => bridge.requestsTo('/payouts/status').filter((r) => r.body.reference === reference).length;

describe('outcomes pushed by the adapter', () => {
  it('a pushed COMPLETED settles the payment without any status poll', async () => {
    const payer = await aFundedPayer(env);
    const dest = await aUsdDestination(payer, '223456789');
    const id = await pay(payer, dest, 10_000);
    await waitFor(payer, id, 'COMPLETED');
    // Push mode runs no poll chain: nothing asks the bridge before reconciliation is due (expected
    // settlement 200 ms + PAYMENT_STALE_MS 400 after submission). On a loaded machine the push can
    // arrive later than that, and then one reconciliation poll is legitimate — not a race to lose.
    const row = await env.deps.prisma.transaction.findFirstOrThrow({ where: { id } });
    const due = row.submittedAt!.getTime() + 200 + 400;
    const early = bridge.requestsTo('/payouts/status').filter((r) => r.body.reference === bridge.payouts.get(id)!.reference && r.atMs < due - 50);
    expect(early).toEqual([]);
    expect(await settleCount(env, id)).toBe(1);
    await expectLedgerConsistent(env, payer.p.platformId);
  });

  it('a bridge answering twice settles once and announces COMPLETED once', async () => {
    const payer = await aFundedPayer(env);
    await env.deps.prisma.platform.update({ where: { id: payer.p.platformId }, data: { webhookEndpoint: receiver.url } });
    const dest = await aUsdDestination(payer, '223456780');
    bridge.pushTwice = true;
    try {
      const id = await pay(payer, dest, 10_000);
      await waitFor(payer, id, 'COMPLETED');
      // Replayed once more, by hand, after the fact.
      const body = bridge.pushed.find((b) => JSON.parse(b).idempotencyKey === id)!;
      const again = await env.app.inject({ method: 'POST', url: `${BASE}/adapters/http/webhooks`, payload: body, headers: { 'content-type': 'application/json', 'x-bridge-signature': bridge.signatureHeader(body) } });
      expect(again.statusCode).toBe(200);
      await eventually(async () => receiver.received.some((r) => r.json.type === 'OUTGOING_PAYMENT.COMPLETED' && r.json.data.id === id));
      // Both pushes were answered (no fixed sleep: the duplicate's effect, if any, is checked below).
      await eventually(async () => bridge.pushesAnswered.get(id) === 2);
      expect(await settleCount(env, id)).toBe(1);
      expect(receiver.received.filter((r) => r.json.type === 'OUTGOING_PAYMENT.COMPLETED' && r.json.data.id === id)).toHaveLength(1);
    } finally {
      bridge.pushTwice = false;
    }
  });

  it('a pushed FAILED fails and refunds the payment through the same path as a poll', async () => {
    const payer = await aFundedPayer(env, 50_000);
    const dest = await aUsdDestination(payer, '223456004');
    const id = await pay(payer, dest, 10_000);
    const t = await waitFor(payer, id, 'FAILED', 'COMPLETED');
    expect(t.failureReason).toBe('ACCOUNT_CANNOT_RECEIVE');
    expect(bridge.refunds.get(`${id}:refund`)?.status).toBe('COMPLETED');
    await expectLedgerConsistent(env, payer.p.platformId);
  });

  it('the webhook route checks the bridge signature, the adapter id and that the payment is this adapter’s', async () => {
    const url = `${BASE}/adapters/http/webhooks`;
    const body = JSON.stringify({ idempotencyKey: 'Transaction:00000000-0000-0000-0000-000000000000', reference: 'brg_none', status: 'COMPLETED' });
    const signed = { 'content-type': 'application/json', 'x-bridge-signature': bridge.signatureHeader(body) };
    expect((await env.app.inject({ method: 'POST', url, payload: body, headers: { 'content-type': 'application/json' } })).statusCode).toBe(401);
    expect((await env.app.inject({ method: 'POST', url, payload: body, headers: signed })).statusCode).toBe(404);
    expect((await env.app.inject({ method: 'POST', url: `${BASE}/adapters/sandbox/webhooks`, payload: body, headers: signed })).statusCode).toBe(404);
    expect((await env.app.inject({ method: 'POST', url: `${BASE}/adapters/nope/webhooks`, payload: body, headers: signed })).statusCode).toBe(404);

    // A payment on a rail the bridge does not serve (RTP stays on the sandbox rail) cannot be reported by it.
    const payer = await aFundedPayer(env);
    const dest = await aUsdDestination(payer, '223456781');
    const id = await pay(payer, dest, 1_000, 'RTP');
    const t = await env.deps.prisma.transaction.findFirstOrThrow({ where: { id } });
    const forged = JSON.stringify({ idempotencyKey: id, reference: t.railReference ?? 'x', status: 'FAILED', failureReason: 'ACCOUNT_CANNOT_RECEIVE' });
    const res = await env.app.inject({ method: 'POST', url, payload: forged, headers: { 'content-type': 'application/json', 'x-bridge-signature': bridge.signatureHeader(forged) } });
    expect(res.statusCode).toBe(404);
    await waitFor(payer, id, 'COMPLETED');
  });
});

describe('reconciliation', () => {
  it('a payment whose callback was lost completes via reconciliation, exactly once', async () => {
    const payer = await aFundedPayer(env);
    const dest = await aUsdDestination(payer, '223456782');
    bridge.dropPushes = true;
    try {
      const id = await pay(payer, dest, 12_000);
      await eventually(async () => bridge.pushed.some((b) => JSON.parse(b).idempotencyKey === id));
      const t = await waitFor(payer, id, 'COMPLETED');
      const reference = bridge.payouts.get(id)!.reference;
      // Only reconciliation asked (push mode runs no poll chain), and not before the rail's expected time.
      expect(statusPollsOf(reference)).toBeGreaterThanOrEqual(1);
      const row = await env.deps.prisma.transaction.findFirstOrThrow({ where: { id } });
      expect(new Date(t.settledAt ?? row.settledAt!).getTime() - row.submittedAt!.getTime()).toBeGreaterThanOrEqual(200 + 400 - 50);
      expect(await settleCount(env, id)).toBe(1);
      await expectLedgerConsistent(env, payer.p.platformId);
    } finally {
      bridge.dropPushes = false;
    }
  });

  it('a payment still pending is asked again every PAYMENT_RECONCILE_RETRY_MS, not more often', async () => {
    const payer = await aFundedPayer(env);
    const dest = await aUsdDestination(payer, '223456009'); // the bridge never leaves its own status
    const id = await pay(payer, dest, 13_000);
    const reference = await eventually(async () => bridge.payouts.get(id)?.reference);
    // Asked again and again, however slowly a loaded machine runs the sweeps …
    await eventually(async () => statusPollsOf(reference) >= 4, 20_000);
    // … but never more often than every PAYMENT_RECONCILE_RETRY_MS (400) on average: the claim moves
    // reconcile_after forward by 400 ms; queue and HTTP latency may shift one poll, not the mean.
    const times = bridge.requestsTo('/payouts/status').filter((r) => r.body.reference === reference).map((r) => r.atMs).slice(0, 4);
    expect((times[3]! - times[0]!) / 3).toBeGreaterThanOrEqual(300);
    expect((await env.deps.prisma.transaction.findFirstOrThrow({ where: { id } })).status).toBe('PROCESSING');
    expect(await settleCount(env, id)).toBe(0);
  });

  it('a completed payment whose check falls due after its return window has its watch ended: nothing left due to read again (30g)', async () => {
    const payer = await aFundedPayer(env);
    const dest = await aUsdDestination(payer, '223456029');
    const [late, watched] = await Promise.all([15_000, 15_001].map((amount) => pay(payer, dest, amount)));
    for (const id of [late!, watched!]) await waitFor(payer, id, 'COMPLETED');
    // `late`'s last check was lost with its job and is due after the window (7 days from settlement) closed;
    // `watched` is due inside it.
    const due = new Date(Date.now() - 1_000);
    await env.deps.prisma.transaction.update({ where: { platformId_id: { platformId: payer.p.platformId, id: late! } }, data: { settledAt: new Date(Date.now() - 8 * 86_400_000), reconcileAfter: due } });
    await env.deps.prisma.transaction.update({ where: { platformId_id: { platformId: payer.p.platformId, id: watched! } }, data: { reconcileAfter: due } });
    const claimed = (await claimDuePayments(env.deps, new Date())).map((c) => c.id);
    expect(claimed).not.toContain(late);
    const row = (id: string) => env.deps.prisma.transaction.findFirstOrThrow({ where: { id } });
    // Whoever took it (this claim or the worker's sweep), its watch ended: nothing left due to be read again.
    await eventually(async () => (await row(late!)).reconcileAfter === null);
    // The one inside its window is still watched: taken, its next check moved forward (or already checked).
    await eventually(async () => (await row(watched!)).reconcileAfter!.getTime() > due.getTime());
    for (const id of [late!, watched!]) {
      expect((await row(id)).status).toBe('COMPLETED');
      expect(await settleCount(env, id)).toBe(1);
    }
  });

  it('concurrent sweeps never claim the same payment twice', async () => {
    const payer = await aFundedPayer(env);
    const dest = await aUsdDestination(payer, '223456019');
    bridge.dropPushes = true;
    try {
      const ids = await Promise.all([14_000, 14_001, 14_002].map((amount) => pay(payer, dest, amount)));
      await eventually(async () => ids.every((id) => bridge.payouts.has(id)));
      await eventually(async () => (await env.deps.prisma.transaction.count({ where: { id: { in: ids }, railReference: { not: null } } })) === 3);
      const past = new Date(Date.now() - 1_000);
      await env.deps.prisma.transaction.updateMany({ where: { id: { in: ids } }, data: { reconcileAfter: past } });
      const claims = (await Promise.all([1, 2, 3, 4].map(() => claimDuePayments(env.deps, new Date())))).flat().filter((c) => ids.includes(c.id));
      // The worker's own sweep may take some first; none is taken twice.
      expect(new Set(claims.map((c) => c.id)).size).toBe(claims.length);
      const rows = await env.deps.prisma.transaction.findMany({ where: { id: { in: ids } } });
      for (const r of rows) expect(r.status === 'COMPLETED' || r.reconcileAfter!.getTime() > past.getTime()).toBe(true);
      for (const id of ids) await waitFor(payer, id, 'COMPLETED');
      for (const id of ids) expect(await settleCount(env, id)).toBe(1);
    } finally {
      bridge.dropPushes = false;
    }
  });
});
