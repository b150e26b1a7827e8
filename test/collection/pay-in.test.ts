import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateBIC, validateIBAN } from 'ibantools';
import { BASE, createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer, balances, expectLedgerConsistent } from '../helpers/builders.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { operatorSetInternalAccountStatus } from '../../src/domains/ledger/index.js';
import { sweepCoordinates } from '../../src/domains/collection/coordinates.service.js';
import { pollCredits } from '../../src/domains/collection/collection.jobs.js';
import { isValidAbaRouting, isValidClabe, isValidEvmAddress, isValidSolanaAddress } from '../../src/domains/external-accounts/account-info.checksums.js';

/**
 * Issue 26 item 1: standing pay-in coordinates through HTTP against Postgres and Redis — coordinates opened by
 * the sweep and announced, a credit applied once with its events and exact balances, held credits reported.
 */
let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ COLLECTION_PROVIDER: 'sandbox' });
});
afterAll(() => env.close());

/** Runs the coordinates sweep until it has nothing left to do (no sleeps: each pass is the work itself). */
async function settleCoordinates(): Promise<void> {
  for (let i = 0; i < 20 && (await sweepCoordinates(env.deps)) > 0; i++);
}

const events = (p: TestPlatform, type: string) =>
  env.deps.prisma.webhookEvent.findMany({ where: { platformId: p.platformId, type }, orderBy: { id: 'asc' } }).then((rows) => rows.map((r) => r.data as any));
const account = async (p: TestPlatform, id: string) => (await p.request({ method: 'GET', url: `/internal-accounts/${id}` })).json();
const credit = (p: TestPlatform, id: string, payload: Record<string, unknown>) => p.request({ method: 'POST', url: `/sandbox/internal-accounts/${id}/credits`, payload });
const counts = async () => ({
  credits: await env.deps.prisma.collectionCredit.count(),
  bank: await env.deps.prisma.sandboxCollectionCredit.count(),
  transactions: await env.deps.prisma.transaction.count(),
  journals: await env.deps.prisma.ledgerJournal.count(),
});

async function customerWithCoordinates(p: TestPlatform, currencies = ['USD']) {
  const c = await anApprovedCustomer(env, p, currencies);
  await settleCoordinates();
  return c;
}

describe('pay-in coordinates', () => {
  it('every internal account whose currency has a collection rail gets coordinates per rail that pass the account-number rules, announced by INTERNAL_ACCOUNT.FUNDING_INSTRUCTIONS_UPDATED with the full account', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD', 'EUR', 'MXN', 'BRL', 'USDC']);
    expect((await account(p, c.accounts.USD!)).fundingPaymentInstructions).toEqual([]);
    await settleCoordinates();
    const usd = await account(p, c.accounts.USD!);
    assertMatchesResponseSchema('GET', `${BASE}/internal-accounts/{accountId}`, 200, usd);
    const infos = usd.fundingPaymentInstructions.map((i: any) => i.accountOrWalletInfo);
    expect(infos.map((i: any) => i.paymentRails[0])).toEqual(['ACH', 'SWIFT', 'WIRE']);
    for (const i of usd.fundingPaymentInstructions) expect(i).toMatchObject({ isPlatformAccount: false, instructionsNotes: expect.any(String) });
    const [ach, swift, wire] = infos;
    expect(isValidAbaRouting(ach.routingNumber) && isValidAbaRouting(wire.routingNumber)).toBe(true);
    expect(ach.accountNumber).toMatch(/^\d{12}$/);
    expect(swift).toMatchObject({ accountType: 'SWIFT_ACCOUNT', accountHolderName: expect.any(String), country: 'US' });
    expect(validateBIC(swift.swiftCode).valid).toBe(true);
    const one = async (cur: string) => (await account(p, c.accounts[cur]!)).fundingPaymentInstructions.map((i: any) => i.accountOrWalletInfo);
    const [sepa] = await one('EUR');
    expect(validateIBAN(sepa.iban).valid).toBe(true);
    const [spei] = await one('MXN');
    expect(isValidClabe(spei.clabeNumber)).toBe(true);
    const [pix] = await one('BRL');
    expect(pix).toMatchObject({ accountType: 'BRL_ACCOUNT', pixKeyType: 'RANDOM', qrCode: expect.stringContaining(pix.pixKey) });
    const [base, solana] = await one('USDC');
    expect(isValidEvmAddress(base.address) && isValidSolanaAddress(solana.address)).toBe(true);

    const announced = (await events(p, 'INTERNAL_ACCOUNT.FUNDING_INSTRUCTIONS_UPDATED')).filter((e) => e.id === c.accounts.USD);
    expect(announced).toHaveLength(1);
    expect(announced[0]).toEqual({ ...usd, updatedAt: announced[0].updatedAt });

    // Deterministic: the same account keeps its coordinates; another account gets others.
    await settleCoordinates();
    expect((await account(p, c.accounts.USD!)).fundingPaymentInstructions).toEqual(usd.fundingPaymentInstructions);
    const other = await customerWithCoordinates(p);
    expect((await one('USD'))[0].accountNumber).not.toBe((await account(p, other.accounts.USD!)).fundingPaymentInstructions[0].accountOrWalletInfo.accountNumber);
    const coordinates = (await p.request({ method: 'GET', url: `/internal-accounts/${c.accounts.USD}/coordinates` })).json();
    expect(coordinates.data.map((x: any) => `${x.rail}:${x.status}`)).toEqual(['ACH:OPEN', 'SWIFT:OPEN', 'WIRE:OPEN']);
  });

  it('a simulated credit arrives once: an INCOMING transaction COMPLETED, INCOMING_PAYMENT.COMPLETED and INTERNAL_ACCOUNT.BALANCE_UPDATED, exact balance; the same provider credit id again is a no-op', async () => {
    const p = await env.platform();
    const c = await customerWithCoordinates(p);
    const id = c.accounts.USD!;
    const res = await credit(p, id, { amount: 12_345, rail: 'WIRE', creditId: 'wire-0001', sender: { name: 'Acme Corp', accountLast4: '6789' } });
    expect(res.statusCode, res.body).toBe(200);
    assertMatchesResponseSchema('POST', `${BASE}/sandbox/internal-accounts/{accountId}/credits`, 200, res.json());
    expect(res.json()).toMatchObject({ providerCreditId: 'wire-0001', status: 'APPLIED', rail: 'WIRE', amount: { amount: 12_345, currency: { code: 'USD' } }, internalAccountId: id });
    const t = (await p.request({ method: 'GET', url: `/transactions/${res.json().transactionId}` })).json();
    expect(t).toMatchObject({ type: 'INCOMING', status: 'COMPLETED', receivedAmount: { amount: 12_345 }, paymentRail: 'WIRE', source: { paymentRail: 'WIRE', accountHolderName: 'Acme Corp' } });
    expect(await balances(env, id)).toEqual({ available: 12_345n, held: 0n });
    expect((await events(p, 'INCOMING_PAYMENT.COMPLETED')).map((e) => e.id)).toEqual([t.id]);
    const balanceEvents = (await events(p, 'INTERNAL_ACCOUNT.BALANCE_UPDATED')).filter((e) => e.id === id);
    expect(balanceEvents.map((e) => e.balance.amount)).toEqual([12_345]);
    expect(balanceEvents[0].fundingPaymentInstructions).toHaveLength(3);

    const before = await counts();
    const again = await credit(p, id, { amount: 12_345, rail: 'WIRE', creditId: 'wire-0001' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ id: res.json().id, status: 'APPLIED', transactionId: t.id });
    // The poll reads the same credit from the bank again: still one.
    await pollCredits(env.deps);
    expect(await counts()).toEqual(before);
    expect(await balances(env, id)).toEqual({ available: 12_345n, held: 0n });
    await expectLedgerConsistent(env, p.platformId);
  });

  it('a credit whose webhook was lost arrives through the reconciliation poll, once', async () => {
    const p = await env.platform();
    const c = await customerWithCoordinates(p);
    const id = c.accounts.USD!;
    const res = await credit(p, id, { amount: 700, rail: 'ACH', push: false });
    expect(res.json()).toMatchObject({ status: 'RECEIVED' });
    expect(await balances(env, id)).toEqual({ available: 0n, held: 0n });
    await pollCredits(env.deps);
    await pollCredits(env.deps);
    expect(await balances(env, id)).toEqual({ available: 700n, held: 0n });
    const list = (await p.request({ method: 'GET', url: `/collection-credits?internalAccountId=${encodeURIComponent(id)}` })).json();
    expect(list.data.map((x: any) => `${x.providerCreditId}:${x.status}`)).toEqual([`${res.json().providerCreditId}:APPLIED`]);
  });

  it('a credit to a FROZEN or CLOSED account is held and reported: an INCOMING transaction FAILED with COLLECTION_FAILED, INCOMING_PAYMENT.FAILED, no balance moved; listed as HELD', async () => {
    const p = await env.platform();
    const frozen = (await customerWithCoordinates(p)).accounts.USD!;
    const closed = (await customerWithCoordinates(p)).accounts.USD!;
    await operatorSetInternalAccountStatus(env.deps, frozen, 'FROZEN');
    await operatorSetInternalAccountStatus(env.deps, closed, 'CLOSED');
    await settleCoordinates();
    // The closed account's coordinates were withdrawn and announced.
    expect((await account(p, closed)).fundingPaymentInstructions).toEqual([]);
    const closedAnnouncements = (await events(p, 'INTERNAL_ACCOUNT.FUNDING_INSTRUCTIONS_UPDATED')).filter((e) => e.id === closed);
    expect(closedAnnouncements.map((e) => e.fundingPaymentInstructions.length)).toEqual([3, 0]);

    for (const [id, reason] of [[frozen, 'ACCOUNT_FROZEN'], [closed, 'ACCOUNT_CLOSED']] as const) {
      const res = await credit(p, id, { amount: 5_000, rail: 'ACH' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ status: 'HELD', heldReason: reason });
      const t = (await p.request({ method: 'GET', url: `/transactions/${res.json().transactionId}` })).json();
      expect(t).toMatchObject({ type: 'INCOMING', status: 'FAILED', failureReason: 'COLLECTION_FAILED', receivedAmount: { amount: 5_000 } });
      expect(await balances(env, id)).toEqual({ available: 0n, held: 0n });
      expect((await events(p, 'INCOMING_PAYMENT.FAILED')).map((e) => e.id)).toContain(t.id);
    }
    const held = (await p.request({ method: 'GET', url: '/collection-credits?status=HELD' })).json();
    expect(held.data.map((x: any) => x.heldReason).sort()).toEqual(['ACCOUNT_CLOSED', 'ACCOUNT_FROZEN']);
    await expectLedgerConsistent(env, p.platformId);
  });

  it('a credit that matches no coordinates, or in another currency, is held, never lost; the unmatched one is no platform\'s', async () => {
    const p = await env.platform();
    const id = (await customerWithCoordinates(p)).accounts.USD!;
    const before = await env.deps.prisma.transaction.count({ where: { platformId: p.platformId } });
    const unmatched = await credit(p, id, { amount: 900, scenario: 'UNMATCHED' });
    expect(unmatched.json()).toMatchObject({ status: 'HELD', heldReason: 'UNMATCHED', internalAccountId: null });
    expect(unmatched.json().transactionId).toBeUndefined();
    const stored = await env.deps.prisma.collectionCredit.findUniqueOrThrow({ where: { id: unmatched.json().id } });
    expect(stored).toMatchObject({ status: 'HELD', platformId: null, amount: 900n });
    expect(await env.deps.prisma.transaction.count({ where: { platformId: p.platformId } })).toBe(before);
    const mismatch = await credit(p, id, { amount: 900, currency: 'EUR' });
    expect(mismatch.json()).toMatchObject({ status: 'HELD', heldReason: 'CURRENCY_MISMATCH' });
    expect(await balances(env, id)).toEqual({ available: 0n, held: 0n });
    const held = (await p.request({ method: 'GET', url: '/collection-credits?status=HELD' })).json();
    expect(held.data.map((x: any) => x.heldReason)).toEqual(['CURRENCY_MISMATCH']);
    // Another platform sees none of it.
    const q = await env.platform();
    expect((await q.request({ method: 'GET', url: '/collection-credits' })).json().data).toEqual([]);
    expect((await q.request({ method: 'GET', url: `/internal-accounts/${id}/coordinates` })).statusCode).toBe(404);
  });

  it('bad input gets a precise 400 with details.errors[] and writes nothing', async () => {
    const p = await env.platform();
    const id = (await customerWithCoordinates(p)).accounts.USD!;
    const before = await counts();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ amount: 0 }, 'amount'],
      [{ amount: 1.5 }, 'amount'],
      [{}, 'amount'],
      [{ amount: 10, rail: 'ach' }, 'rail'],
      [{ amount: 10, rail: 'SPEI' }, 'rail'],
      [{ amount: 10, currency: 'XXX' }, 'currency'],
      [{ amount: 10, creditId: 'has space' }, 'creditId'],
      [{ amount: 10, surprise: true }, 'surprise'],
      [{ amount: 10, sender: { accountLast4: '12' } }, 'sender.accountLast4'],
    ];
    for (const [payload, field] of cases) {
      const res = await credit(p, id, payload);
      expect(res.statusCode, `${JSON.stringify(payload)}: ${res.body}`).toBe(400);
      expect(res.json().details.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expect((await credit(p, 'InternalAccount:019a0c6e-4d1c-7b3e-9f5a-2b8c1d4e6f70', { amount: 10 })).statusCode).toBe(404);
    expect(await counts()).toEqual(before);
    expect(await balances(env, id)).toEqual({ available: 0n, held: 0n });
  });

  it('the provider\'s webhook takes only a verified push: a forged one is refused 401 and credits nothing', async () => {
    const p = await env.platform();
    const id = (await customerWithCoordinates(p)).accounts.USD!;
    const reference = (await env.deps.prisma.collectionCoordinates.findFirstOrThrow({ where: { internalAccountId: id, rail: 'ACH' } })).reference!;
    const body = JSON.stringify({ kind: 'CREDIT', creditId: 'forged-1', reference, rail: 'ACH', amount: '100000', currency: 'USD', receivedAt: new Date().toISOString() });
    const res = await env.app.inject({ method: 'POST', url: `${BASE}/adapters/collection-sandbox/webhooks`, headers: { 'content-type': 'application/json', 'x-sandbox-collection-signature': 'f'.repeat(64) }, payload: body });
    expect(res.statusCode).toBe(401);
    expect(await env.deps.prisma.collectionCredit.count({ where: { providerCreditId: 'forged-1' } })).toBe(0);
    expect(await balances(env, id)).toEqual({ available: 0n, held: 0n });
  });
});
