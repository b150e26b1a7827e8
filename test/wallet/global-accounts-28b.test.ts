import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { renderContactCode } from '../../src/adapters/notifier/message.js';
import type { ContactCodeMessage } from '../../src/adapters/notifier/port.js';
import { sweepOwedWallets, sweepWalletCredits } from '../../src/domains/wallet/index.js';
import { aWalletCustomer, otpLogin, stampOf, type ClientKey } from './helpers.js';
import { resourceKey } from '../../src/platform/ids.js';

/**
 * Issue 28, the rest (anchor 28b): the customer's contact change as a signed retry that moves every tied OTP
 * credential with it, embeddedWalletConfig in GET/PATCH /config branding the OTP, wallets owed to customers
 * who existed before Global Accounts were turned on, and incoming funds credited passively, once.
 */
let env: TestEnv;
let p: TestPlatform;
const sent: ContactCodeMessage[] = [];

beforeAll(async () => {
  env = await createTestEnv();
  p = await env.platform();
  const notifier = env.deps.adapters.notifier;
  const send = notifier.sendContactCode.bind(notifier);
  notifier.sendContactCode = async (m, o) => {
    sent.push(m);
    return send(m, o);
  };
  const cfg = await p.request({ method: 'PATCH', url: '/config', payload: { embeddedWalletConfig: { appName: 'Acme Wallet', sendFromEmailSenderName: 'Acme' } } });
  expect(cfg.statusCode, cfg.body).toBe(200);
});
afterAll(async () => {
  await env.close();
});

const credentialsOf = async (accountId: string) => (await p.request({ method: 'GET', url: `/auth/credentials?accountId=${accountId}` })).json().data as Array<{ id: string; type: string; nickname: string }>;
const balanceOf = async (accountId: string) => (await p.request({ method: 'GET', url: `/internal-accounts/${accountId}` })).json().balance.amount as number;

async function loggedIn() {
  const w = await aWalletCustomer(env, p);
  const otp = (await credentialsOf(w.accountId))[0]!;
  const login = await otpLogin(p, otp.id);
  expect(login.second?.statusCode, login.second?.body).toBe(200);
  return { ...w, otpId: otp.id, key: login.tek as ClientKey };
}

describe('PlatformConfig.embeddedWalletConfig', () => {
  it('GET /config echoes it; PATCH merges the fields sent into the stored ones', async () => {
    expect((await p.request({ method: 'GET', url: '/config' })).json().embeddedWalletConfig).toEqual({ appName: 'Acme Wallet', sendFromEmailSenderName: 'Acme' });
    const res = await p.request({ method: 'PATCH', url: '/config', payload: { embeddedWalletConfig: { otpLength: 8, logoUrl: 'https://acme.example/logo.png' } } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().embeddedWalletConfig).toEqual({ appName: 'Acme Wallet', sendFromEmailSenderName: 'Acme', otpLength: 8, logoUrl: 'https://acme.example/logo.png' });
    expect((await p.request({ method: 'GET', url: '/config' })).json().embeddedWalletConfig.otpLength).toBe(8);
  });

  it("is validated with REF's bounds, field by field, and a refused PATCH writes nothing", async () => {
    const before = (await p.request({ method: 'GET', url: '/config' })).json();
    for (const [bad, field] of [[{ otpLength: 13 }, 'otpLength'], [{ expirationSeconds: 0 }, 'expirationSeconds'], [{ logoUrl: 'not a url' }, 'logoUrl'], [{ sendFromEmailAddress: 'nope' }, 'sendFromEmailAddress'], [{ colour: 'red' }, '']] as const) {
      const res = await p.request({ method: 'PATCH', url: '/config', payload: { webhookEndpoint: 'https://hooks.example/changed', embeddedWalletConfig: bad } });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().details.errors.map((e: { field: string }) => e.field).join(' ')).toContain(`embeddedWalletConfig${field ? `.${field}` : ''}`);
    }
    const after = (await p.request({ method: 'GET', url: '/config' })).json();
    expect(after.embeddedWalletConfig).toEqual(before.embeddedWalletConfig);
    expect(after.webhookEndpoint).toBe(before.webhookEndpoint);
  });

  it("brands the OTP message: the notifier's text names the app and the sender", async () => {
    sent.length = 0;
    const w = await aWalletCustomer(env, p);
    const ch = await p.request({ method: 'POST', url: `/auth/credentials/${(await credentialsOf(w.accountId))[0]!.id}/challenge`, payload: {} });
    expect(ch.statusCode, ch.body).toBe(200);
    expect(sent).toHaveLength(1);
    const rendered = renderContactCode(sent[0]!);
    expect(rendered.subject).toBe('Your Acme Wallet login code');
    expect(rendered.text).toContain('Acme Wallet');
    expect(rendered.from).toEqual({ name: 'Acme' });
    expect(rendered.logoUrl).toBe('https://acme.example/logo.png');
    expect(renderContactCode({ ...sent[0]!, brand: undefined }).subject).toBe('Your verification code');
  });
});

describe('PATCH /customers/{id}: a contact tied to OTP credentials changes on a signed retry, with its credentials', () => {
  it('a change of other fields, or of a customer without tied credentials, completes at once', async () => {
    const w = await loggedIn();
    const res = await p.request({ method: 'PATCH', url: `/customers/${w.customerId}`, payload: { customerType: 'INDIVIDUAL', fullName: 'Ada King' } });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('the email change answers 202; the stamped retry updates the customer and its EMAIL_OTP together', async () => {
    const w = await loggedIn();
    const email = `ada.${randomBytes(4).toString('hex')}@example.org`;
    const body = { customerType: 'INDIVIDUAL', email };
    const first = await p.request({ method: 'PATCH', url: `/customers/${w.customerId}`, payload: body });
    expect(first.statusCode, first.body).toBe(202);
    expect(first.json()).toMatchObject({ payloadToSign: expect.any(String), requestId: expect.stringMatching(/^Request:/), expiresAt: expect.any(String) });
    expect((await p.request({ method: 'GET', url: `/customers/${w.customerId}` })).json().email).toBe(w.email);
    const mismatch = await p.request({ method: 'PATCH', url: `/customers/${w.customerId}`, payload: { ...body, email: `x${email}` }, headers: { 'grid-wallet-signature': stampOf(w.key, first.json().payloadToSign), 'request-id': first.json().requestId } });
    expect(mismatch.json()).toMatchObject({ status: 401, code: 'WALLET_SIGNATURE_BODY_MISMATCH' });
    const retry = await p.request({ method: 'PATCH', url: `/customers/${w.customerId}`, payload: body, headers: { 'grid-wallet-signature': stampOf(w.key, first.json().payloadToSign), 'request-id': first.json().requestId } });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json().email).toBe(email);
    expect(await credentialsOf(w.accountId)).toEqual([expect.objectContaining({ id: w.otpId, type: 'EMAIL_OTP', nickname: email })]);
    const replay = await p.request({ method: 'PATCH', url: `/customers/${w.customerId}`, payload: body, headers: { 'grid-wallet-signature': stampOf(w.key, first.json().payloadToSign), 'request-id': first.json().requestId } });
    expect(replay.statusCode).toBe(200); // nothing left to change: the challenge is not needed again
  });

  it('email and phone in one call are refused (REF: separate calls)', async () => {
    const w = await loggedIn();
    const res = await p.request({ method: 'PATCH', url: `/customers/${w.customerId}`, payload: { customerType: 'INDIVIDUAL', email: `b.${randomBytes(3).toString('hex')}@example.org`, phoneNumber: '+14155550199' } });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().code).toBe('INVALID_INPUT');
  });

  it("409 EMAIL_OTP_EMAIL_ALREADY_EXISTS: the new email is another wallet's EMAIL_OTP", async () => {
    const a = await loggedIn();
    const b = await loggedIn();
    const res = await p.request({ method: 'PATCH', url: `/customers/${b.customerId}`, payload: { customerType: 'INDIVIDUAL', email: a.email } });
    expect(res.json()).toMatchObject({ status: 409, code: 'EMAIL_OTP_EMAIL_ALREADY_EXISTS' });
    expect((await p.request({ method: 'GET', url: `/customers/${b.customerId}` })).json().email).toBe(b.email);
  });

  it('424 EMAIL_OTP_CREDENTIAL_SYNC_FAILED when the custody provider refuses: neither the customer nor a credential changed', async () => {
    const w = await loggedIn();
    const body = { customerType: 'INDIVIDUAL', email: `ada+custody-sync-fail.${randomBytes(3).toString('hex')}@example.org` };
    const first = await p.request({ method: 'PATCH', url: `/customers/${w.customerId}`, payload: body });
    expect(first.statusCode, first.body).toBe(202);
    const retry = await p.request({ method: 'PATCH', url: `/customers/${w.customerId}`, payload: body, headers: { 'grid-wallet-signature': stampOf(w.key, first.json().payloadToSign), 'request-id': first.json().requestId } });
    expect(retry.json()).toMatchObject({ status: 424, code: 'EMAIL_OTP_CREDENTIAL_SYNC_FAILED' });
    expect((await p.request({ method: 'GET', url: `/customers/${w.customerId}` })).json().email).toBe(w.email);
    expect((await credentialsOf(w.accountId))[0]!.nickname).toBe(w.email);
  });

  it('the phone change moves the SMS_OTP credential', async () => {
    const w = await loggedIn();
    await env.deps.prisma.customer.updateMany({ where: { id: w.customerId }, data: { phoneNumber: '+14155550123' } });
    const sms = await p.request({ method: 'POST', url: '/auth/credentials', payload: { type: 'SMS_OTP', accountId: w.accountId } });
    expect(sms.statusCode).toBe(202);
    const added = await p.request({ method: 'POST', url: '/auth/credentials', payload: { type: 'SMS_OTP', accountId: w.accountId }, headers: { 'grid-wallet-signature': stampOf(w.key, sms.json().payloadToSign), 'request-id': sms.json().requestId } });
    expect(added.statusCode, added.body).toBe(201);
    const body = { customerType: 'INDIVIDUAL', phoneNumber: '+14155550177' };
    const first = await p.request({ method: 'PATCH', url: `/customers/${w.customerId}`, payload: body });
    expect(first.statusCode, first.body).toBe(202);
    const retry = await p.request({ method: 'PATCH', url: `/customers/${w.customerId}`, payload: body, headers: { 'grid-wallet-signature': stampOf(w.key, first.json().payloadToSign), 'request-id': first.json().requestId } });
    expect(retry.statusCode, retry.body).toBe(200);
    expect((await credentialsOf(w.accountId)).find((c) => c.type === 'SMS_OTP')!.nickname).toBe('+14155550177');
  });
});

describe('existing customers get their wallet when the platform turns Global Accounts on later', () => {
  it('PATCH /config records what is owed; the sweep opens one wallet per customer, once, and announces it', async () => {
    const q = await env.platform();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await q.request({ method: 'POST', url: '/customers', payload: { customerType: 'INDIVIDUAL', platformCustomerId: `pc_${randomBytes(4).toString('hex')}`, fullName: 'Grace Hopper', email: `grace.${randomBytes(4).toString('hex')}@example.com` } });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().id);
    }
    const wallets = () => env.deps.prisma.internalAccount.count({ where: { platformId: q.platformId, type: 'EMBEDDED_WALLET' } });
    expect(await wallets()).toBe(0);
    expect((await q.request({ method: 'PATCH', url: '/config', payload: { embeddedWalletConfig: { appName: 'Later' } } })).statusCode).toBe(200);
    expect((await q.request({ method: 'PATCH', url: '/config', payload: { embeddedWalletConfig: { otpLength: 6 } } })).statusCode).toBe(200);
    expect(await env.deps.prisma.embeddedWalletProvision.count({ where: { platformId: q.platformId, doneAt: null } })).toBe(3);
    await sweepOwedWallets(env.deps);
    await sweepOwedWallets(env.deps);
    expect(await wallets()).toBe(3);
    expect(await env.deps.prisma.embeddedWalletProvision.count({ where: { platformId: q.platformId, doneAt: null } })).toBe(0);
    for (const id of ids) {
      const list = await q.request({ method: 'GET', url: `/customers/internal-accounts?customerId=${encodeURIComponent(id)}&type=EMBEDDED_WALLET` });
      expect(list.json().data).toHaveLength(1);
      expect((await q.request({ method: 'GET', url: `/auth/credentials?accountId=${list.json().data[0].id}` })).json().data[0].type).toBe('EMAIL_OTP');
    }
    const events = await env.deps.prisma.webhookEvent.findMany({ where: { platformId: q.platformId, type: 'INTERNAL_ACCOUNT.STATUS_UPDATED' } });
    expect(events.filter((e) => (e.data as { type?: string }).type === 'EMBEDDED_WALLET')).toHaveLength(3);
    // Turning it on again owes nothing more.
    expect((await q.request({ method: 'PATCH', url: '/config', payload: { embeddedWalletConfig: { appName: 'Again' } } })).statusCode).toBe(200);
    expect(await sweepOwedWallets(env.deps)).toBe(0);
  });
});

describe('incoming funds are credited passively, once', () => {
  it('an on-chain credit reported by custody becomes one INCOMING transaction and one ledger credit, however often reported', async () => {
    const w = await aWalletCustomer(env, p);
    const before = await balanceOf(w.accountId);
    const reference = `spark-${randomUUID()}`;
    const reports = await Promise.all(Array.from({ length: 4 }, () => p.request({ method: 'POST', url: `/sandbox/internal-accounts/${w.accountId}/receive`, payload: { amount: 5000, reference, senderAddress: 'sparkrt1sender' } })));
    for (const r of reports) expect(r.statusCode, r.body).toBe(200);
    const transactionId = reports[0]!.json().transactionId as string;
    expect(reports.every((r) => r.json().transactionId === transactionId)).toBe(true);
    expect(await balanceOf(w.accountId)).toBe(before + 5000);
    const t = await p.request({ method: 'GET', url: `/transactions/${transactionId}` });
    expect(t.json()).toMatchObject({ id: transactionId, type: 'INCOMING', status: 'COMPLETED', receivedAmount: { amount: 5000 } });
    const types = (await env.deps.prisma.webhookEvent.findMany({ where: { platformId: p.platformId } })).filter((e) => JSON.stringify(e.data).includes(transactionId) || (e.data as { id?: string }).id === w.accountId).map((e) => e.type);
    expect(types.filter((x) => x === 'INCOMING_PAYMENT.COMPLETED')).toHaveLength(1);
    expect(types).toContain('INTERNAL_ACCOUNT.BALANCE_UPDATED');
    expect(await env.deps.prisma.ledgerJournal.count({ where: { platformId: p.platformId, referenceId: resourceKey(transactionId) } })).toBe(1);
  });

  it('a credit recorded but not booked (the process died between) is booked by the sweep, once', async () => {
    const w = await aWalletCustomer(env, p);
    const before = await balanceOf(w.accountId);
    const id = `Transaction:${randomUUID()}`;
    await env.deps.prisma.walletIncomingCredit.create({ data: { id, platformId: p.platformId, accountId: w.accountId, providerRef: `spark-${randomUUID()}`, amount: 700n, currency: 'USDB', dueAt: new Date(0) } });
    await Promise.all([sweepWalletCredits(env.deps), sweepWalletCredits(env.deps)]);
    await sweepWalletCredits(env.deps);
    expect(await balanceOf(w.accountId)).toBe(before + 700);
    expect((await env.deps.prisma.walletIncomingCredit.findFirstOrThrow({ where: { id } })).creditedAt).not.toBeNull();
  });

  it('the sandbox call is refused for an account that is not an embedded wallet', async () => {
    const w = await aWalletCustomer(env, p);
    const plain = await env.deps.prisma.internalAccount.findFirstOrThrow({ where: { customerId: w.customerId, type: { not: 'EMBEDDED_WALLET' } } });
    expect((await p.request({ method: 'POST', url: `/sandbox/internal-accounts/${plain.id}/receive`, payload: { amount: 10 } })).statusCode).toBe(404);
    expect((await p.request({ method: 'POST', url: `/sandbox/internal-accounts/${w.accountId}/receive`, payload: { amount: -1 } })).statusCode).toBe(400);
  });
});

describe('a wallet-funded card spends through its delegated key, the customer absent', () => {
  it('an authorization is signed by the ACTIVE delegated key (the stamp verifies against its public key); without one it is declined', async () => {
    const w = await loggedIn();
    expect((await p.request({ method: 'POST', url: `/sandbox/internal-accounts/${w.accountId}/receive`, payload: { amount: 100_000 } })).statusCode).toBe(200);
    const card = await p.request({ method: 'POST', url: '/cards', payload: { cardholderId: w.customerId, form: 'VIRTUAL', fundingSources: [w.accountId], platformCardId: `pc-w-${randomBytes(4).toString('hex')}` } });
    expect(card.statusCode, card.body).toBe(201);
    const cardId = card.json().id as string;
    const authorize = async () => {
      const res = await p.request({ method: 'POST', url: `/sandbox/cards/${cardId}/simulate/authorization`, payload: { amount: 1250, currency: { code: card.json().currency }, merchant: { descriptor: 'BLUE BOTTLE COFFEE SF', mcc: '5814', country: 'US' } } });
      expect(res.statusCode, res.body).toBe(202);
      return env.deps.prisma.cardTransaction.findFirstOrThrow({ where: { issuerTransactionToken: res.json().issuerTransactionToken } });
    };
    const before = await balanceOf(w.accountId);
    const unsigned = await authorize();
    expect(unsigned).toMatchObject({ status: 'DECLINED', declineReason: 'FUNDING_SOURCE_UNAVAILABLE' });
    expect(await balanceOf(w.accountId)).toBe(before);

    const body = { cardId, internalAccountId: w.accountId, nickname: 'card key' };
    const first = await p.request({ method: 'POST', url: '/auth/delegated-keys', payload: body });
    const key = await p.request({ method: 'POST', url: '/auth/delegated-keys', payload: body, headers: { 'grid-wallet-signature': stampOf(w.key, first.json().payloadToSign), 'request-id': first.json().requestId } });
    expect(key.statusCode, key.body).toBe(201);
    const signed = await authorize();
    expect(signed.status).toBe('AUTHORIZED');
    expect(await balanceOf(w.accountId)).toBe(before - Number(signed.heldAmount));
    const sig = await env.deps.prisma.delegatedKeySignature.findFirstOrThrow({ where: { issuerTransactionToken: signed.issuerTransactionToken } });
    expect(sig).toMatchObject({ delegatedKeyId: key.json().id, cardId, publicKey: key.json().publicKey });
    const { verifyP256Der } = await import('../../src/adapters/custody/hpke.js');
    expect(verifyP256Der(key.json().publicKey, sig.payload, Buffer.from(sig.signature, 'hex'))).toBe(true);
    expect(JSON.parse(sig.payload)).toMatchObject({ type: 'CARD_AUTHORIZATION', cardId, fundingSourceId: w.accountId, issuerTransactionToken: signed.issuerTransactionToken });

    // REF revokes with platform credentials alone: 204, no signed retry (ref2's drift, decisions anchor 25c).
    const revoke = await p.request({ method: 'DELETE', url: `/auth/delegated-keys/${key.json().id}` });
    expect(revoke.statusCode, revoke.body).toBe(204);
    expect((await p.request({ method: 'GET', url: `/auth/delegated-keys/${key.json().id}` })).json().status).toBe('REVOKED');
    expect(await authorize()).toMatchObject({ status: 'DECLINED', declineReason: 'FUNDING_SOURCE_UNAVAILABLE' });
  });
});

describe('POST /auth/sessions/{id}/revoke: the platform ends a session without the customer', () => {
  it('the session stops signing at once; a repeat answers the ended session; an unknown one is 404', async () => {
    const w = await loggedIn();
    const id = (await p.request({ method: 'GET', url: `/auth/sessions?accountId=${w.accountId}` })).json().data[0].id as string;
    const res = await p.request({ method: 'POST', url: `/auth/sessions/${id}/revoke` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id, accountId: w.accountId, revokedAt: expect.any(String) });
    expect((await p.request({ method: 'POST', url: `/auth/sessions/${id}/revoke` })).json().revokedAt).toBe(res.json().revokedAt);
    const first = await p.request({ method: 'PATCH', url: `/internal-accounts/${w.accountId}`, payload: { privateEnabled: true } });
    expect(first.statusCode).toBe(202);
    const retry = await p.request({ method: 'PATCH', url: `/internal-accounts/${w.accountId}`, payload: { privateEnabled: true }, headers: { 'grid-wallet-signature': stampOf(w.key, first.json().payloadToSign), 'request-id': first.json().requestId } });
    expect(retry.json()).toMatchObject({ status: 401, details: { reason: 'SIGNER_NOT_AUTHORIZED' } });
    expect((await p.request({ method: 'POST', url: `/auth/sessions/AuthSession:${randomUUID()}/revoke` })).statusCode).toBe(404);
  });
});

describe('the credit poll: a provider that reports nothing by itself is asked', () => {
  it('a credit seen only by the provider is booked by the poll, once; a wallet asked within the interval is not asked again', async () => {
    const { custodyFor } = await import('../../src/adapters/custody/index.js');
    const { pollWalletCredits } = await import('../../src/domains/wallet/index.js');
    const deps = { ...env.deps, config: { ...env.deps.config, WALLET_CREDIT_POLL_INTERVAL_MS: 60_000, WALLET_CREDIT_POLL_BATCH: 1000 } };
    expect(await pollWalletCredits(env.deps)).toBe(0); // off with the sandbox custody unless set
    const w = await aWalletCustomer(env, p);
    const wallet = await env.deps.prisma.embeddedWallet.findFirstOrThrow({ where: { id: w.accountId } });
    const before = await balanceOf(w.accountId);
    await custodyFor(env.deps).simulateCredit!({ scope: { platformId: p.platformId }, custodyRef: wallet.custodyRef, reference: `spark-${randomUUID()}`, amount: 4242n, currency: 'USDB' });
    expect(await balanceOf(w.accountId)).toBe(before);
    expect(await pollWalletCredits(deps)).toBeGreaterThan(0);
    expect(await balanceOf(w.accountId)).toBe(before + 4242);
    expect(await pollWalletCredits(deps)).toBe(0); // every wallet was asked just now
    expect((await env.deps.prisma.embeddedWallet.findFirstOrThrow({ where: { id: w.accountId } })).creditsPolledAt).not.toBeNull();
    env.clock.advance(61_000);
    try {
      expect(await pollWalletCredits(deps)).toBeGreaterThan(0); // due again after the interval; the credit is not booked twice
    } finally {
      env.clock.advance(-61_000);
    }
    expect(await balanceOf(w.accountId)).toBe(before + 4242);
  });
});
