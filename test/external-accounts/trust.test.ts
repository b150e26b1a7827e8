import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { validExample } from '../unit/external-accounts/fixtures.js';
import { aCustomer, BASE, createAccount, errorOf, expectStatus } from './helpers.js';

/** Trusted beneficiaries (decisions B§6.1, A8): SCA-region customers only; a trusted account cannot be deleted. */

let env: TestEnv;
let p: TestPlatform;
beforeAll(async () => {
  env = await createTestEnv();
  p = await env.platform();
});
afterAll(() => env.close());

const path = (id: string, step: string) => `/customers/external-accounts/${id}/${step}`;
const T = `${BASE}/customers/external-accounts/{externalAccountId}`;

async function euAccount(type = 'EUR_ACCOUNT', platform = p, country = 'FR') {
  const owner = await aCustomer(env, platform, { country });
  return (await createAccount(platform, { ...validExample(type as 'EUR_ACCOUNT'), customerId: owner })).json().id as string;
}

describe('trust, untrust and delete', () => {
  it('trust → confirm → delete refused (409 BENEFICIARY_TRUSTED) → untrust → confirm → delete 204', async () => {
    const id = await euAccount();
    const started = expectStatus(await p.request({ method: 'POST', url: path(id, 'trust') }), 200, 'POST', `${T}/trust`);
    expect(started.scaChallenge).toMatchObject({ id: expect.stringMatching(/^ScaChallenge:/), factor: 'SMS_OTP', availableFactors: ['SMS_OTP'] });
    const confirmed = expectStatus(await p.request({ method: 'POST', url: path(id, 'trust/confirm'), payload: { challengeId: started.scaChallenge.id, code: '123456' } }), 200, 'POST', `${T}/trust/confirm`);
    expect(confirmed).toEqual({ trusted: true });
    errorOf(await p.request({ method: 'DELETE', url: `/customers/external-accounts/${id}` }), 409, 'BENEFICIARY_TRUSTED');
    // Already trusted: no challenge needed.
    expect((await p.request({ method: 'POST', url: path(id, 'trust') })).json()).toEqual({});
    const untrust = expectStatus(await p.request({ method: 'POST', url: path(id, 'untrust') }), 200, 'POST', `${T}/untrust`);
    // Untrusting is not effective until confirmed.
    errorOf(await p.request({ method: 'DELETE', url: `/customers/external-accounts/${id}` }), 409, 'BENEFICIARY_TRUSTED');
    const undone = expectStatus(await p.request({ method: 'POST', url: path(id, 'untrust/confirm'), payload: { code: '123456' } }), 200, 'POST', `${T}/untrust/confirm`);
    expect(undone).toEqual({ trusted: false });
    expect(untrust.scaChallenge.id).not.toBe(undefined);
    expect((await p.request({ method: 'DELETE', url: `/customers/external-accounts/${id}` })).statusCode).toBe(204);
  });

  it('a wrong code is 400 and consumes the challenge; an expired one is 400', async () => {
    const id = await euAccount('GBP_ACCOUNT', p, 'IE');
    await p.request({ method: 'POST', url: path(id, 'trust') });
    expect(errorOf(await p.request({ method: 'POST', url: path(id, 'trust/confirm'), payload: { code: '000000' } }), 400, 'INVALID_INPUT').fields).toEqual(['code']);
    errorOf(await p.request({ method: 'POST', url: path(id, 'trust/confirm'), payload: { code: '123456' } }), 400, 'INVALID_INPUT');
    await p.request({ method: 'POST', url: path(id, 'trust') });
    env.clock.advance(env.config.TRUST_CHALLENGE_TTL_MS + 1000);
    try {
      errorOf(await p.request({ method: 'POST', url: path(id, 'trust/confirm'), payload: { code: '123456' } }), 400, 'INVALID_INPUT');
    } finally {
      env.clock.advance(-(env.config.TRUST_CHALLENGE_TTL_MS + 1000));
    }
    expect((await p.request({ method: 'DELETE', url: `/customers/external-accounts/${id}` })).statusCode).toBe(204);
  });

  it('confirm needs a code or a passkey assertion with origin, and the outstanding challenge', async () => {
    const id = await euAccount('USD_ACCOUNT', p, 'DE');
    await p.request({ method: 'POST', url: path(id, 'trust') });
    expect(errorOf(await p.request({ method: 'POST', url: path(id, 'trust/confirm'), payload: {} }), 400, 'INVALID_INPUT').fields).toEqual(['code']);
    expect(errorOf(await p.request({ method: 'POST', url: path(id, 'trust/confirm'), payload: { passkeyAssertion: { id: 'x' } } }), 400, 'INVALID_INPUT').fields).toEqual(['origin']);
    errorOf(await p.request({ method: 'POST', url: path(id, 'trust/confirm'), payload: { challengeId: 'ScaChallenge:nope', code: '123456' } }), 400, 'INVALID_INPUT');
    // Untrust of an untrusted account: nothing to confirm, the state is already the asked one.
    expect((await p.request({ method: 'POST', url: path(id, 'untrust/confirm'), payload: { code: '123456' } })).json()).toEqual({ trusted: false });
    // The trust challenge is still outstanding and still works.
    expect((await p.request({ method: 'POST', url: path(id, 'trust/confirm'), payload: { code: '123456' } })).json()).toEqual({ trusted: true });
  });

  it('customers outside SCA regions get 409 on every trust endpoint, as do platform accounts', async () => {
    const us = await euAccount('USD_ACCOUNT', p, 'US');
    const platformAccount = (await createAccount(p, validExample('EUR_ACCOUNT'), 'platform')).json().id;
    for (const id of [us, platformAccount]) {
      for (const step of ['trust', 'untrust']) {
        errorOf(await p.request({ method: 'POST', url: path(id, step) }), 409, 'CONFLICT');
        errorOf(await p.request({ method: 'POST', url: path(id, `${step}/confirm`), payload: { code: '123456' } }), 409, 'CONFLICT');
      }
    }
  });

  it('the platform scaRegion flag makes every customer an SCA customer', async () => {
    const sca = await env.platform({ scaRegion: true });
    const id = await euAccount('USD_ACCOUNT', sca, 'US');
    expect((await sca.request({ method: 'POST', url: path(id, 'trust') })).json().scaChallenge).toBeDefined();
  });

  it('unknown accounts are 404', async () => {
    errorOf(await p.request({ method: 'POST', url: path('ExternalAccount:00000000-0000-7000-8000-000000000000', 'trust') }), 404, 'NOT_FOUND');
  });
});
