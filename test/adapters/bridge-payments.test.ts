import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/app.js';
import { balances, expectLedgerConsistent } from '../helpers/builders.js';
import { BridgeServer } from '../helpers/bridge-server.js';
import type { RunningWorkers } from '../../src/workers.js';
import { aFundedPayer, aUsdDestination, pay, settleCount, waitFor } from './helpers.js';

/** Payments end to end through the `http` bridge adapter to a bridge service on loopback (poll mode). */
let env: TestEnv;
let workers: RunningWorkers;
let bridge: BridgeServer;

beforeAll(async () => {
  bridge = await new BridgeServer().start();
  bridge.settleMs = 150;
  env = await createTestEnv({
    RAIL_ADAPTERS: 'ACH:http,WIRE:http',
    ADAPTER_HTTP_URL: bridge.url,
    ADAPTER_HTTP_PUBLIC_KEY: bridge.publicKeyPem,
    ADAPTER_HTTP_TIMEOUT_MS: '400',
    PAYMENT_POLL_MIN_MS: '20',
  });
  bridge.trust(env.deps.signer.publicKeyPem);
  workers = env.startWorkers();
});
afterAll(async () => {
  await workers.close();
  await env.close();
  await bridge.stop();
});

describe('payments through the http bridge', () => {
  it('quote → execute → COMPLETED via the bridge: paid once, every request signed, ledger balanced', async () => {
    const payer = await aFundedPayer(env);
    const dest = await aUsdDestination(payer, '123456789');
    const id = await pay(payer, dest, 10_000);
    const t = await waitFor(payer, id, 'COMPLETED');
    const payout = bridge.payouts.get(id)!;
    expect(payout).toMatchObject({ rail: 'ACH', currency: 'USD', amount: Number(t.receivedAmount.amount) });
    expect(bridge.paid.get(id)).toBe(1);
    expect(bridge.requests.every((r) => r.signatureValid)).toBe(true);
    expect(bridge.requestsTo('/payouts/status').some((r) => r.body.reference === payout.reference)).toBe(true);
    expect(await settleCount(env, id)).toBe(1);
    await expectLedgerConsistent(env, payer.p.platformId);
  });

  it('rails not named in RAIL_ADAPTERS stay on the sandbox rail', async () => {
    const payer = await aFundedPayer(env);
    const dest = await aUsdDestination(payer, '123456780');
    const id = await pay(payer, dest, 5_000, 'RTP');
    await waitFor(payer, id, 'COMPLETED');
    expect(bridge.payouts.has(id)).toBe(false);
  });

  it('a bridge that times out, then answers, still pays exactly once', async () => {
    const payer = await aFundedPayer(env);
    const dest = await aUsdDestination(payer, '123456781');
    bridge.faults['/payouts'] = ['timeout'];
    const id = await pay(payer, dest, 7_000);
    await waitFor(payer, id, 'COMPLETED');
    expect(bridge.requestsTo('/payouts').filter((r) => r.body.idempotencyKey === id).length).toBeGreaterThanOrEqual(2);
    expect(bridge.paid.get(id)).toBe(1);
    expect(await settleCount(env, id)).toBe(1);
  });

  it('a bridge answering garbage is asked again, and its next answer is taken', async () => {
    const payer = await aFundedPayer(env);
    const dest = await aUsdDestination(payer, '123456782');
    bridge.faults['/payouts'] = ['garbage-unsigned'];
    bridge.faults['/payouts/status'] = ['garbage', 'bad-signature'];
    const id = await pay(payer, dest, 7_100);
    await waitFor(payer, id, 'COMPLETED');
    expect(bridge.paid.get(id)).toBe(1);
    expect(await settleCount(env, id)).toBe(1);
  });

  it('a payout the bank fails is refunded through the bridge: FAILED, refund COMPLETED, balances restored', async () => {
    const payer = await aFundedPayer(env, 100_000);
    const dest = await aUsdDestination(payer, '123456004');
    const id = await pay(payer, dest, 10_000);
    const t = await waitFor(payer, id, 'FAILED', 'COMPLETED');
    expect(t).toMatchObject({ failureReason: 'ACCOUNT_CANNOT_RECEIVE', refund: { status: 'COMPLETED', reason: 'TRANSACTION_FAILED' } });
    expect(bridge.refunds.get(`${id}:refund`)).toMatchObject({ status: 'COMPLETED' });
    expect(await balances(env, payer.usd)).toEqual({ available: 100_000n, held: 0n });
    await expectLedgerConsistent(env, payer.p.platformId);
  });

  it('a payout the bridge refuses for good fails at once and releases the hold without a bridge refund', async () => {
    const payer = await aFundedPayer(env, 100_000);
    const dest = await aUsdDestination(payer, '123456002');
    const id = await pay(payer, dest, 10_000);
    const t = await waitFor(payer, id, 'FAILED', 'COMPLETED');
    expect(t.failureReason).toBe('QUOTE_EXECUTION_FAILED');
    expect(bridge.paid.has(id)).toBe(false);
    expect(bridge.refunds.has(`${id}:refund`)).toBe(false);
    expect(await balances(env, payer.usd)).toEqual({ available: 100_000n, held: 0n });
  });
});
