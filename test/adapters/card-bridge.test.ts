import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createHttpCardIssuer } from '../../src/adapters/card-issuer/http/index.js';
import { createSandboxCardIssuer } from '../../src/adapters/card-issuer/sandbox/index.js';
import { CardIssuerError, type CardIssuerAdapter } from '../../src/adapters/card-issuer/port.js';
import { cardIssuerContext, describeCardIssuerContract } from '../contracts/card-issuer.contract.js';
import { bridgeKey, bridgePublicKeyPem, otherKey, signHeader } from '../helpers/issuer-bridge.js';

/**
 * The http card bridge (CARD_ISSUER=http; docs/adapters.md "Card issuer") against a loopback stand-in
 * for an operator's processor integration: it checks the service's signature, signs its answers with its
 * own P-256 key and serves the sandbox processor behind the protocol. The bridge must pass the card
 * issuer contract suite, and refuse what it cannot trust.
 */
const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** The fake processor integration: `/cards/*` over `inner`; `unsigned` signs answers with another key. */
async function startCardBridge(inner: CardIssuerAdapter, servicePublicKeyPem: string, opts: { unsigned?: boolean } = {}): Promise<{ url: string; calls: string[] }> {
  const calls: string[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const sig = JSON.parse(String(req.headers['x-svc-signature'] ?? '{}')) as { s?: string };
    const trusted = !!sig.s && verify('sha256', raw, servicePublicKeyPem, Buffer.from(sig.s, 'base64'));
    // The protocol's bodies as the bridge reads them (the service's shapes, plus its sentAt).
    const body = JSON.parse(raw.toString('utf8') || '{}') as any;
    calls.push(req.url ?? '');
    let status = 200;
    let answer: unknown = {};
    if (!trusted) [status, answer] = [401, { error: { code: 'SIGNATURE_INVALID' } }];
    else if (req.url === '/cards/provision') answer = await inner.provision(body);
    else if (req.url === '/cards/provisioning') answer = await inner.getProvisioning(body.processorRef);
    else if (req.url === '/cards/state') await inner.setState(body);
    else if (req.url === '/cards/3ds-password') await inner.set3dsPassword(body);
    else if (req.url === '/cards/reveal') {
      const r = await inner.reveal(body);
      answer = { url: r.url, expiresAt: r.expiresAt.toISOString() };
    } else [status, answer] = [404, { error: { code: 'NOT_FOUND' } }];
    const text = JSON.stringify(answer);
    res.writeHead(status, { 'content-type': 'application/json', 'x-bridge-signature': signHeader(text, opts.unsigned ? otherKey.privateKey : bridgeKey.privateKey) });
    res.end(text);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

/** A push from the bridge to the service's webhook, signed with `key`. */
const pushWith = (adapter: CardIssuerAdapter, key: typeof bridgeKey.privateKey) => (m: object) => {
  const body = JSON.stringify(m);
  return adapter.handleWebhook!({ headers: { 'x-bridge-signature': signHeader(body, key) }, rawBody: Buffer.from(body) });
};

describeCardIssuerContract('http (loopback bridge over the sandbox processor)', async () => {
  const context = cardIssuerContext('card-http');
  const inner = createSandboxCardIssuer({}, cardIssuerContext('card-sandbox'), 0);
  const { url } = await startCardBridge(inner, context.signer.publicKeyPem);
  const adapter = createHttpCardIssuer({ URL: url, PUBLIC_KEY: bridgePublicKeyPem(), SUPPORTS_3DS_PASSWORD: 'true' }, context);
  return {
    adapter,
    recorded: context.recorded,
    activates: 'card-123',
    rejects: 'card-002',
    push: pushWith(adapter, bridgeKey.privateKey),
    pushForged: pushWith(adapter, otherKey.privateKey),
  };
});

describe('http card bridge: what it does not trust', () => {
  it('refuses bad settings at boot: no URL, no key, a key that is not P-256', () => {
    const context = cardIssuerContext('card-http');
    expect(() => createHttpCardIssuer({ URL: 'not a url', PUBLIC_KEY: bridgePublicKeyPem() }, context)).toThrow(/ADAPTER_CARD_HTTP_URL/);
    expect(() => createHttpCardIssuer({ URL: 'http://127.0.0.1:9' }, context)).toThrow(/ADAPTER_CARD_HTTP_PUBLIC_KEY/);
    expect(() => createHttpCardIssuer({ URL: 'http://127.0.0.1:9', PUBLIC_KEY: 'not a pem' }, context)).toThrow(/ADAPTER_CARD_HTTP_PUBLIC_KEY/);
  });

  it('an answer signed with another key is a retryable failure, never a provisioned card', async () => {
    const context = cardIssuerContext('card-http');
    const { url, calls } = await startCardBridge(createSandboxCardIssuer({}, cardIssuerContext('card-sandbox'), 0), context.signer.publicKeyPem, { unsigned: true });
    const adapter = createHttpCardIssuer({ URL: url, PUBLIC_KEY: bridgePublicKeyPem() }, context);
    const err = await adapter.provision({ cardId: 'Card:x', platformCardId: 'card-123', cardholderId: 'Customer:x', form: 'VIRTUAL', currency: 'USD' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CardIssuerError);
    expect((err as CardIssuerError).retryable).toBe(true);
    expect(calls).toEqual(['/cards/provision']);
  });
});
