import { expect } from 'vitest';
import { eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, fund, usdBankAccount } from '../helpers/builders.js';
import { resourceKey } from '../../src/platform/ids.js';

export interface Payer {
  p: TestPlatform;
  usd: string;
}

/** A platform with a funded customer USD account. */
export async function aFundedPayer(env: TestEnv, amount = 1_000_000): Promise<Payer> {
  const p = await env.platform();
  const c = await anApprovedCustomer(env, p, ['USD']);
  await fund(p, c.accounts.USD!, amount);
  return { p, usd: c.accounts.USD! };
}

export const aUsdDestination = (payer: Payer, accountNumber: string) => anActiveExternalAccount(payer.p, usdBankAccount(accountNumber));

/** quote → execute; returns the transaction id. */
export async function pay(payer: Payer, destination: string, amount: number, paymentRail?: string): Promise<string> {
  const q = await payer.p.request({
    method: 'POST',
    url: '/quotes',
    payload: { source: { sourceType: 'ACCOUNT', accountId: payer.usd }, destination: { destinationType: 'ACCOUNT', accountId: destination, ...(paymentRail ? { paymentRail } : {}) }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: amount },
  });
  expect(q.statusCode, q.body).toBe(201);
  const exec = await payer.p.request({ method: 'POST', url: `/quotes/${q.json().id}/execute` });
  expect(exec.statusCode, exec.body).toBe(200);
  return q.json().transactionId as string;
}

export function waitFor(payer: Payer, transactionId: string, status: string, refundStatus?: string, timeoutMs = 15_000) {
  return eventually(async () => {
    const t = (await payer.p.request({ method: 'GET', url: `/transactions/${transactionId}` })).json();
    return t.status === status && (!refundStatus || t.refund?.status === refundStatus) ? t : undefined;
  }, timeoutMs);
}

/** How many settle journals a payment has (exactly once means 1). */
export async function settleCount(env: TestEnv, transactionId: string): Promise<number> {
  return env.deps.prisma.ledgerJournal.count({ where: { referenceId: resourceKey(transactionId), kind: 'PAYMENT_SETTLE' } });
}
