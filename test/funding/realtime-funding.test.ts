import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decode } from 'light-bolt11-decoder';
import { BASE, createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, expectLedgerConsistent, usdBankAccount } from '../helpers/builders.js';
import { isValidBolt11, isValidSparkAddress, isValidTronAddress } from '../../src/domains/external-accounts/account-info.checksums.js';
import type { RunningWorkers } from '../../src/workers.js';

let env: TestEnv;
let workers: RunningWorkers;

beforeAll(async () => {
  env = await createTestEnv({ SANDBOX_RAIL_DELAY_SCALE: '0.01', PAYMENT_POLL_MIN_MS: '20' });
  workers = env.startWorkers();
});
afterAll(async () => {
  await workers.close();
  await env.close();
});

interface Setup {
  p: TestPlatform;
  customerId: string;
  accounts: Record<string, string>;
  dest: string;
}

async function setup(currencies = ['USD', 'USDC']): Promise<Setup> {
  const p = await env.platform();
  const c = await anApprovedCustomer(env, p, currencies);
  const dest = await anActiveExternalAccount(p, usdBankAccount(), c.customerId);
  return { p, customerId: c.customerId, accounts: c.accounts, dest };
}

const fundedQuote = (s: Setup, currency: string, amount: number, extra: { cryptoNetwork?: string; customerId?: string | null } = {}) =>
  s.p.request({
    method: 'POST',
    url: '/quotes',
    payload: {
      source: { sourceType: 'REALTIME_FUNDING', currency, ...(extra.customerId === null ? {} : { customerId: extra.customerId ?? s.customerId }), ...(extra.cryptoNetwork ? { cryptoNetwork: extra.cryptoNetwork } : {}) },
      destination: { destinationType: 'ACCOUNT', accountId: s.dest },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: amount,
    },
  });

const deposit = (s: Setup, body: Record<string, unknown>) => s.p.request({ method: 'POST', url: '/sandbox/deposits', payload: body });

async function waitStatus(p: TestPlatform, transactionId: string, status: string) {
  return eventually(async () => {
    const t = (await p.request({ method: 'GET', url: `/transactions/${transactionId}` })).json();
    return t.status === status ? t : undefined;
  });
}

const info = (q: any, network: string) => q.paymentInstructions.map((i: any) => i.accountOrWalletInfo).find((i: any) => i.network === network || (network === 'LIGHTNING' && i.accountType === 'LIGHTNING') || (network === 'FIAT' && i.reference));

describe('real-time funding with USDC', () => {
  it('gives one instruction per network and executes the quote on the exact deposit (Base), refusing execute calls', async () => {
    const s = await setup();
    const res = await fundedQuote(s, 'USDC', 25_000_000);
    expect(res.statusCode, res.body).toBe(201);
    const q = res.json();
    assertMatchesResponseSchema('POST', `${BASE}/quotes`, 201, q);
    expect(q).toMatchObject({ status: 'PENDING', source: { sourceType: 'REALTIME_FUNDING', currency: 'USDC', customerId: s.customerId }, sendingCurrency: { code: 'USDC' } });
    const infos = q.paymentInstructions.map((i: any) => i.accountOrWalletInfo);
    expect(infos.map((i: any) => [i.accountType, i.assetType])).toEqual([
      ['SOLANA_WALLET', 'USDC'],
      ['BASE_WALLET', 'USDC'],
      ['POLYGON_WALLET', 'USDC'],
      ['ETHEREUM_WALLET', 'USDC'],
    ]);
    expect(new Set(infos.map((i: any) => i.address)).size).toBe(4);
    expect(info(q, 'BASE').address).toMatch(/^0x[0-9a-fA-F]{40}$/);

    expect((await s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute` })).statusCode).toBe(409);
    const d = await deposit(s, { address: info(q, 'BASE').address.toLowerCase(), network: 'BASE', amount: q.totalSendingAmount, currency: 'USDC', depositId: '0xbase-1' });
    expect(d.statusCode, d.body).toBe(201);
    assertMatchesResponseSchema('POST', `${BASE}/sandbox/deposits`, 201, d.json());
    expect(d.json()).toMatchObject({ outcome: 'EXECUTED', quoteId: q.id, creditedAccountId: s.accounts.USDC });
    const t = await waitStatus(s.p, q.transactionId, 'COMPLETED');
    assertMatchesResponseSchema('GET', `${BASE}/transactions/{transactionId}`, 200, t);
    expect(t.sentAmount).toMatchObject({ amount: q.totalSendingAmount, currency: { code: 'USDC' } });
    expect(await balances(env, s.accounts.USDC!)).toEqual({ available: 0n, held: 0n });
    // The detector reporting the same deposit again changes nothing.
    expect((await deposit(s, { address: info(q, 'BASE').address, network: 'BASE', amount: q.totalSendingAmount, currency: 'USDC', depositId: '0xbase-1' })).json().id).toBe(d.json().id);
    const events = await env.deps.prisma.webhookEvent.findMany({ where: { platformId: s.p.platformId }, orderBy: { id: 'asc' } });
    const types = events.map((e) => e.type);
    expect(types.indexOf('INTERNAL_ACCOUNT.BALANCE_UPDATED')).toBeLessThan(types.indexOf('OUTGOING_PAYMENT.PROCESSING'));
    expect(types.filter((ty) => ty.startsWith('OUTGOING_PAYMENT.'))).toEqual(['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED']);
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('takes a cryptoNetwork to give only that network (Solana), and executes on the exact deposit there', async () => {
    const s = await setup();
    const q = (await fundedQuote(s, 'USDC', 5_000_000, { cryptoNetwork: 'SOLANA' })).json();
    expect(q.paymentInstructions).toHaveLength(1);
    const sol = q.paymentInstructions[0].accountOrWalletInfo;
    expect(sol).toMatchObject({ accountType: 'SOLANA_WALLET', assetType: 'USDC' });
    expect(sol.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect((await deposit(s, { address: sol.address, network: 'SOLANA', amount: q.totalSendingAmount, currency: 'USDC' })).json().outcome).toBe('EXECUTED');
    await waitStatus(s.p, q.transactionId, 'COMPLETED');
    expect((await fundedQuote(s, 'USDC', 5_000_000, { cryptoNetwork: 'TRON' })).statusCode).toBe(400);
  });

  it('credits a short deposit to the balance and leaves the quote unexecuted; no money is dropped', async () => {
    const s = await setup();
    const q = (await fundedQuote(s, 'USDC', 10_000_000)).json();
    const d = await deposit(s, { address: info(q, 'POLYGON').address, network: 'POLYGON', amount: q.totalSendingAmount - 1, currency: 'USDC' });
    expect(d.json().outcome).toBe('AMOUNT_MISMATCH');
    expect(await balances(env, s.accounts.USDC!)).toEqual({ available: BigInt(q.totalSendingAmount - 1), held: 0n });
    expect((await s.p.request({ method: 'GET', url: `/transactions/${q.transactionId}` })).json().status).toBe('PENDING');
    const over = await deposit(s, { address: info(q, 'POLYGON').address, network: 'POLYGON', amount: q.totalSendingAmount + 5, currency: 'USDC' });
    expect(over.json().outcome).toBe('AMOUNT_MISMATCH');
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('credits a late deposit to the balance and does not execute the expired quote', async () => {
    const s = await setup();
    const q = (await fundedQuote(s, 'USDC', 3_000_000)).json();
    const shift = env.config.REALTIME_FUNDING_TTL_SECONDS * 1000 + 1000;
    env.clock.advance(shift);
    try {
      const d = await deposit(s, { address: info(q, 'ETHEREUM').address, network: 'ETHEREUM', amount: q.totalSendingAmount, currency: 'USDC' });
      expect(d.json().outcome).toBe('LATE');
      await waitStatus(s.p, q.transactionId, 'EXPIRED');
    } finally {
      env.clock.advance(-shift);
    }
    expect(await balances(env, s.accounts.USDC!)).toEqual({ available: BigInt(q.totalSendingAmount), held: 0n });
    await expectLedgerConsistent(env, s.p.platformId);
  });
});

describe('real-time funding with BTC, USDT and USD', () => {
  it('BTC over Lightning: a signed BOLT11 invoice for exactly totalSendingAmount sats; paying it executes the quote; Spark gets an address', async () => {
    const s = await setup(['USD', 'BTC']);
    const q = (await fundedQuote(s, 'BTC', 50_000)).json();
    assertMatchesResponseSchema('POST', `${BASE}/quotes`, 201, q);
    expect(q.paymentInstructions.map((i: any) => i.accountOrWalletInfo.accountType)).toEqual(['LIGHTNING', 'SPARK_WALLET']);
    const ln = info(q, 'LIGHTNING');
    expect(isValidBolt11(ln.invoice)).toBe(true);
    const sections = decode(ln.invoice).sections as any[];
    expect(sections.find((x) => x.name === 'amount').value).toBe(String(q.totalSendingAmount * 1000));
    expect(sections.find((x) => x.name === 'signature').value).toMatch(/^[0-9a-f]{130}$/);
    expect(isValidSparkAddress(q.paymentInstructions[1].accountOrWalletInfo.address)).toBe(true);
    expect((await deposit(s, { invoice: ln.invoice, amount: q.totalSendingAmount, currency: 'BTC' })).json().outcome).toBe('EXECUTED');
    await waitStatus(s.p, q.transactionId, 'COMPLETED');
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('USDT on Tron and Ethereum', async () => {
    const s = await setup(['USD', 'USDT']);
    const q = (await fundedQuote(s, 'USDT', 2_000_000)).json();
    const infos = q.paymentInstructions.map((i: any) => i.accountOrWalletInfo);
    expect(infos.map((i: any) => [i.accountType, i.assetType])).toEqual([['TRON_WALLET', 'USDT'], ['ETHEREUM_WALLET', 'USDT']]);
    expect(isValidTronAddress(infos[0].address)).toBe(true);
  });

  it('USD over RTP/FedNow with a unique reference; the exact deposit with that reference executes', async () => {
    const s = await setup(['USD']);
    const q1 = (await fundedQuote(s, 'USD', 10_000)).json();
    const q2 = (await fundedQuote(s, 'USD', 10_000)).json();
    assertMatchesResponseSchema('POST', `${BASE}/quotes`, 201, q1);
    const fiat = info(q1, 'FIAT');
    expect(fiat).toMatchObject({ accountType: 'USD_ACCOUNT', assetType: 'USD', paymentRails: ['RTP', 'FEDNOW'], routingNumber: expect.stringMatching(/^\d{9}$/) });
    expect(fiat.reference).not.toBe(info(q2, 'FIAT').reference);
    const short = await deposit(s, { reference: fiat.reference, amount: q1.totalSendingAmount - 100, currency: 'USD' });
    expect(short.json().outcome).toBe('AMOUNT_MISMATCH');
    const exact = await deposit(s, { reference: fiat.reference.toLowerCase(), amount: q1.totalSendingAmount, currency: 'USD' });
    expect(exact.json().outcome).toBe('EXECUTED');
    await waitStatus(s.p, q1.transactionId, 'COMPLETED');
    expect(await balances(env, s.accounts.USD!)).toEqual({ available: BigInt(q1.totalSendingAmount - 100), held: 0n });
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('funds on behalf of the platform when no customer is named, and refuses what cannot fund in real time', async () => {
    const s = await setup(['USD']);
    const platformDest = await anActiveExternalAccount(s.p, usdBankAccount('987654321'));
    const res = await s.p.request({
      method: 'POST',
      url: '/quotes',
      payload: { source: { sourceType: 'REALTIME_FUNDING', currency: 'USDC' }, destination: { destinationType: 'ACCOUNT', accountId: platformDest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1_000_000 },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().paymentInstructions.every((i: any) => i.isPlatformAccount === true)).toBe(true);
    const platformUsdc = (await env.deps.prisma.internalAccount.findFirstOrThrow({ where: { platformId: s.p.platformId, customerId: null, currency: 'USDC' } })).id;
    const d = await deposit(s, { address: info(res.json(), 'SOLANA').address, network: 'SOLANA', amount: 1, currency: 'USDC' });
    expect(d.json().creditedAccountId).toBe(platformUsdc);
    expect((await fundedQuote(s, 'EUR', 1_000)).json().code).toBe('INVALID_CURRENCY');
    expect((await deposit(s, { reference: 'RTFNOPE', amount: 1, currency: 'USD' })).json().code).toBe('REFERENCE_NOT_FOUND');
    expect((await deposit(s, { address: 'x', amount: 1, currency: 'USD' })).statusCode).toBe(400);
  });
});
