import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, fund, usdBankAccount } from '../helpers/builders.js';

const OPS = `Basic ${Buffer.from('ops:ops-password-0123456789').toString('base64')}`;

describe('operator endpoints without operator credentials', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(() => env.close());

  it('/metrics and /admin/queues are not served (404)', async () => {
    for (const url of ['/metrics', '/admin/queues']) {
      const res = await env.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
    }
  });

  it('/docs sends "Try it out" to the server it is served from', async () => {
    const res = await env.app.inject({ method: 'GET', url: '/docs/json' });
    expect(res.statusCode).toBe(200);
    expect(res.json().servers).toEqual([{ url: '/2025-10-13', description: 'This server' }]);
  });
});

describe('operator endpoints with OPERATOR_USER / OPERATOR_PASSWORD', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv({ OPERATOR_USER: 'ops', OPERATOR_PASSWORD: 'ops-password-0123456789' });
  });
  afterAll(() => env.close());

  it('need the credentials: 401 without, 200 with', async () => {
    for (const url of ['/metrics', '/admin/queues']) {
      const anonymous = await env.app.inject({ method: 'GET', url });
      expect(anonymous.statusCode, url).toBe(401);
      expect(anonymous.headers['www-authenticate']).toBe('Basic realm="operator"');
      const wrong = await env.app.inject({ method: 'GET', url, headers: { authorization: `Basic ${Buffer.from('ops:nope').toString('base64')}` } });
      expect(wrong.statusCode, url).toBe(401);
      const ok = await env.app.inject({ method: 'GET', url, headers: { authorization: OPS } });
      expect(ok.statusCode, url).toBe(200);
    }
  });

});

describe('business metrics', () => {
  let env: TestEnv;
  beforeAll(async () => {
    // Its own app: one scrape's results are cached for 10 s per process, so no earlier scrape may have run.
    env = await createTestEnv({ OPERATOR_USER: 'ops', OPERATOR_PASSWORD: 'ops-password-0123456789', SANDBOX_RAIL_DELAY_SCALE: '0.01', SANDBOX_SLOW_MS: '360000000', PAYMENT_STALE_MS: '60000' });
  });
  afterAll(() => env.close());

  it('business metrics come from Postgres: payments by status and rail, settlement latency, stuck payments, webhook backlog, ledger check', async () => {
    const p = await env.platform();
    const workers = env.startWorkers();
    let stuckId: string;
    try {
      const dest = await anActiveExternalAccount(p, usdBankAccount('444555666'));
      const c = await anApprovedCustomer(env, p, ['USD']);
      await fund(p, c.accounts.USD!, 100_000);
      // RECEIVING: the sandbox rail's scenario follows the amount the beneficiary receives.
      const pay = async (amount: number) => {
        const q = (await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'RECEIVING', lockedCurrencyAmount: amount } })).json();
        expect((await p.request({ method: 'POST', url: `/quotes/${q.id}/execute` })).statusCode).toBe(200);
        return q.transactionId as string;
      };
      const done = await pay(1_000);
      await eventually(async () => (await env.deps.prisma.transaction.findFirstOrThrow({ where: { id: done } })).status === 'COMPLETED', 20_000);
      // A slow payment (received amount ending 903, SANDBOX_SLOW_MS): PROCESSING; then made to look submitted two days ago.
      stuckId = await pay(1_903);
      await eventually(async () => (await env.deps.prisma.transaction.findFirstOrThrow({ where: { id: stuckId } })).status === 'PROCESSING', 20_000);
    } finally {
      await workers.close();
    }
    const rail = (await env.deps.prisma.transaction.findFirstOrThrow({ where: { id: stuckId } })).paymentRail!;
    await env.deps.prisma.transaction.updateMany({ where: { id: stuckId }, data: { submittedAt: new Date(Date.now() - 2 * 24 * 3600_000) } });

    const res = await env.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: OPS } });
    expect(res.statusCode).toBe(200);
    const value = (re: RegExp) => Number(re.exec(res.body)?.[1]);
    expect(value(new RegExp(`svc_payments_last_24h\\{status="COMPLETED",rail="${rail}"\\} (\\d+)`))).toBe(1);
    expect(value(new RegExp(`svc_payments_last_24h\\{status="PROCESSING",rail="${rail}"\\} (\\d+)`))).toBe(1);
    expect(value(new RegExp(`svc_payments_open\\{status="PROCESSING",rail="${rail}"\\} (\\d+)`))).toBe(1);
    expect(value(new RegExp(`svc_payments_stuck\\{rail="${rail}"\\} (\\d+)`))).toBe(1);
    expect(value(new RegExp(`svc_payment_settlement_seconds_count\\{rail="${rail}"\\} (\\d+)`))).toBe(1);
    expect(value(new RegExp(`svc_payment_settlement_seconds_bucket\\{rail="${rail}",le="\\+Inf"\\} (\\d+)`))).toBe(1);
    expect(res.body).toMatch(/svc_payment_settlement_seconds_sum\{rail="[A-Z_]+"\} [\d.e+-]+/);
    expect(res.body).toMatch(/svc_webhook_backlog \d+/);
    expect(value(/svc_ledger_unbalanced_journals (\d+)/)).toBe(0);
    expect(value(/svc_ledger_balanced (\d+)/)).toBe(1);
  }, 60_000);
});
