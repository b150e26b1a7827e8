import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer, balances, fund } from '../helpers/builders.js';
import { operatorSetInternalAccountStatus } from '../../src/domains/ledger/index.js';
import { runCli } from '../helpers/cli.js';
import { resourceKey } from '../../src/platform/ids.js';

/** Issue 25 part B: REF's internal-account status lifecycle, its webhook, and what a FROZEN or CLOSED account may do. */
let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env.close();
});

const fieldsOf = (res: { json(): any }) => (res.json().details?.errors ?? []).map((e: { field: string }) => e.field);
const quoteBody = (from: string, to: string, amount = 1_000, immediatelyExecute = false) => ({
  source: { sourceType: 'ACCOUNT', accountId: from },
  destination: { destinationType: 'ACCOUNT', accountId: to },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: amount,
  ...(immediatelyExecute ? { immediatelyExecute: true } : {}),
});
const statusEvents = (p: TestPlatform, accountId: string) =>
  env.deps.prisma.webhookEvent.findMany({ where: { platformId: p.platformId, type: 'INTERNAL_ACCOUNT.STATUS_UPDATED' }, orderBy: { id: 'asc' } }).then((rows) => rows.filter((r) => (r.data as any).id === accountId).map((r) => r.data as any));

async function twoCustomers(p: TestPlatform) {
  const a = await anApprovedCustomer(env, p);
  const b = await anApprovedCustomer(env, p);
  await fund(p, a.accounts.USD!, 50_000);
  return { from: a.accounts.USD!, to: b.accounts.USD! };
}

describe('internal account status lifecycle', () => {
  it('a new account is ACTIVE; the operator freezes and unfreezes it, each move announced by INTERNAL_ACCOUNT.STATUS_UPDATED with the full account', async () => {
    const p = await env.platform();
    const { from } = await twoCustomers(p);
    expect((await p.request({ method: 'GET', url: `/internal-accounts/${from}` })).json().status).toBe('ACTIVE');
    await operatorSetInternalAccountStatus(env.deps, from, 'FROZEN', 'fraud signal');
    const frozen = (await p.request({ method: 'GET', url: `/internal-accounts/${from}` })).json();
    expect(frozen.status).toBe('FROZEN');
    expect(frozen.balance.amount).toBe(50_000);
    await operatorSetInternalAccountStatus(env.deps, from, 'ACTIVE');
    expect((await p.request({ method: 'GET', url: `/internal-accounts/${from}` })).json().status).toBe('ACTIVE');
    const events = await statusEvents(p, from);
    expect(events.map((e) => e.status)).toEqual(['FROZEN', 'ACTIVE']);
    expect(events[0]).toMatchObject({ id: from, type: 'INTERNAL_FIAT', balance: { amount: 50_000 }, fundingPaymentInstructions: [] });
    const history = await env.deps.prisma.$queryRaw<Array<{ from_status: string; to_status: string; reason: string | null }>>`
      SELECT from_status, to_status, reason FROM status_changes WHERE resource_id = ${resourceKey(from)}::uuid ORDER BY created_at, id`;
    expect(history.map((h) => `${h.from_status}>${h.to_status}`)).toEqual(['ACTIVE>FROZEN', 'FROZEN>ACTIVE']);
    expect(history[0]!.reason).toBe('fraud signal');
  });

  it('a FROZEN account neither sends nor receives: quotes, executes, immediate payments and sandbox funding answer 400 naming the account; nothing moves', async () => {
    const p = await env.platform();
    const { from, to } = await twoCustomers(p);
    const pending = (await p.request({ method: 'POST', url: '/quotes', payload: quoteBody(from, to) })).json();
    await operatorSetInternalAccountStatus(env.deps, from, 'FROZEN');

    const send = await p.request({ method: 'POST', url: '/quotes', payload: quoteBody(from, to) });
    expect(send.statusCode).toBe(400);
    expect(fieldsOf(send)).toEqual(['source.accountId']);
    const execute = await p.request({ method: 'POST', url: `/quotes/${pending.id}/execute` });
    expect(execute.statusCode).toBe(400);
    expect(execute.json().code).toBe('INVALID_INPUT');
    expect(fieldsOf(execute)).toEqual(['source.accountId']);
    expect(execute.json().details.errors[0].message).toContain('FROZEN');
    const receive = await p.request({ method: 'POST', url: '/quotes', payload: quoteBody(to, from) });
    expect(receive.statusCode).toBe(400);
    expect(fieldsOf(receive)).toEqual(['destination.accountId']);
    const funding = await p.request({ method: 'POST', url: `/sandbox/internal-accounts/${from}/fund`, payload: { amount: 1 } });
    expect(funding.statusCode).toBe(400);
    expect(fieldsOf(funding)).toEqual(['accountId']);
    expect(await balances(env, from)).toEqual({ available: 50_000n, held: 0n });
    expect((await p.request({ method: 'GET', url: `/quotes/${pending.id}` })).json().status).toBe('PENDING');

    // The destination frozen after the quote was made: its execution is refused too.
    await operatorSetInternalAccountStatus(env.deps, from, 'ACTIVE');
    const toFrozen = (await p.request({ method: 'POST', url: '/quotes', payload: quoteBody(from, to) })).json();
    await operatorSetInternalAccountStatus(env.deps, to, 'FROZEN');
    const late = await p.request({ method: 'POST', url: `/quotes/${toFrozen.id}/execute` });
    expect(late.statusCode).toBe(400);
    expect(fieldsOf(late)).toEqual(['destination.accountId']);
    await operatorSetInternalAccountStatus(env.deps, to, 'ACTIVE');
    const ok = await p.request({ method: 'POST', url: `/quotes/${toFrozen.id}/execute` });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(await balances(env, from)).toMatchObject({ available: 49_000n });
  });

  it('closing needs an empty account (409 CONFLICT otherwise); CLOSED is terminal and moves no money', async () => {
    const p = await env.platform();
    const { from, to } = await twoCustomers(p);
    await expect(operatorSetInternalAccountStatus(env.deps, from, 'CLOSED')).rejects.toMatchObject({ status: 409, code: 'CONFLICT', details: { balance: 50_000 } });
    expect((await p.request({ method: 'GET', url: `/internal-accounts/${from}` })).json().status).toBe('ACTIVE');
    const closed = await operatorSetInternalAccountStatus(env.deps, to, 'CLOSED');
    expect(closed.status).toBe('CLOSED');
    await expect(operatorSetInternalAccountStatus(env.deps, to, 'ACTIVE')).rejects.toMatchObject({ status: 409, code: 'INVALID_STATE_TRANSITION' });
    await expect(operatorSetInternalAccountStatus(env.deps, to, 'FROZEN')).rejects.toMatchObject({ status: 409, code: 'INVALID_STATE_TRANSITION' });
    const pay = await p.request({ method: 'POST', url: '/quotes', payload: quoteBody(from, to, 1_000, true) });
    expect(pay.statusCode).toBe(400);
    expect(fieldsOf(pay)).toEqual(['destination.accountId']);
    expect((await statusEvents(p, to)).map((e) => e.status)).toEqual(['CLOSED']);
    // An ACTIVE account cannot be "unfrozen", nor can an unknown one be moved.
    await expect(operatorSetInternalAccountStatus(env.deps, from, 'ACTIVE')).rejects.toMatchObject({ status: 409 });
    await expect(operatorSetInternalAccountStatus(env.deps, 'InternalAccount:00000000-0000-7000-8000-000000000000', 'FROZEN')).rejects.toMatchObject({ status: 404 });
  });

  it('the operator CLI freezes and unfreezes; a bad status or a missing account exits non-zero with a sentence', async () => {
    const p = await env.platform();
    const { from } = await twoCustomers(p);
    const run = (...args: string[]) =>
      runCli('internal-account-status', args, { DATABASE_URL: env.databaseUrl, REDIS_URL: env.config.REDIS_URL, REDIS_PREFIX: env.config.REDIS_PREFIX });
    expect((await run('--account', from, '--status', 'FROZEN')).stdout).toContain(`${from}: FROZEN`);
    expect((await p.request({ method: 'GET', url: `/internal-accounts/${from}` })).json().status).toBe('FROZEN');
    // The CLI told this process to drop its copy of the platform's blocked accounts: money stops moving.
    await eventually(async () => (await p.request({ method: 'POST', url: `/sandbox/internal-accounts/${from}/fund`, payload: { amount: 1 } })).statusCode === 400, 5_000);
    expect((await run('--account', from, '--status', 'active')).stdout).toContain(`${from}: ACTIVE`);
    await expect(run('--account', from, '--status', 'OPEN')).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('--status must be one of') });
    await expect(run('--account', 'InternalAccount:nope', '--status', 'FROZEN')).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('not found') });
  }, 120_000);
});
