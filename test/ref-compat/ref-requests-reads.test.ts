import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';
import { BridgeServer } from '../helpers/bridge-server.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { aBusiness, anIndividual } from '../customers/helpers.js';
import type { RunningWorkers } from '../../src/workers.js';

/**
 * Issue 25 part A: requests shaped as REF documents them today are accepted, stored and returned, and
 * REF's read fields appear, on the operations this server shares with REF. WIRE goes through the http
 * bridge (so what reaches the rail is seen, and the rail declares a one-day settlement), other rails
 * through the sandbox.
 */
let env: TestEnv;
let workers: RunningWorkers;
let bridge: BridgeServer;
const DAY_MS = 86_400_000;

beforeAll(async () => {
  bridge = await new BridgeServer().start();
  bridge.settleMs = 50;
  env = await createTestEnv({
    RAIL_ADAPTERS: 'WIRE:http',
    ADAPTER_HTTP_URL: bridge.url,
    ADAPTER_HTTP_PUBLIC_KEY: bridge.publicKeyPem,
    ADAPTER_HTTP_EXPECTED_SETTLEMENT_MS: String(DAY_MS),
    SANDBOX_RAIL_DELAY_SCALE: '0.01',
    PAYMENT_POLL_MIN_MS: '20',
    END_USER_TERMS_VERSION: 'V2',
    END_USER_TERMS_URL: 'https://terms.example.org/eut',
    END_USER_TERMS_ACCEPTED_VERSIONS: 'V1',
  });
  bridge.trust(env.deps.signer.publicKeyPem);
  workers = env.startWorkers();
});
afterAll(async () => {
  await workers.close();
  await env.close();
  await bridge.stop();
});

const fieldsOf = (res: { json(): any }) => (res.json().details?.errors ?? []).map((e: { field: string }) => e.field).sort();

async function waitStatus(p: TestPlatform, id: string, status: string) {
  return eventually(async () => {
    const t = (await p.request({ method: 'GET', url: `/transactions/${id}` })).json();
    return t.status === status ? t : undefined;
  }, 20_000);
}

async function aPayer(p: TestPlatform, amount = 1_000_000) {
  const c = await anApprovedCustomer(env, p, ['USD']);
  await fund(p, c.accounts.USD!, amount);
  return c;
}

const consent = (over: Record<string, unknown> = {}) => ({ acceptedAt: '2026-01-03T12:00:00Z', ipAddress: '198.51.100.24', termsVersion: 'V2', acceptanceMethod: 'CHECKBOX', ...over });

describe('POST /transfer-out with REF\'s memo, purpose and rail', () => {
  it('remittanceInformation, purposeOfPayment and destination.paymentRail reach the rail as a quote\'s do, and are returned', async () => {
    const p = await env.platform();
    const c = await aPayer(p);
    const dest = await anActiveExternalAccount(p, usdBankAccount('555000111'), c.customerId);
    const res = await p.request({
      method: 'POST',
      url: '/transfer-out',
      payload: { source: { accountId: c.accounts.USD }, destination: { accountId: dest, paymentRail: 'WIRE' }, amount: 12_550, remittanceInformation: 'INV-12345', purposeOfPayment: 'GOODS_OR_SERVICES' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const t = res.json();
    expect(t).toMatchObject({ paymentRail: 'WIRE', remittanceInformation: 'INV-12345', purposeOfPayment: 'GOODS_OR_SERVICES', railSelectionMode: 'MANUAL', settlementTimelineSeconds: DAY_MS / 1000 });
    expect(t.destination).toMatchObject({ accountId: dest, paymentRail: 'WIRE' });
    expect(t.expectedSettlementAt).toBe(new Date(Date.parse(t.createdAt) + DAY_MS).toISOString());
    assertMatchesResponseSchema('post', `${BASE}/transfer-out`, 201, t);
    const done = await waitStatus(p, t.id, 'COMPLETED');
    const submitted = bridge.requestsTo('/payouts').find((r) => r.body.idempotencyKey === t.id)!;
    expect(submitted.body).toMatchObject({ rail: 'WIRE', remittanceInformation: 'INV-12345', purposeOfPayment: 'GOODS_OR_SERVICES' });

    // The same fields on POST /quotes reach the rail identically.
    const q = await p.request({
      method: 'POST',
      url: '/quotes',
      payload: { source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: dest, paymentRail: 'WIRE' }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 12_550, immediatelyExecute: true, remittanceInformation: 'INV-12345', purposeOfPayment: 'GOODS_OR_SERVICES' },
    });
    expect(q.statusCode, q.body).toBe(201);
    await waitStatus(p, q.json().transactionId, 'COMPLETED');
    const viaQuote = bridge.requestsTo('/payouts').find((r) => r.body.idempotencyKey === q.json().transactionId)!;
    const pick = (b: Record<string, unknown>) => ({ rail: b.rail, remittanceInformation: b.remittanceInformation, purposeOfPayment: b.purposeOfPayment, amount: b.amount });
    expect(pick(viaQuote.body)).toEqual(pick(submitted.body));

    // Reconciliation: the rail's reference, once the rail gave one.
    const row = await env.deps.prisma.transaction.findFirstOrThrow({ where: { id: t.id } });
    expect(done.reconciliationInstructions).toEqual({ reference: row.railReference });
    const listed = (await p.request({ method: 'GET', url: `/transactions?customerId=${c.customerId}&type=OUTGOING` })).json();
    expect(listed.data.find((x: any) => x.id === t.id)).toMatchObject({ railSelectionMode: 'MANUAL', remittanceInformation: 'INV-12345', settlementTimelineSeconds: 86_400 });
    await expectLedgerConsistent(env, p.platformId);
  });

  it('without a rail the service chooses it (AUTO) and the rail\'s own timing is given; an instant rail has no expectedSettlementAt', async () => {
    const p = await env.platform();
    const c = await aPayer(p);
    const dest = await anActiveExternalAccount(p, usdBankAccount('555000222'), c.customerId);
    const auto = (await p.request({ method: 'POST', url: '/transfer-out', payload: { source: { accountId: c.accounts.USD }, destination: { accountId: dest }, amount: 100 } })).json();
    expect(auto).toMatchObject({ railSelectionMode: 'AUTO' });
    expect(auto.settlementTimelineSeconds).toBeGreaterThanOrEqual(0);
    expect(auto).not.toHaveProperty('remittanceInformation');
    const rtp = await p.request({ method: 'POST', url: '/transfer-out', payload: { source: { accountId: c.accounts.USD }, destination: { accountId: dest, paymentRail: 'RTP' }, amount: 100 } });
    expect(rtp.statusCode, rtp.body).toBe(201);
    expect(rtp.json()).toMatchObject({ paymentRail: 'RTP', railSelectionMode: 'MANUAL' });
    expect(rtp.json()).not.toHaveProperty('expectedSettlementAt');
    // Between internal accounts there is no rail: none of the three.
    const other = await anApprovedCustomer(env, p, ['USD']);
    const internal = await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: other.accounts.USD }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 10, immediatelyExecute: true } });
    const it = (await p.request({ method: 'GET', url: `/transactions/${internal.json().transactionId}` })).json();
    for (const k of ['railSelectionMode', 'settlementTimelineSeconds', 'expectedSettlementAt']) expect(it).not.toHaveProperty(k);
  });

  it('bad memo, purpose or rail: 400 INVALID_INPUT naming each field, and nothing moves', async () => {
    const p = await env.platform();
    const c = await aPayer(p, 5_000);
    const dest = await anActiveExternalAccount(p, usdBankAccount('555000333'), c.customerId);
    const base = { source: { accountId: c.accounts.USD }, destination: { accountId: dest }, amount: 100 };
    const bad = await p.request({ method: 'POST', url: '/transfer-out', payload: { ...base, destination: { accountId: dest, paymentRail: 'wire' }, remittanceInformation: 'x'.repeat(81), purposeOfPayment: 'BRIBE', memo: 'm' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('INVALID_INPUT');
    expect(fieldsOf(bad)).toEqual(['destination.paymentRail', 'memo', 'purposeOfPayment', 'remittanceInformation']);
    const notTaken = await p.request({ method: 'POST', url: '/transfer-out', payload: { ...base, destination: { accountId: dest, paymentRail: 'SEPA' } } });
    expect(notTaken.statusCode).toBe(400);
    expect(fieldsOf(notTaken)).toEqual(['destination.paymentRail']);
    expect(await env.deps.prisma.transaction.count({ where: { platformId: p.platformId, type: 'OUTGOING' } })).toBe(0);
  });
});

describe('transaction statuses and receipt confirmation', () => {
  it('GET /transactions filters on REF\'s CREATED, REJECTED, REFUNDED and EXPIRED; an unknown status is 400 naming it', async () => {
    const p = await env.platform();
    for (const s of ['CREATED', 'REJECTED', 'REFUNDED', 'EXPIRED', 'CREATED,REJECTED,REFUNDED']) {
      const res = await p.request({ method: 'GET', url: `/transactions?status=${s}` });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toEqual([]);
    }
    const bad = await p.request({ method: 'GET', url: '/transactions?status=SETTLED' });
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)[0]).toMatch(/^status/);
  });

  it('POST /transactions/{id}/confirm stores receiptDeliveryConfirmedAt (the server\'s time when omitted), replaces it when called again, and refuses bad times', async () => {
    const p = await env.platform();
    const c = await aPayer(p);
    const dest = await anActiveExternalAccount(p, usdBankAccount('555000444'), c.customerId);
    const t = (await p.request({ method: 'POST', url: '/transfer-out', payload: { source: { accountId: c.accounts.USD }, destination: { accountId: dest, paymentRail: 'WIRE' }, amount: 5_000 } })).json();
    expect(t.id, JSON.stringify(t)).toMatch(/^Transaction:/);
    await waitStatus(p, t.id, 'COMPLETED');
    const before = env.clock.now().getTime();
    const first = await p.request({ method: 'POST', url: `/transactions/${t.id}/confirm` });
    expect(first.statusCode, first.body).toBe(200);
    expect(Date.parse(first.json().receiptDeliveryConfirmedAt)).toBeGreaterThanOrEqual(before - 1000);
    assertMatchesResponseSchema('post', `${BASE}/transactions/{transactionId}/confirm`, 200, first.json());
    const at = new Date(Date.parse(t.createdAt) + 1).toISOString();
    const second = await p.request({ method: 'POST', url: `/transactions/${t.id}/confirm`, payload: { receiptDeliveryConfirmedAt: at } });
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json()).toMatchObject({ id: t.id, status: 'COMPLETED', receiptDeliveryConfirmedAt: at });
    expect((await p.request({ method: 'GET', url: `/transactions/${t.id}` })).json().receiptDeliveryConfirmedAt).toBe(at);

    const future = await p.request({ method: 'POST', url: `/transactions/${t.id}/confirm`, payload: { receiptDeliveryConfirmedAt: new Date(env.clock.now().getTime() + 3_600_000).toISOString() } });
    expect(future.statusCode).toBe(400);
    expect(fieldsOf(future)).toEqual(['receiptDeliveryConfirmedAt']);
    const early = await p.request({ method: 'POST', url: `/transactions/${t.id}/confirm`, payload: { receiptDeliveryConfirmedAt: '2020-01-01T00:00:00Z' } });
    expect(fieldsOf(early)).toEqual(['receiptDeliveryConfirmedAt']);
    const garbage = await p.request({ method: 'POST', url: `/transactions/${t.id}/confirm`, payload: { receiptDeliveryConfirmedAt: 'yesterday', note: 1 } });
    expect(garbage.statusCode).toBe(400);
    expect(fieldsOf(garbage)).toEqual(['note', 'receiptDeliveryConfirmedAt']);
    expect((await p.request({ method: 'GET', url: `/transactions/${t.id}` })).json().receiptDeliveryConfirmedAt).toBe(at);

    const stranger = await env.platform();
    const other = await stranger.request({ method: 'POST', url: `/transactions/${t.id}/confirm` });
    expect(other.statusCode).toBe(404);
    expect(other.json().code).toBe('TRANSACTION_NOT_FOUND');
  });
});

describe('End User Terms', () => {
  it('GET /customers/end-user-terms answers the configured version and URL', async () => {
    const p = await env.platform();
    const res = await p.request({ method: 'GET', url: '/customers/end-user-terms' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ version: 'V2', url: 'https://terms.example.org/eut' });
    assertMatchesResponseSchema('get', `${BASE}/customers/end-user-terms`, 200, res.json());
  });

  it('endUserTermsConsent is stored on create and PATCH and returned (omitted until recorded); bad consents are refused precisely', async () => {
    const p = await env.platform();
    const created = await p.request({ method: 'POST', url: '/customers', payload: anIndividual({ endUserTermsConsent: consent({ acceptedAt: '2026-01-03T13:00:00+01:00' }) }) });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().endUserTermsConsent).toEqual(consent({ acceptedAt: '2026-01-03T12:00:00.000Z' }));
    assertMatchesResponseSchema('post', `${BASE}/customers`, 201, created.json());
    expect((await p.request({ method: 'GET', url: `/customers/${created.json().id}` })).json().endUserTermsConsent).toEqual(consent({ acceptedAt: '2026-01-03T12:00:00.000Z' }));

    const plain = (await p.request({ method: 'POST', url: '/customers', payload: anIndividual() })).json();
    expect(plain).not.toHaveProperty('endUserTermsConsent');
    const patched = await p.request({ method: 'PATCH', url: `/customers/${plain.id}`, payload: { customerType: 'INDIVIDUAL', endUserTermsConsent: consent({ termsVersion: 'V1', acceptanceMethod: 'CLICK_TO_ACCEPT' }) } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().endUserTermsConsent).toMatchObject({ termsVersion: 'V1', acceptanceMethod: 'CLICK_TO_ACCEPT' });
    // A later PATCH without it keeps it.
    const later = await p.request({ method: 'PATCH', url: `/customers/${plain.id}`, payload: { customerType: 'INDIVIDUAL', fullName: 'Ada King' } });
    expect(later.json().endUserTermsConsent).toMatchObject({ termsVersion: 'V1' });

    const version = await p.request({ method: 'POST', url: '/customers', payload: anIndividual({ endUserTermsConsent: consent({ termsVersion: 'V9' }) }) });
    expect(version.statusCode).toBe(400);
    expect(version.json().code).toBe('END_USER_TERMS_VERSION_NOT_FOUND');
    expect(fieldsOf(version)).toEqual(['endUserTermsConsent.termsVersion']);
    const shape = await p.request({ method: 'POST', url: '/customers', payload: anIndividual({ endUserTermsConsent: { acceptedAt: 'now', ipAddress: 'localhost', acceptanceMethod: 'NOD', extra: true } }) });
    expect(shape.statusCode).toBe(400);
    expect(shape.json().code).toBe('INVALID_INPUT');
    expect(fieldsOf(shape)).toEqual(['endUserTermsConsent.acceptanceMethod', 'endUserTermsConsent.acceptedAt', 'endUserTermsConsent.extra', 'endUserTermsConsent.ipAddress', 'endUserTermsConsent.termsVersion']);
    const future = await p.request({ method: 'PATCH', url: `/customers/${plain.id}`, payload: { customerType: 'INDIVIDUAL', endUserTermsConsent: consent({ acceptedAt: new Date(env.clock.now().getTime() + 3_600_000).toISOString() }) } });
    expect(fieldsOf(future)).toEqual(['endUserTermsConsent.acceptedAt']);
    expect(await env.deps.prisma.customer.count({ where: { platformId: p.platformId } })).toBe(2);
  });

  it('a platform that requires consent (PATCH /config) refuses its customers\' money movement with 403 END_USER_TERMS_NOT_ACCEPTED until it is recorded', async () => {
    const p = await env.platform();
    const c = await aPayer(p);
    const dest = await anActiveExternalAccount(p, usdBankAccount('555000555'), c.customerId);
    const quote = () => p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 100 } });
    // The spec's behaviour by default: no consent needed.
    expect((await p.request({ method: 'GET', url: '/config' })).json().endUserTermsRequired).toBe(false);
    expect((await quote()).statusCode).toBe(201);

    const on = await p.request({ method: 'PATCH', url: '/config', payload: { endUserTermsRequired: true } });
    expect(on.statusCode, on.body).toBe(200);
    expect(on.json().endUserTermsRequired).toBe(true);
    const refused = await quote();
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('END_USER_TERMS_NOT_ACCEPTED');
    const transfer = await p.request({ method: 'POST', url: '/transfer-out', payload: { source: { accountId: c.accounts.USD }, destination: { accountId: dest }, amount: 100 } });
    expect(transfer.statusCode).toBe(403);
    expect(transfer.json().code).toBe('END_USER_TERMS_NOT_ACCEPTED');
    const held = await env.deps.prisma.internalAccount.findFirstOrThrow({ where: { id: c.accounts.USD! } });
    expect(held.heldBalance).toBe(0n);

    const bad = await p.request({ method: 'PATCH', url: '/config', payload: { endUserTermsRequired: 'yes' } });
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toEqual(['endUserTermsRequired']);

    await p.request({ method: 'PATCH', url: `/customers/${c.customerId}`, payload: { customerType: 'INDIVIDUAL', endUserTermsConsent: consent() } });
    expect((await quote()).statusCode).toBe(201);
    const reset = await p.request({ method: 'PATCH', url: '/config', payload: { endUserTermsRequired: null } });
    expect(reset.json().endUserTermsRequired).toBe(false);
  });
});

describe('REF\'s customer enum values and identification', () => {
  it('a business with entityType PUBLICLY_LISTED_COMPANY and businessType PUBLIC_ADMINISTRATION is created and returned as sent', async () => {
    const p = await env.platform();
    const res = await p.request({ method: 'POST', url: '/customers', payload: aBusiness({}, { entityType: 'PUBLICLY_LISTED_COMPANY', businessType: 'PUBLIC_ADMINISTRATION' }) });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().businessInfo).toMatchObject({ entityType: 'PUBLICLY_LISTED_COMPANY', businessType: 'PUBLIC_ADMINISTRATION' });
    assertMatchesResponseSchema('post', `${BASE}/customers`, 201, res.json());
    const old = await p.request({ method: 'POST', url: '/customers', payload: aBusiness({}, { entityType: 'REFLY_LISTED_COMPANY', businessType: 'REF_ADMINISTRATION' }) });
    expect(old.statusCode).toBe(400);
    expect(fieldsOf(old)).toEqual(['businessInfo.businessType', 'businessInfo.entityType']);
  });

  it('countryOfIssuance: US by default for an SSN, anything else refused for SSN and ITIN (REF)', async () => {
    const p = await env.platform();
    const ok = await p.request({ method: 'POST', url: '/customers', payload: anIndividual() });
    expect(ok.json().countryOfIssuance).toBe('US');
    const bad = await p.request({ method: 'POST', url: '/customers', payload: anIndividual({ countryOfIssuance: 'CA' }) });
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toEqual(['countryOfIssuance']);
  });
});

describe('REF\'s external-account fields', () => {
  const person = (extra: Record<string, unknown> = {}) => ({
    beneficiaryType: 'INDIVIDUAL',
    fullName: 'Awa Diop',
    phoneNumber: '+15555550123',
    countryOfResidence: 'SN',
    birthDate: '1990-01-01',
    nationality: 'SN',
    address: { line1: '1 Rue Carnot', city: 'Dakar', postalCode: '10000', country: 'SN' },
    ...extra,
  });
  const xof = (info: Record<string, unknown>) => ({ currency: 'XOF', accountInfo: { accountType: 'XOF_ACCOUNT', phoneNumber: '+221771234567', provider: 'Orange Money', ...info, beneficiary: person() } });

  it('an XOF account takes the operator\'s name as provider and REF\'s region, stores and returns both', async () => {
    const p = await env.platform();
    const res = await p.request({ method: 'POST', url: '/platform/external-accounts', payload: xof({ region: 'SN', provider: 'orange money' }) });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().accountInfo).toMatchObject({ provider: 'Orange Money', region: 'SN', phoneNumber: '+221771234567' });
    const read = (await p.request({ method: 'GET', url: `/platform/external-accounts/${res.json().id}` })).json();
    expect(read.accountInfo).toMatchObject({ provider: 'Orange Money', region: 'SN' });
    const togo = await p.request({ method: 'POST', url: '/platform/external-accounts', payload: xof({ region: 'TG', phoneNumber: '+22890123456', provider: 'Moov Money' }) });
    expect(togo.statusCode, togo.body).toBe(201);
    // The earlier placeholder codes stay accepted, as sent.
    const alias = await p.request({ method: 'POST', url: '/platform/external-accounts', payload: xof({ provider: 'XOF_MOBILE_2', phoneNumber: '+221771234568' }) });
    expect(alias.statusCode, alias.body).toBe(201);
    expect(alias.json().accountInfo.provider).toBe('XOF_MOBILE_2');
  });

  it('an unknown operator, a region outside the CFA zone or a phone of another country than the region: 400 naming the field', async () => {
    const p = await env.platform();
    const unknown = await p.request({ method: 'POST', url: '/platform/external-accounts', payload: xof({ provider: 'Telco Nowhere' }) });
    expect(unknown.statusCode).toBe(400);
    expect(fieldsOf(unknown)).toEqual(['accountInfo.provider']);
    expect(unknown.json().details.errors[0].constraint.enum).toContain('Orange Money');
    const region = await p.request({ method: 'POST', url: '/platform/external-accounts', payload: xof({ region: 'FR' }) });
    expect(fieldsOf(region)).toEqual(['accountInfo.region']);
    const mismatch = await p.request({ method: 'POST', url: '/platform/external-accounts', payload: xof({ region: 'CI' }) });
    expect(mismatch.statusCode).toBe(400);
    expect(fieldsOf(mismatch)).toEqual(['accountInfo.region']);
    const kes = await p.request({ method: 'POST', url: '/platform/external-accounts', payload: { currency: 'KES', accountInfo: { accountType: 'KES_ACCOUNT', phoneNumber: '+254712345678', provider: 'Orange Money', beneficiary: person() } } });
    expect(fieldsOf(kes)).toEqual(['accountInfo.provider']);
    expect(await env.deps.prisma.externalAccount.count({ where: { platformId: p.platformId } })).toBe(0);
  });

  it('a CAD individual beneficiary keeps REF\'s registrationNumber; other currencies drop it as before', async () => {
    const p = await env.platform();
    const cad = { currency: 'CAD', accountInfo: { accountType: 'CAD_ACCOUNT', bankCode: '003', branchCode: '12345', accountNumber: '1234567', beneficiary: person({ registrationNumber: 'REG-778', countryOfResidence: 'CA', address: { line1: '1 Bay St', city: 'Toronto', postalCode: 'M5J 2N8', country: 'CA' } }) } };
    const res = await p.request({ method: 'POST', url: '/platform/external-accounts', payload: cad });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().accountInfo.beneficiary).toMatchObject({ beneficiaryType: 'INDIVIDUAL', registrationNumber: 'REG-778' });
    const usd = await p.request({ method: 'POST', url: '/platform/external-accounts', payload: { ...usdBankAccount('555000999'), accountInfo: { ...usdBankAccount('555000999').accountInfo, beneficiary: { ...usdBankAccount().accountInfo.beneficiary, registrationNumber: 'REG-1' } } } });
    expect(usd.statusCode, usd.body).toBe(201);
    expect(usd.json().accountInfo.beneficiary).not.toHaveProperty('registrationNumber');
    const long = await p.request({ method: 'POST', url: '/platform/external-accounts', payload: { ...cad, accountInfo: { ...cad.accountInfo, beneficiary: person({ registrationNumber: 'x'.repeat(65) }) } } });
    expect(fieldsOf(long)).toEqual(['accountInfo.beneficiary.registrationNumber']);
  });
});

describe('REF\'s verification values', () => {
  it('GET /verifications?verificationStatus=READY_FOR_VERIFICATION is answered (no case waits there); an unknown status is 400', async () => {
    const p = await env.platform();
    const ok = await p.request({ method: 'GET', url: '/verifications?verificationStatus=READY_FOR_VERIFICATION' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data).toEqual([]);
    const bad = await p.request({ method: 'GET', url: '/verifications?verificationStatus=READY' });
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toEqual(['verificationStatus']);
  });
});

describe('REF\'s scaFactor on quotes', () => {
  it('SMS_OTP is accepted on create and execute; TOTP and unknown values are 400 on scaFactor; PASSKEY is 501', async () => {
    const p = await env.platform();
    const c = await aPayer(p);
    const other = await anApprovedCustomer(env, p, ['USD']);
    const body = (scaFactor?: string) => ({ source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: other.accounts.USD }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 100, ...(scaFactor ? { scaFactor } : {}) });
    const q = await p.request({ method: 'POST', url: '/quotes', payload: body('SMS_OTP') });
    expect(q.statusCode, q.body).toBe(201);
    for (const bad of ['TOTP', 'FACE_ID']) {
      const res = await p.request({ method: 'POST', url: '/quotes', payload: body(bad) });
      expect(res.statusCode, bad).toBe(400);
      expect(fieldsOf(res)).toEqual(['scaFactor']);
    }
    const passkey = await p.request({ method: 'POST', url: '/quotes', payload: body('PASSKEY') });
    expect(passkey.statusCode).toBe(501);
    expect(passkey.json().code).toBe('NOT_IMPLEMENTED');
    const totp = await p.request({ method: 'POST', url: `/quotes/${q.json().id}/execute`, payload: { scaFactor: 'TOTP' } });
    expect(totp.statusCode).toBe(400);
    expect(fieldsOf(totp)).toEqual(['scaFactor']);
    expect((await p.request({ method: 'GET', url: `/quotes/${q.json().id}` })).json().status).toBe('PENDING');
    const exec = await p.request({ method: 'POST', url: `/quotes/${q.json().id}/execute`, payload: { scaFactor: 'SMS_OTP' } });
    expect(exec.statusCode, exec.body).toBe(200);
    expect(await env.deps.prisma.quote.count({ where: { platformId: p.platformId } })).toBe(1);
  });
});

describe('REF\'s originator fields on real-time funded sources', () => {
  it('the deposit\'s payer appears on the funded transaction\'s source (and its events); a crypto deposit shows its on-chain transfer', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD', 'USDC']);
    const dest = await anActiveExternalAccount(p, usdBankAccount('555000666'), c.customerId);
    const quote = async (currency: string, amount: number) => {
      const res = await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'REALTIME_FUNDING', currency, customerId: c.customerId }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: amount } });
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    };
    const usd = await quote('USD', 20_000);
    const reference = usd.paymentInstructions.map((i: any) => i.accountOrWalletInfo).find((i: any) => i.reference).reference;
    const originator = { accountHolderName: 'John Sender', accountIdentifier: '****6789', bankName: 'Chase Bank', bankIdentifier: '021000021', paymentRail: 'RTP', remittanceInformation: 'INV-9', endToEndId: 'E2E-1', traceNumber: '021000020123456' };
    const d = await p.request({ method: 'POST', url: '/sandbox/deposits', payload: { reference, amount: usd.totalSendingAmount, currency: 'USD', originator } });
    expect(d.statusCode, d.body).toBe(201);
    expect(d.json().outcome).toBe('EXECUTED');
    const t = await waitStatus(p, usd.transactionId, 'COMPLETED');
    expect(t.source).toMatchObject({ sourceType: 'REALTIME_FUNDING', currency: 'USD', ...originator });
    assertMatchesResponseSchema('get', `${BASE}/transactions/{transactionId}`, 200, t);
    const processing = await env.deps.prisma.webhookEvent.findFirstOrThrow({ where: { platformId: p.platformId, type: 'OUTGOING_PAYMENT.PROCESSING' } });
    expect((processing.data as any).source).toMatchObject({ accountHolderName: 'John Sender' });

    const usdc = await quote('USDC', 5_000_000);
    const base = usdc.paymentInstructions.map((i: any) => i.accountOrWalletInfo).find((i: any) => i.network === 'BASE' || i.accountType === 'BASE_WALLET');
    await p.request({ method: 'POST', url: '/sandbox/deposits', payload: { address: base.address, network: 'BASE', amount: usdc.totalSendingAmount, currency: 'USDC', depositId: '0xfeed' } });
    const ct = await waitStatus(p, usdc.transactionId, 'COMPLETED');
    expect(ct.source.onChainTransaction).toEqual({ transactionHash: '0xfeed', network: 'BASE' });

    const bad = await p.request({ method: 'POST', url: '/sandbox/deposits', payload: { reference, amount: 1, currency: 'USD', originator: { paymentRail: 'rtp', nickname: 'x' } } });
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toEqual(['originator.nickname', 'originator.paymentRail']);
  });
});
