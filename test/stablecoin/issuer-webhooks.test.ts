import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv } from '../helpers/app.js';
import { anActiveExternalAccount } from '../helpers/builders.js';
import { bridgePublicKeyPem, otherKey, signHeader, startBridge, stopBridges } from '../helpers/issuer-bridge.js';
import { sandboxIssuerHarness } from '../contracts/stablecoin-issuer.harness.js';
import type { IssuerContractHarness } from '../contracts/stablecoin-issuer.contract.js';
import { sparkAddress } from '../unit/external-accounts/fixtures.js';
import { resourceKey } from '../../src/platform/ids.js';

/**
 * The service configured with the http-issuer bridge (STABLECOIN_ISSUER_PROVIDER=http-issuer): mints go
 * through the bridge, and the provider's push to POST /adapters/http-issuer/webhooks, once verified, moves
 * the operation (the service re-reads it); an unsigned or forged push changes nothing.
 */
let env: TestEnv;
let provider: IssuerContractHarness;
beforeAll(async () => {
  // A funded mint stays PENDING at the provider until the test says otherwise: the pushes below see it there.
  provider = await sandboxIssuerHarness(3_600_000);
  let servicePem = '';
  const url = await startBridge(provider.adapter, () => servicePem);
  env = await createTestEnv({ STABLECOIN_ISSUER_PROVIDER: 'http-issuer', ADAPTER_HTTP_ISSUER_URL: url, ADAPTER_HTTP_ISSUER_PUBLIC_KEY: bridgePublicKeyPem() });
  servicePem = env.deps.signer.publicKeyPem;
  env.startWorkers();
});
afterAll(async () => {
  await env?.close();
  await stopBridges();
  await provider?.close?.();
});

const push = (body: string, signature?: string) =>
  env.app.inject({ method: 'POST', url: `${BASE}/adapters/http-issuer/webhooks`, payload: body, headers: { 'content-type': 'application/json', ...(signature ? { 'x-bridge-signature': signature } : {}) } });

describe('stablecoin issuer over the http bridge, with provider webhooks', () => {
  it('a verified push moves a funded mint; unsigned and forged pushes are 401 and change nothing', async () => {
    const p = await env.platform();
    const post = (url: string, payload: object) => p.request({ method: 'POST', url, payload, headers: { 'idempotency-key': randomUUID() } });
    const link = await post('/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: 'bridge-client', apiClientSecret: 'sandbox-secret-1' });
    expect(link.statusCode, link.body).toBe(201);
    const token = await post('/stablecoins', { providerTokenIdentifier: 'ACME', networkTokenIdentifier: 'btkn1bridgetoken', network: 'SPARK' });
    expect(token.statusCode, token.body).toBe(201);
    const wallet = await anActiveExternalAccount(p, { currency: 'BTC', accountInfo: { accountType: 'SPARK_WALLET', address: sparkAddress } });
    const mint = await post(`/stablecoins/${token.json().id}/mints`, { amount: '5000000', fundingSource: { type: 'WIRE' }, destination: { accountId: wallet } });
    expect(mint.statusCode, mint.body).toBe(201);
    expect(mint.json()).toMatchObject({ status: 'PENDING_FUNDING', fundingInstructions: { rail: 'WIRE' } });
    const row = await env.deps.prisma.stablecoinOperation.findFirstOrThrow({ where: { id: mint.json().id } });
    const reference = row.providerOperationId!;

    await provider.fund!(reference);
    const body = JSON.stringify({ reference });
    expect((await push(body)).statusCode).toBe(401);
    expect((await push(body, signHeader(body, otherKey.privateKey))).statusCode).toBe(401);
    const status = async () => (await p.request({ method: 'GET', url: `/stablecoin-operations/${row.id}` })).json().status;
    expect(await status()).toBe('PENDING_FUNDING');

    const accepted = await push(body, signHeader(body));
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(await status()).toBe('PENDING_PROVIDER');
    expect((await push(body, signHeader(body))).statusCode).toBe(200);
    expect(await env.deps.prisma.statusChange.count({ where: { resourceId: resourceKey(row.id), toStatus: 'PENDING_PROVIDER' } })).toBe(1);

    const unknown = JSON.stringify({ reference: 'sbxop_never_issued' });
    expect((await push(unknown, signHeader(unknown))).statusCode).toBe(404);
  });
});
