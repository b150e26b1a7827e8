import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { envelopeData, hpkeOpen } from '../../src/adapters/custody/hpke.js';
import { ctxFor } from '../../src/deps.js';
import { delegatedKeyFor } from '../../src/domains/wallet/index.js';
import { aWalletCustomer, newClientKey, nonceFor, otpLogin, sealOtpAttempt, signed, SoftAuthenticator, stampOf, startIssuer, type ClientKey, type LocalIssuer } from './helpers.js';

let env: TestEnv;
let p: TestPlatform;
let issuer: LocalIssuer;
let w: Awaited<ReturnType<typeof aWalletCustomer>>;
let session: { id: string; key: ClientKey };
let emailOtpId: string;

beforeAll(async () => {
  issuer = await startIssuer();
  env = await createTestEnv({ WALLET_OIDC_ISSUERS: `${issuer.url}=${issuer.url}/jwks`, WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_ORIGINS: 'http://localhost:3000' });
  p = await env.platform();
  const cfg = await p.request({ method: 'PATCH', url: '/config', payload: { embeddedWalletConfig: { appName: 'Acme Wallet', otpLength: 6 } } });
  expect(cfg.statusCode, cfg.body).toBe(200);
  w = await aWalletCustomer(env, p);
});
afterAll(async () => {
  await env.close();
  await issuer.close();
});

const balanceOf = async (accountId: string) => (await p.request({ method: 'GET', url: `/internal-accounts/${accountId}` })).json().balance.amount;

describe('a USDB platform with Global Accounts: wallet, EMAIL_OTP session', () => {
  it("a customer gets an EMBEDDED_WALLET account (REF's type) with an EMAIL_OTP credential on its email", async () => {
    expect(w.wallet).toMatchObject({ type: 'EMBEDDED_WALLET', customerId: w.customerId });
    const creds = await p.request({ method: 'GET', url: `/auth/credentials?accountId=${w.accountId}` });
    expect(creds.statusCode, creds.body + JSON.stringify(w)).toBe(200);
    expect(creds.json().data).toEqual([expect.objectContaining({ type: 'EMAIL_OTP', nickname: w.email, accountId: w.accountId })]);
    emailOtpId = creds.json().data[0].id;
  });

  it('a wrong OTP code is 401 with reason OTP_CODE_INVALID; 000000 sealed with HPKE gives 202 then the TEK-stamped retry a session', async () => {
    const wrong = await otpLogin(p, emailOtpId, '111111');
    expect(wrong.first.statusCode).toBe(401);
    expect(wrong.first.json()).toMatchObject({ code: 'UNAUTHORIZED', details: { reason: 'OTP_CODE_INVALID' } });
    const ok = await otpLogin(p, emailOtpId);
    expect(ok.first.statusCode, ok.first.body).toBe(202);
    expect(ok.first.json()).toMatchObject({ type: 'EMAIL_OTP', requestId: expect.stringMatching(/^Request:/) });
    expect(JSON.parse(ok.first.json().payloadToSign).verificationToken).toMatch(/^[0-9a-f]{64}$/);
    expect(ok.second!.statusCode, ok.second!.body).toBe(200);
    const s = ok.second!.json();
    expect(s).toMatchObject({ id: expect.stringMatching(/^AuthSession:/), type: 'EMAIL_OTP', accountId: w.accountId });
    expect(new Date(s.expiresAt).getTime() - Date.now()).toBeGreaterThan(14 * 60_000);
    session = { id: s.id, key: ok.tek };
    const list = await p.request({ method: 'GET', url: `/auth/sessions?accountId=${w.accountId}` });
    expect(list.json().data.map((x: any) => x.id)).toContain(s.id);
  });

  it('a retry stamped by another key than the one sealed with the code opens no session', async () => {
    const ch = await p.request({ method: 'POST', url: `/auth/credentials/${emailOtpId}/challenge`, payload: {} });
    const tek = newClientKey();
    const body = { type: 'EMAIL_OTP', encryptedOtpBundle: await sealOtpAttempt(ch.json().otpEncryptionTargetBundle, '000000', tek) };
    const first = await p.request({ method: 'POST', url: `/auth/credentials/${emailOtpId}/verify`, payload: body });
    const res = await p.request({ method: 'POST', url: `/auth/credentials/${emailOtpId}/verify`, payload: body, headers: { 'grid-wallet-signature': stampOf(newClientKey(), first.json().payloadToSign), 'request-id': first.json().requestId } });
    expect(res.statusCode).toBe(401);
    expect(res.json().details.reason).toBe('SIGNER_NOT_AUTHORIZED');
  });
});

describe('withdrawals from the wallet are signed on the device', () => {
  let dest: string;
  beforeAll(async () => {
    const fund = await p.request({ method: 'POST', url: `/sandbox/internal-accounts/${w.accountId}/fund`, payload: { amount: 1_000_000 } });
    expect(fund.statusCode, fund.body).toBe(200);
    const other = await aWalletCustomer(env, p);
    dest = (await env.deps.prisma.internalAccount.findFirstOrThrow({ where: { customerId: other.customerId, currency: 'USDB', type: { not: 'EMBEDDED_WALLET' } } })).id;
  });
  const quote = async () => {
    const res = await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: w.accountId }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1000 } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const payloadOf = (q: any) => q.paymentInstructions.find((i: any) => i.accountOrWalletInfo?.accountType === 'EMBEDDED_WALLET').accountOrWalletInfo.payloadToSign as string;
  const execute = (id: string, headers: Record<string, string> = {}) => p.request({ method: 'POST', url: `/quotes/${id}/execute`, headers });

  it('unstamped, wrongly stamped, or stamped for another quote: 401 and nothing moves', async () => {
    const q = await quote();
    const other = await quote();
    const before = await balanceOf(w.accountId);
    expect((await execute(q.id)).json()).toMatchObject({ status: 401, code: 'WALLET_SIGNATURE_MISSING' });
    expect((await execute(q.id, { 'grid-wallet-signature': stampOf(newClientKey(), payloadOf(q)) })).json()).toMatchObject({ status: 401, code: 'WALLET_SIGNATURE_INVALID', details: { reason: 'SIGNER_NOT_AUTHORIZED' } });
    expect((await execute(q.id, { 'grid-wallet-signature': stampOf(session.key, payloadOf(other)) })).json()).toMatchObject({ status: 401, code: 'WALLET_SIGNATURE_INVALID', details: { reason: 'SIGNATURE_MISMATCH' } });
    expect(await balanceOf(w.accountId)).toBe(before);
    expect((await p.request({ method: 'GET', url: `/quotes/${q.id}` })).json().status).toBe('PENDING');
  });

  it("stamped with the session key: executes and the money leaves; the replay moves nothing", async () => {
    const q = await quote();
    const before = await balanceOf(w.accountId);
    const headers = { 'grid-wallet-signature': stampOf(session.key, payloadOf(q)) };
    const res = await execute(q.id, headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(await balanceOf(w.accountId)).toBe(before - q.totalSendingAmount);
    const replay = await execute(q.id, headers);
    expect(replay.statusCode).toBe(401);
    expect(replay.json().details.reason).toBe('CHALLENGE_USED');
    expect(await balanceOf(w.accountId)).toBe(before - q.totalSendingAmount);
  });

  it('an expired challenge moves nothing (401 CHALLENGE_EXPIRED)', async () => {
    const q = await quote();
    const before = await balanceOf(w.accountId);
    env.clock.advance(5 * 60_000 + 1000);
    try {
      const res = await execute(q.id, { 'grid-wallet-signature': stampOf(session.key, payloadOf(q)) });
      expect(res.statusCode).toBe(401);
      expect(res.json().details.reason).toMatch(/CHALLENGE_EXPIRED|SIGNER_NOT_AUTHORIZED/);
    } finally {
      env.clock.advance(-(5 * 60_000 + 1000));
    }
    expect(await balanceOf(w.accountId)).toBe(before);
  });

  it('immediatelyExecute from an embedded wallet is refused (nothing is signed yet)', async () => {
    const res = await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: w.accountId }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1000, immediatelyExecute: true } });
    expect(res.statusCode).toBe(400);
    expect(res.json().details.errors[0].field).toBe('immediatelyExecute');
  });
});

describe('passkeys, OAuth, export, privacy and delegated keys', () => {
  const authenticator = new SoftAuthenticator();
  let passkeyId: string;

  it('a passkey is registered (signed retry) and asserted by a software authenticator into a session', async () => {
    const challenge = randomBytes(32).toString('base64url');
    const body = { type: 'PASSKEY', accountId: w.accountId, nickname: 'Laptop', challenge, attestation: authenticator.create(challenge) };
    const res = await signed(p, session.key, { method: 'POST', url: '/auth/credentials', payload: body });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ type: 'PASSKEY', nickname: 'Laptop', credentialId: authenticator.credentialId.toString('base64url') });
    passkeyId = res.json().id;
    const dup = await p.request({ method: 'POST', url: '/auth/credentials', payload: body });
    expect(dup.json()).toMatchObject({ status: 400, code: 'PASSKEY_CREDENTIAL_ALREADY_EXISTS' });

    const client = newClientKey();
    const ch = await p.request({ method: 'POST', url: `/auth/credentials/${passkeyId}/challenge`, payload: { clientPublicKey: client.publicKey } });
    expect(ch.statusCode, ch.body).toBe(200);
    expect(ch.json().challenge).toMatch(/^[0-9a-f]{64}$/);
    const verify = await p.request({ method: 'POST', url: `/auth/credentials/${passkeyId}/verify`, payload: { type: 'PASSKEY', assertion: authenticator.get(ch.json().challenge) }, headers: { 'request-id': ch.json().requestId } });
    expect(verify.statusCode, verify.body).toBe(200);
    expect(verify.json()).toMatchObject({ type: 'PASSKEY', id: expect.stringMatching(/^AuthSession:/) });
    const again = await p.request({ method: 'POST', url: `/auth/credentials/${passkeyId}/verify`, payload: { type: 'PASSKEY', assertion: authenticator.get(ch.json().challenge) }, headers: { 'request-id': ch.json().requestId } });
    expect(again.json()).toMatchObject({ status: 401, details: { reason: 'CHALLENGE_USED' } });
  });

  it('an OIDC token from the local issuer registers an OAUTH credential and, with nonce = sha256(clientPublicKey), opens a session', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: issuer.url, aud: 'acme-app', sub: 'user-123', email: 'ada@example.com', iat: now, exp: now + 300 };
    const add = await signed(p, session.key, { method: 'POST', url: '/auth/credentials', payload: { type: 'OAUTH', accountId: w.accountId, oidcToken: await issuer.token(claims) } });
    expect(add.statusCode, add.body).toBe(201);
    const oauthId = add.json().id;
    const client = newClientKey();
    const badNonce = await p.request({ method: 'POST', url: `/auth/credentials/${oauthId}/verify`, payload: { type: 'OAUTH', clientPublicKey: client.publicKey, oidcToken: await issuer.token({ ...claims, nonce: 'x' }) } });
    expect(badNonce.json()).toMatchObject({ status: 401, details: { reason: 'OIDC_NONCE_MISMATCH' } });
    const otherSub = await p.request({ method: 'POST', url: `/auth/credentials/${oauthId}/verify`, payload: { type: 'OAUTH', clientPublicKey: client.publicKey, oidcToken: await issuer.token({ ...claims, sub: 'someone-else', nonce: nonceFor(client.publicKey) }) } });
    expect(otherSub.json()).toMatchObject({ status: 401, details: { reason: 'OIDC_IDENTITY_MISMATCH' } });
    const stale = await p.request({ method: 'POST', url: `/auth/credentials/${oauthId}/verify`, payload: { type: 'OAUTH', clientPublicKey: client.publicKey, oidcToken: await issuer.token({ ...claims, iat: now - 120, nonce: nonceFor(client.publicKey) }) } });
    expect(stale.json()).toMatchObject({ status: 401, details: { reason: 'OIDC_TOKEN_STALE' } });
    const ok = await p.request({ method: 'POST', url: `/auth/credentials/${oauthId}/verify`, payload: { type: 'OAUTH', clientPublicKey: client.publicKey, oidcToken: await issuer.token({ ...claims, nonce: nonceFor(client.publicKey) }) } });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ type: 'OAUTH', nickname: 'ada@example.com' });
  });

  it('export answers the mnemonic HPKE-sealed to the client key; the test opens it with the private key', async () => {
    const client = newClientKey();
    const res = await signed(p, session.key, { method: 'POST', url: `/internal-accounts/${w.accountId}/export`, payload: { clientPublicKey: client.publicKeyUncompressed } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().id).toBe(w.accountId);
    const sealed = envelopeData<{ encappedPublic: string; ciphertext: string }>(res.json().encryptedWalletCredentials);
    const mnemonic = new TextDecoder().decode(await hpkeOpen(client.privateKey, sealed));
    expect(mnemonic.split(' ')).toHaveLength(24);
  });

  it('privacy is toggled by a signed PATCH /internal-accounts/{id}', async () => {
    const res = await signed(p, session.key, { method: 'PATCH', url: `/internal-accounts/${w.accountId}`, payload: { privateEnabled: true } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: w.accountId, privateEnabled: true, type: 'EMBEDDED_WALLET' });
  });

  it('delegated keys: created ACTIVE (one per card funding source), signing without the customer, then revoked', async () => {
    const card = await p.request({ method: 'POST', url: '/cards', payload: { customerId: w.customerId, form: 'VIRTUAL', fundingSources: [w.accountId] } });
    expect(card.statusCode, card.body).toBe(201);
    const body = { cardId: card.json().id, internalAccountId: w.accountId, nickname: 'card key' };
    const created = await signed(p, session.key, { method: 'POST', url: '/auth/delegated-keys', payload: body });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ status: 'ACTIVE', cardId: body.cardId, fundingSourceId: w.accountId, publicKey: expect.stringMatching(/^0[23][0-9a-f]{64}$/) });
    expect((await p.request({ method: 'POST', url: '/auth/delegated-keys', payload: body })).json()).toMatchObject({ status: 409, code: 'DELEGATED_KEY_ALREADY_ACTIVE' });
    const signer = await delegatedKeyFor(ctxFor(env.deps, p.platformId), body.cardId, w.accountId);
    expect(signer?.publicKey).toBe(created.json().publicKey);
    expect((await signer!.sign('authorization')).signature.length).toBeGreaterThan(60);
    const list = await p.request({ method: 'GET', url: `/auth/delegated-keys?accountId=${w.accountId}` });
    expect(list.json().data).toHaveLength(1);
    // REF (issue 25): revoked with platform credentials alone, 204, no signed retry.
    const revoked = await p.request({ method: 'DELETE', url: `/auth/delegated-keys/${created.json().id}` });
    expect(revoked.statusCode, revoked.body).toBe(204);
    expect(await delegatedKeyFor(ctxFor(env.deps, p.platformId), body.cardId, w.accountId)).toBeNull();
    expect((await p.request({ method: 'GET', url: `/auth/delegated-keys/${created.json().id}` })).json().status).toBe('REVOKED');
  });
});

describe("the spec's errors, limits and revocation", () => {
  it('EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS and SMS_OTP_CREDENTIAL_ALREADY_EXISTS: one of each per account', async () => {
    expect((await p.request({ method: 'POST', url: '/auth/credentials', payload: { type: 'EMAIL_OTP', accountId: w.accountId } })).json()).toMatchObject({ status: 400, code: 'EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS' });
    await env.deps.prisma.customer.updateMany({ where: { id: w.customerId }, data: { phoneNumber: '+14155550123' } });
    const sms = await signed(p, session.key, { method: 'POST', url: '/auth/credentials', payload: { type: 'SMS_OTP', accountId: w.accountId } });
    expect(sms.statusCode, sms.body).toBe(201);
    expect(sms.json()).toMatchObject({ type: 'SMS_OTP', nickname: '+14155550123', otpEncryptionTargetBundle: expect.any(String) });
    expect((await p.request({ method: 'POST', url: '/auth/credentials', payload: { type: 'SMS_OTP', accountId: w.accountId } })).json()).toMatchObject({ status: 400, code: 'SMS_OTP_CREDENTIAL_ALREADY_EXISTS' });
  });

  it('EMAIL_OTP_EMAIL_ALREADY_EXISTS: an email tied to another wallet\'s EMAIL_OTP', async () => {
    const b = await aWalletCustomer(env, p);
    const bLogin = await otpLogin(p, (await p.request({ method: 'GET', url: `/auth/credentials?accountId=${b.accountId}` })).json().data[0].id);
    const bKey = bLogin.tek;
    // B's customer record takes A's email (A's EMAIL_OTP still holds it); B's wallet swaps its EMAIL_OTP.
    await env.deps.prisma.customer.updateMany({ where: { id: b.customerId }, data: { email: w.email } });
    await env.deps.prisma.authCredential.updateMany({ where: { accountId: b.accountId, type: 'EMAIL_OTP' }, data: { revokedAt: new Date() } });
    await env.deps.prisma.authCredential.create({ data: { id: `AuthMethod:${crypto.randomUUID()}`, platformId: p.platformId, accountId: b.accountId, customerId: b.customerId, type: 'SMS_OTP', nickname: '+1', contact: '+1' } });
    const res = await p.request({ method: 'POST', url: '/auth/credentials', payload: { type: 'EMAIL_OTP', accountId: b.accountId } });
    expect(res.json()).toMatchObject({ status: 409, code: 'EMAIL_OTP_EMAIL_ALREADY_EXISTS' });
    expect(bKey).toBeDefined();
  });

  it('EMAIL_OTP_CREDENTIAL_SET_CHANGED: the credentials changed between the challenge and the signed retry', async () => {
    const body = { clientPublicKey: newClientKey().publicKeyUncompressed };
    const first = await p.request({ method: 'POST', url: `/internal-accounts/${w.accountId}/export`, payload: body });
    expect(first.statusCode).toBe(202);
    const challenge = randomBytes(32).toString('base64url');
    const added = await signed(p, session.key, { method: 'POST', url: '/auth/credentials', payload: { type: 'PASSKEY', accountId: w.accountId, nickname: 'Phone', challenge, attestation: new SoftAuthenticator().create(challenge) } });
    expect(added.statusCode, added.body).toBe(201);
    const retry = await p.request({ method: 'POST', url: `/internal-accounts/${w.accountId}/export`, payload: body, headers: { 'grid-wallet-signature': stampOf(session.key, first.json().payloadToSign), 'request-id': first.json().requestId } });
    expect(retry.json()).toMatchObject({ status: 409, code: 'EMAIL_OTP_CREDENTIAL_SET_CHANGED' });
  });

  it('challenges are rate-limited per credential: 429 RATE_LIMITED with Retry-After', async () => {
    const c = await aWalletCustomer(env, p);
    const id = (await p.request({ method: 'GET', url: `/auth/credentials?accountId=${c.accountId}` })).json().data[0].id;
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) codes.push((await p.request({ method: 'POST', url: `/auth/credentials/${id}/challenge`, payload: {} })).statusCode);
    expect(codes).toEqual([200, 200, 200, 200, 200, 429]);
    const limited = await p.request({ method: 'POST', url: `/auth/credentials/${id}/challenge`, payload: {} });
    expect(limited.json().code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('a credential is revoked only by another credential\'s session, never the last; a revoked session stops signing at once', async () => {
    const ownRevoke = await signed(p, session.key, { method: 'DELETE', url: `/auth/credentials/${emailOtpId}` });
    expect(ownRevoke.json()).toMatchObject({ status: 401, details: { reason: 'SIGNER_NOT_AUTHORIZED' } });
    const revoked = await signed(p, session.key, { method: 'DELETE', url: `/auth/sessions/${session.id}` });
    expect(revoked.statusCode, revoked.body).toBe(204);
    const after = await signed(p, session.key, { method: 'PATCH', url: `/internal-accounts/${w.accountId}`, payload: { privateEnabled: false } });
    expect(after.json()).toMatchObject({ status: 401, details: { reason: 'SIGNER_NOT_AUTHORIZED' } });
    const c = await aWalletCustomer(env, p);
    const only = (await p.request({ method: 'GET', url: `/auth/credentials?accountId=${c.accountId}` })).json().data[0].id;
    expect((await p.request({ method: 'DELETE', url: `/auth/credentials/${only}` })).json()).toMatchObject({ status: 400 });
  });

  it('sessions expire (15 minutes by default) and refresh gives a new one', async () => {
    const login = await otpLogin(p, emailOtpId);
    const s = login.second!.json();
    const next = newClientKey();
    const refreshed = await signed(p, login.tek, { method: 'POST', url: `/auth/sessions/${s.id}/refresh`, payload: { clientPublicKey: next.publicKey } });
    expect(refreshed.statusCode, refreshed.body).toBe(201);
    expect(refreshed.json().id).not.toBe(s.id);
    env.clock.advance(15 * 60_000 + 1000);
    try {
      const res = await signed(p, next, { method: 'PATCH', url: `/internal-accounts/${w.accountId}`, payload: { privateEnabled: false } });
      expect(res.json()).toMatchObject({ status: 401, details: { reason: 'SIGNER_NOT_AUTHORIZED' } });
    } finally {
      env.clock.advance(-(15 * 60_000 + 1000));
    }
  });
});
