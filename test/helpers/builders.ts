import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { newId, resourceKey } from '../../src/platform/ids.js';
import { openInternalAccounts } from '../../src/domains/ledger/internal-accounts.service.js';
import { eventually, type TestEnv, type TestPlatform } from './app.js';

/**
 * An APPROVED individual customer with internal accounts, written directly (the customers API has
 * its own tests); returns its id and its account id per currency.
 */
export async function anApprovedCustomer(
  env: TestEnv,
  p: TestPlatform,
  currencies = ['USD'],
  status = 'APPROVED',
  /** Further Customer columns (region, contacts, …) over the defaults. */
  fields: Record<string, unknown> = {},
): Promise<{ customerId: string; accounts: Record<string, string> }> {
  const customerId = newId('Customer');
  await env.deps.prisma.$transaction(async (tx) => {
    await tx.customer.create({
      data: {
        id: customerId,
        platformId: p.platformId,
        platformCustomerId: `pc_${randomBytes(4).toString('hex')}`,
        customerType: 'INDIVIDUAL',
        status,
        currencies,
        fullName: 'Ada Lovelace',
        umaAddress: `$ada${randomBytes(3).toString('hex')}@example.com`,
        ...fields,
      } as any,
    });
    await openInternalAccounts(tx, p.platformId, customerId, currencies);
  });
  const rows = await env.deps.prisma.internalAccount.findMany({ where: { customerId } });
  return { customerId, accounts: Object.fromEntries(rows.map((r) => [r.currency, r.id])) };
}

export const usdBankAccount = (accountNumber = '123456789') => ({
  currency: 'USD',
  accountInfo: {
    accountType: 'USD_ACCOUNT',
    accountNumber,
    routingNumber: '021000021',
    bankAccountType: 'CHECKING',
    bankName: 'Chase',
    beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Grace Hopper', address: { line1: '1 Main St', city: 'New York', postalCode: '10001', country: 'US' } },
  },
});

export const eurBankAccount = (iban = 'DE89370400440532013000') => ({
  currency: 'EUR',
  accountInfo: {
    accountType: 'EUR_ACCOUNT',
    iban,
    bankName: 'Commerzbank',
    beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Emmy Noether', address: { line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' } },
  },
});

/** Creates a platform-scoped external account and waits until the sandbox check made it ACTIVE (workers must run). */
export async function anActiveExternalAccount(p: TestPlatform, body: object, customerId?: string): Promise<string> {
  const res = await p.request({ method: 'POST', url: customerId ? '/customers/external-accounts' : '/platform/external-accounts', payload: { ...body, ...(customerId ? { customerId } : {}) } });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().id as string;
  const scope = customerId ? 'customers' : 'platform';
  await eventually(async () => (await p.request({ method: 'GET', url: `/${scope}/external-accounts/${id}` })).json().status === 'ACTIVE', 30_000);
  return id;
}

export async function fund(p: TestPlatform, accountId: string, amount: number): Promise<void> {
  const res = await p.request({ method: 'POST', url: `/sandbox/internal-accounts/${accountId}/fund`, payload: { amount } });
  expect(res.statusCode, res.body).toBe(200);
}

/**
 * The payments tests' sender: an approved customer of `p` with a USD balance funded with `amount` and an ACTIVE USD bank
 * account to pay (the external account's check needs workers running).
 */
export async function aFundedUsdPayer(env: TestEnv, p: TestPlatform, amount = 1_000_000): Promise<{ customerId: string; usd: string; dest: string }> {
  const c = await anApprovedCustomer(env, p, ['USD']);
  const dest = await anActiveExternalAccount(p, usdBankAccount(), c.customerId);
  await fund(p, c.accounts.USD!, amount);
  return { customerId: c.customerId, usd: c.accounts.USD!, dest };
}

export async function balances(env: TestEnv, accountId: string): Promise<{ available: bigint; held: bigint }> {
  const a = await env.deps.prisma.internalAccount.findFirstOrThrow({ where: { id: accountId } });
  return { available: a.availableBalance, held: a.heldBalance };
}

/** Every journal balances, and cached balances equal the sum of their entries. */
export async function expectLedgerConsistent(env: TestEnv, platformId: string): Promise<void> {
  const perCurrency = await env.deps.prisma.$queryRaw<Array<{ currency: string; total: bigint }>>`
    SELECT currency, SUM(amount)::bigint AS total FROM ledger_entries WHERE platform_id = ${platformId} GROUP BY currency`;
  for (const r of perCurrency) expect(r.total, `ledger sum in ${r.currency}`).toBe(0n);
  const mismatched = await env.deps.prisma.$queryRaw<Array<{ id: string }>>`
    SELECT a.id FROM internal_accounts a
    LEFT JOIN (
      SELECT account, SUM(CASE WHEN bucket = 'AVAILABLE' THEN amount ELSE 0 END) AS avail,
             SUM(CASE WHEN bucket = 'HELD' THEN amount ELSE 0 END) AS held
      FROM ledger_entries WHERE platform_id = ${platformId} GROUP BY account
    ) e ON e.account = a.id
    WHERE a.platform_id = ${platformId}
      AND (a.available_balance <> COALESCE(e.avail, 0) OR a.held_balance <> COALESCE(e.held, 0))`;
  expect(mismatched, 'accounts whose cached balance differs from their entries').toEqual([]);
}

/**
 * A payment's hold as the ledger recorded it: exactly one PAYMENT_HOLD journal for the transaction,
 * moving `amount` from AVAILABLE to HELD on `accountId`. Written once when execution starts and
 * never changed by settlement, so it can be asserted while a worker is running.
 */
export async function expectHeldOnce(env: TestEnv, platformId: string, transactionId: string, accountId: string, amount: bigint): Promise<void> {
  const holds = await env.deps.prisma.ledgerJournal.findMany({ where: { platformId, kind: 'PAYMENT_HOLD' }, include: { entries: true } });
  const mine = holds.filter((j) => j.referenceId === resourceKey(transactionId));
  expect(mine, `hold journals of ${transactionId}`).toHaveLength(1);
  const moves = mine[0]!.entries.filter((e) => e.account === accountId).map((e) => `${e.bucket} ${e.amount}`).sort();
  expect(moves).toEqual([`AVAILABLE ${-amount}`, `HELD ${amount}`]);
  // Nothing else ever took money out of the available balance of this account for this payment.
  const debits = await env.deps.prisma.ledgerEntry.findMany({ where: { platformId, account: accountId, bucket: 'AVAILABLE', amount: { lt: 0n }, journal: { referenceId: resourceKey(transactionId) } } });
  expect(debits.map((d) => d.amount)).toEqual([-amount]);
}

/** What an execute/approve/authorize answer may show: the worker can finish the payment before the answer is read back. */
export const STARTED_STATUSES = ['PROCESSING', 'COMPLETED'];
