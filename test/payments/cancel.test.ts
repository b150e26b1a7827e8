import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ SANDBOX_RAIL_DELAY_SCALE: '0.01' });
});
afterAll(() => env.close());

describe('cancelling a PROCESSING payment', () => {
  it('is refused while the payout is being handed to the rail, so the hold is never released under a payout in flight', async () => {
    const p = await env.platform();
    const workers = env.startWorkers();
    const dest = await anActiveExternalAccount(p, usdBankAccount('123456003'));
    await workers.close();
    const c = await anApprovedCustomer(env, p, ['USD']);
    await fund(p, c.accounts.USD!, 10_000);
    const q = (await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 5_000 } })).json();
    expect((await p.request({ method: 'POST', url: `/quotes/${q.id}/execute` })).statusCode).toBe(200);
    // A settlement job has claimed the submission and is talking to the rail (no reference yet).
    await env.deps.prisma.transaction.updateMany({ where: { id: q.transactionId }, data: { submittedAt: new Date() } });
    const refused = await p.request({ method: 'POST', url: `/transactions/${q.transactionId}/cancel` });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('TRANSACTION_NOT_CANCELLABLE');
    expect(await balances(env, c.accounts.USD!)).toEqual({ available: 5_000n, held: 5_000n });

    // Before any claim, cancel wins and the submission that follows sends nothing.
    await env.deps.prisma.transaction.updateMany({ where: { id: q.transactionId }, data: { submittedAt: null } });
    const ok = await p.request({ method: 'POST', url: `/transactions/${q.transactionId}/cancel` });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED', failureDetail: 'USER_CANCELLATION', refund: { status: 'PENDING', reason: 'USER_CANCELLATION' } });
    const again = env.startWorkers();
    try {
      await eventually(async () => (await p.request({ method: 'GET', url: `/transactions/${q.transactionId}` })).json().refund?.status === 'COMPLETED');
    } finally {
      await again.close();
    }
    const t = await env.deps.prisma.transaction.findFirstOrThrow({ where: { id: q.transactionId } });
    expect(t.railReference).toBeNull();
    expect(await balances(env, c.accounts.USD!)).toEqual({ available: 10_000n, held: 0n });
    await expectLedgerConsistent(env, p.platformId);
  });
});
