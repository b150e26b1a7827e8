import { afterAll, describe, expect, it } from 'vitest';
import { createHttpIssuer } from '../../src/adapters/stablecoin-issuer/http/index.js';
import { guardIssuer } from '../../src/adapters/stablecoin-issuer/guard.js';
import { IssuerError, type StablecoinIssuer, type StablecoinIssuerContext } from '../../src/adapters/stablecoin-issuer/port.js';
import { contractContext } from '../contracts/context.js';
import { describeIssuerContract } from '../contracts/stablecoin-issuer.contract.js';
import { harnessFor, sandboxIssuerHarness } from '../contracts/stablecoin-issuer.harness.js';
import { bridgeKey, otherKey, signHeader, startBridge, stopBridges } from '../helpers/issuer-bridge.js';

/**
 * The http-issuer bridge (docs/adapters.md "Stablecoin issuer over the http bridge") against a loopback
 * bridge that checks the service's signature, signs its answers and serves a sandbox issuer behind the
 * protocol: the bridge must pass the same contract suite, and refuse what it cannot trust.
 */
afterAll(() => stopBridges());

const settings = (url: string) => ({ URL: url, PUBLIC_KEY: bridgeKey.publicKey.export({ type: 'spki', format: 'pem' }).toString() });

describeIssuerContract('http-issuer (bridge over the sandbox issuer)', async () => {
  const sandbox = await sandboxIssuerHarness();
  const context = { ...contractContext('stablecoin-issuer', 'http-issuer'), reportOperationUpdated: async () => 'ACCEPTED' as const };
  const url = await startBridge(sandbox.adapter, context.signer.publicKeyPem);
  const adapter = guardIssuer(createHttpIssuer(settings(url), context as StablecoinIssuerContext), 5000, context.logger);
  return { ...harnessFor(adapter, {}), fund: sandbox.fund!, advance: sandbox.advance!, close: sandbox.close! };
});

describe('http-issuer bridge: what it does not trust', () => {
  it('refuses bad settings at boot', () => {
    const context = { ...contractContext('stablecoin-issuer', 'http-issuer'), reportOperationUpdated: async () => 'ACCEPTED' as const };
    expect(() => createHttpIssuer({ URL: 'not a url', PUBLIC_KEY: 'x' }, context as StablecoinIssuerContext)).toThrow(/ADAPTER_HTTP_ISSUER_URL/);
    expect(() => createHttpIssuer({ URL: 'http://127.0.0.1:9' }, context as StablecoinIssuerContext)).toThrow(/ADAPTER_HTTP_ISSUER_PUBLIC_KEY/);
  });

  it('an answer signed with another key is a retryable failure, never a result', async () => {
    const sandbox = await sandboxIssuerHarness();
    const reported: string[] = [];
    const context = { ...contractContext('stablecoin-issuer', 'http-issuer'), reportOperationUpdated: async (r: string) => (reported.push(r), 'ACCEPTED' as const) };
    const url = await startBridge(sandbox.adapter, context.signer.publicKeyPem, { unsigned: true });
    const adapter = createHttpIssuer(settings(url), context as StablecoinIssuerContext);
    const err = await adapter.verifyCredentials(harnessFor(adapter, {}).account).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IssuerError);
    expect((err as IssuerError).retryable).toBe(true);
    await sandbox.close!();
  });

  it('takes a signed push (then re-reads the operation) and answers 401 to an unsigned or forged one', async () => {
    const reported: string[] = [];
    const context = { ...contractContext('stablecoin-issuer', 'http-issuer'), reportOperationUpdated: async (r: string) => (reported.push(r), r === 'known' ? ('ACCEPTED' as const) : ('UNKNOWN_OPERATION' as const)) };
    const adapter = createHttpIssuer(settings('http://127.0.0.1:9'), context as StablecoinIssuerContext);
    const body = JSON.stringify({ reference: 'known' });
    expect(await adapter.handleWebhook!({ headers: { 'x-bridge-signature': signHeader(body) }, rawBody: Buffer.from(body) })).toMatchObject({ status: 200 });
    expect(await adapter.handleWebhook!({ headers: {}, rawBody: Buffer.from(body) })).toMatchObject({ status: 401 });
    expect(await adapter.handleWebhook!({ headers: { 'x-bridge-signature': signHeader(body, otherKey.privateKey) }, rawBody: Buffer.from(body) })).toMatchObject({ status: 401 });
    const other = JSON.stringify({ reference: 'unknown' });
    expect(await adapter.handleWebhook!({ headers: { 'x-bridge-signature': signHeader(other) }, rawBody: Buffer.from(other) })).toMatchObject({ status: 404 });
    expect(reported).toEqual(['known', 'unknown']);
  });
});
