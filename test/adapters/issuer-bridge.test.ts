import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createHttpIssuer } from '../../src/adapters/stablecoin-issuer/http/index.js';
import { guardIssuer } from '../../src/adapters/stablecoin-issuer/guard.js';
import { IssuerError, type StablecoinIssuer, type StablecoinIssuerContext } from '../../src/adapters/stablecoin-issuer/port.js';
import { contractContext } from '../contracts/context.js';
import { describeIssuerContract } from '../contracts/stablecoin-issuer.contract.js';
import { harnessFor, sandboxIssuerHarness } from '../contracts/stablecoin-issuer.harness.js';

/**
 * The http-issuer bridge (docs/adapters.md "Stablecoin issuer over the http bridge") against a loopback
 * bridge that checks the service's signature, signs its answers and serves a sandbox issuer behind the
 * protocol: the bridge must pass the same contract suite, and refuse what it cannot trust.
 */
const bridgeKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const otherKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const signHeader = (body: string, key = bridgeKey.privateKey) => JSON.stringify({ v: '1', s: sign('sha256', Buffer.from(body), key).toString('base64') });
const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A bridge serving `inner`; `tamper` may replace an answer's body (signed) or its signature. */
async function startBridge(inner: StablecoinIssuer, servicePublicKeyPem: string, tamper?: { unsigned?: boolean }) {
  const revive = (o: Record<string, unknown>) => JSON.parse(JSON.stringify(o), (k, v) => ((k === 'amount' || k === 'fiatAmount') && typeof v === 'string' ? BigInt(v) : v));
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const sig = JSON.parse(String(req.headers['x-svc-signature'] ?? '{}')) as { s?: string };
    const trusted = !!sig.s && verify('sha256', raw, servicePublicKeyPem, Buffer.from(sig.s, 'base64'));
    const body = revive(JSON.parse(raw.toString('utf8')) as Record<string, unknown>);
    let status = 200;
    let answer: unknown;
    try {
      if (!trusted) [status, answer] = [401, { error: { code: 'SIGNATURE_INVALID' } }];
      else if (req.url === '/issuer/credentials/verify') answer = await inner.verifyCredentials(body.credentials as never);
      else if (req.url === '/issuer/tokens/resolve') {
        answer = await inner.resolveToken(body.account as never, body.token as never);
        if (!answer) [status, answer] = [404, { error: { code: 'NOT_FOUND' } }];
      } else if (req.url === '/issuer/operations') answer = await inner.createOperation(body.account as never, body.request as never);
      else if (req.url === '/issuer/operations/status') {
        answer = await inner.getOperation(body.account as never, body.reference as string);
        if ((answer as { notFound?: boolean }).notFound) [status, answer] = [404, { error: { code: 'NOT_FOUND' } }];
      } else [status, answer] = [404, { error: { code: 'NOT_FOUND' } }];
    } catch (err) {
      const e = err as IssuerError;
      [status, answer] = [e.retryable ? 503 : 400, { error: { code: e.code, message: e.message, retryable: e.retryable } }];
    }
    const text = JSON.stringify(answer);
    res.writeHead(status, { 'content-type': 'application/json', 'x-bridge-signature': signHeader(text, tamper?.unsigned ? otherKey.privateKey : bridgeKey.privateKey) });
    res.end(text);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

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
