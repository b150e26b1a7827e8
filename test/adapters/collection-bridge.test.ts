import { afterAll, describe, expect, it } from 'vitest';
import { createHttpCollection } from '../../src/adapters/collection/http/index.js';
import { CollectionError } from '../../src/adapters/collection/port.js';
import { creditToWire } from '../../src/adapters/collection/protocol.js';
import { collectionContext, describeCollectionContract } from '../contracts/collection.contract.js';
import { CollectionBridge, collectionBridgePublicKeyPem, otherBridgeKey, signBridge } from '../helpers/collection-bridge.js';

/**
 * The collection http bridge (docs/adapters.md "Collection") against a loopback bridge that checks the
 * service's signature and signs its answers: the same contract suite as the sandbox bank, and what it refuses.
 */
const bridges: CollectionBridge[] = [];
afterAll(async () => {
  for (const b of bridges) await b.stop();
});
const settings = (url: string) => ({ URL: url, PUBLIC_KEY: collectionBridgePublicKeyPem(), RAILS: 'USD:ACH|WIRE|SWIFT,EUR:SEPA' });

describeCollectionContract('http (bridge)', async () => {
  const context = collectionContext('collection-http');
  const bridge = await new CollectionBridge(() => context.signer.publicKeyPem).start();
  bridges.push(bridge);
  const adapter = createHttpCollection(settings(bridge.url), context);
  const body = (m: object) => JSON.stringify(m);
  return {
    adapter,
    reported: context.reported,
    currency: 'USD',
    deliver: async (c) => void bridge.credits.push(creditToWire({ ...c, receivedAt: new Date() })),
    push: (m) => adapter.handleWebhook!({ headers: { 'x-bridge-signature': signBridge(body(m)) }, rawBody: Buffer.from(body(m)) }),
    pushForged: (m) => adapter.handleWebhook!({ headers: { 'x-bridge-signature': signBridge(body(m), otherBridgeKey.privateKey) }, rawBody: Buffer.from(body(m)) }),
  };
});

describe('collection bridge: what it does not trust', () => {
  it('refuses bad settings at boot, naming the variable', () => {
    const context = collectionContext('collection-http');
    expect(() => createHttpCollection({ URL: 'not a url', PUBLIC_KEY: 'x', RAILS: 'USD:ACH' }, context)).toThrow(/ADAPTER_COLLECTION_HTTP_URL/);
    expect(() => createHttpCollection({ URL: 'http://127.0.0.1:9', RAILS: 'USD:ACH' }, context)).toThrow(/ADAPTER_COLLECTION_HTTP_PUBLIC_KEY/);
    expect(() => createHttpCollection({ URL: 'http://127.0.0.1:9', PUBLIC_KEY: collectionBridgePublicKeyPem(), RAILS: 'usd=ach' }, context)).toThrow(/ADAPTER_COLLECTION_HTTP_RAILS/);
    expect(() => createHttpCollection({ URL: 'http://127.0.0.1:9', PUBLIC_KEY: 'not a key', RAILS: 'USD:ACH' }, context)).toThrow(/not a PEM public key/);
  });

  it('an answer signed with another key is a retryable failure, never coordinates', async () => {
    const context = collectionContext('collection-http');
    const bridge = await new CollectionBridge(() => context.signer.publicKeyPem, { unsigned: true }).start();
    bridges.push(bridge);
    const adapter = createHttpCollection(settings(bridge.url), context);
    const err = await adapter
      .openCoordinates({ coordinatesId: 'CollectionCoordinates:x', internalAccountId: 'InternalAccount:x', customerId: null, accountHolderName: 'P', currency: 'USD', rail: 'ACH', isPlatformAccount: true })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CollectionError);
    expect((err as CollectionError).retryable).toBe(true);
    const poll = await adapter.listCredits({ limit: 10 }).catch((e: unknown) => e);
    expect(poll).toBeInstanceOf(CollectionError);
  });
});
