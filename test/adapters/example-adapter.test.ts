import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/app.js';
import { expectLedgerConsistent } from '../helpers/builders.js';
import type { RunningWorkers } from '../../src/workers.js';
import { aFundedPayer, aUsdDestination, pay, settleCount, waitFor } from './helpers.js';

/**
 * The example third-party adapter (examples/my-rail-adapter, its own package, plain JS) plugged in
 * by configuration alone, carrying payments end to end. Its contract: test/contracts/module.test.ts.
 */
const EXAMPLE = './examples/my-rail-adapter/index.js';
let env: TestEnv;
let workers: RunningWorkers;
let example: { contract: { payoutCount(key: string): Promise<number> } };

beforeAll(async () => {
  env = await createTestEnv({ RAIL_ADAPTERS: `RTP:${EXAMPLE}`, ADAPTER_MY_RAIL_SETTLE_MS: '120', PAYMENT_POLL_MIN_MS: '20' });
  workers = env.startWorkers();
  example = await import(pathToFileURL(path.resolve(EXAMPLE)).href);
});
afterAll(async () => {
  await workers.close();
  await env.close();
});

describe('an adapter written outside src/, configured with RAIL_ADAPTERS=RTP:./examples/my-rail-adapter/index.js', () => {
  it('serves RTP (and only RTP): quote → execute → COMPLETED, paid once by the bank', async () => {
    expect(env.deps.adapters.rails.forRail('RTP').id).toBe('my-rail');
    expect(env.deps.adapters.rails.forRail('ACH').id).toBe('sandbox');
    const payer = await aFundedPayer(env);
    const dest = await aUsdDestination(payer, '323456789');
    const id = await pay(payer, dest, 25_000, 'RTP');
    const t = await waitFor(payer, id, 'COMPLETED');
    expect(t.destination.paymentRail ?? 'RTP').toBe('RTP');
    const row = await env.deps.prisma.transaction.findFirstOrThrow({ where: { id } });
    expect(row.railReference).toBe(`bank_${id.replace('Transaction:', '')}`);
    expect(await example.contract.payoutCount(id)).toBe(1);
    expect(await settleCount(env, id)).toBe(1);
    await expectLedgerConsistent(env, payer.p.platformId);
  });

  it('a refusal from its bank fails the payment and releases the funds', async () => {
    const payer = await aFundedPayer(env, 40_000);
    const dest = await aUsdDestination(payer, '323456002');
    const id = await pay(payer, dest, 10_000, 'RTP');
    const t = await waitFor(payer, id, 'FAILED', 'COMPLETED');
    expect(t.failureReason).toBe('QUOTE_EXECUTION_FAILED');
  });
});
