import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InboundWebhookAnswer } from '../../src/adapters/common.js';
import type {
  AuthorizationDecision, AuthorizationRequest, CardEvent, CardIssuerAdapter, CardIssuerAdapterContext, ProvisionResult,
} from '../../src/adapters/card-issuer/port.js';
import type { ProcessorMessage } from '../../src/adapters/card-issuer/protocol.js';
import { guardCardIssuer } from '../../src/adapters/card-issuer/guard.js';
import { contractContext, settlesWithin } from './context.js';

/** What the harness records of the service's side, and how it answers. */
export interface CardIssuerRecorder {
  authorizations: AuthorizationRequest[];
  events: CardEvent[];
  provisioned: ProvisionResult[];
}

export function cardIssuerContext(adapterId: string): CardIssuerAdapterContext & { recorded: CardIssuerRecorder } {
  const recorded: CardIssuerRecorder = { authorizations: [], events: [], provisioned: [] };
  const base = contractContext('card-issuer', adapterId);
  return {
    ...base,
    recorded,
    async authorize(req): Promise<AuthorizationDecision> {
      recorded.authorizations.push(req);
      return req.amount > 10_000n ? { approved: false, cardTransactionId: null, reason: 'INSUFFICIENT_FUNDS' } : { approved: true, cardTransactionId: `CardTransaction:${randomUUID()}`, heldAmount: req.amount, currency: req.currency };
    },
    async reportCardEvent(event) {
      recorded.events.push(event);
      return 'APPLIED';
    },
    async reportProvisioned(result) {
      recorded.provisioned.push(result);
      return 'ACCEPTED';
    },
  };
}

/** What every card issuer adapter must do (docs/adapters.md "Card issuer"). */
export interface CardIssuerContractHarness {
  adapter: CardIssuerAdapter;
  recorded: CardIssuerRecorder;
  /** A platformCardId the issuer provisions ACTIVE at once, and one it refuses (if it can be made to). */
  activates: string;
  rejects?: string;
  /** The processor pushes this message, signed as it signs, to the adapter's webhook. */
  push(message: ProcessorMessage): Promise<InboundWebhookAnswer>;
  /** The same message with a signature that does not verify. */
  pushForged(message: ProcessorMessage): Promise<InboundWebhookAnswer>;
  close?(): Promise<void>;
}

export function describeCardIssuerContract(name: string, factory: () => Promise<CardIssuerContractHarness>): void {
  describe(`card issuer adapter contract: ${name}`, () => {
    let h: CardIssuerContractHarness;
    let adapter: CardIssuerAdapter;
    beforeAll(async () => {
      h = await factory();
      adapter = guardCardIssuer(h.adapter, 5_000, { debug() {}, info() {}, warn() {}, error() {} });
    });
    afterAll(async () => {
      await h?.close?.();
    });
    const request = (platformCardId: string, cardId = `Card:${randomUUID()}`) => ({ cardId, platformCardId, cardholderId: `Customer:${randomUUID()}`, form: 'VIRTUAL' as const, currency: 'USD' });

    it('provisioning is idempotent on the card id, and an ACTIVE card carries brand, last4 and expiry', async () => {
      const req = request(h.activates);
      const a = await adapter.provision(req);
      const b = await adapter.provision(req);
      expect(b.processorRef).toBe(a.processorRef);
      expect(a.status).toBe('ACTIVE');
      expect(a.last4).toMatch(/^\d{4}$/);
      expect(a.expMonth).toBeGreaterThanOrEqual(1);
      expect(a.expYear).toBeGreaterThanOrEqual(new Date().getUTCFullYear());
      expect(['VISA', 'MASTERCARD']).toContain(a.brand);
      const polled = await adapter.getProvisioning(a.processorRef);
      expect(polled).toMatchObject({ status: 'ACTIVE', processorRef: a.processorRef, last4: a.last4 });
    });

    it('a refused provisioning is REJECTED, never ACTIVE', async () => {
      if (!h.rejects) return;
      expect((await adapter.provision(request(h.rejects))).status).toBe('REJECTED');
    });

    it('reveal answers a short-lived https URL; state changes and the 3-D Secure password are accepted', async () => {
      const card = request(h.activates);
      const { processorRef } = await adapter.provision(card);
      const r = await adapter.reveal({ cardId: card.cardId, processorRef, actor: 'Credential:contract' });
      expect(new URL(r.url).protocol).toBe('https:');
      expect(r.expiresAt.getTime()).toBeGreaterThan(Date.now());
      expect(r.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 3_600_000);
      await adapter.setState({ cardId: card.cardId, processorRef, state: 'FROZEN' });
      if (adapter.supports3dsPassword) await adapter.set3dsPassword({ cardId: card.cardId, processorRef, password: 'static-pass' });
    });

    it('a signed authorization request is answered with the service\'s decision', async () => {
      const token = `tok_${randomUUID()}`;
      const ok = await h.push({ kind: 'AUTHORIZATION_REQUEST', processorRef: 'ref-1', issuerTransactionToken: token, messageKind: 'AUTHORIZATION', amount: 1250, currency: 'USD', merchant: { descriptor: 'COFFEE', mcc: '5814', country: 'US' } });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ approved: true, heldAmount: 1250 });
      const no = await h.push({ kind: 'AUTHORIZATION_REQUEST', processorRef: 'ref-1', issuerTransactionToken: `${token}b`, messageKind: 'AUTHORIZATION', amount: 20_000, currency: 'USD', merchant: { descriptor: 'TV' } });
      expect(no.body).toMatchObject({ approved: false, reason: 'INSUFFICIENT_FUNDS' });
      expect(h.recorded.authorizations.map((a) => a.issuerTransactionToken)).toEqual(expect.arrayContaining([token, `${token}b`]));
      expect(h.recorded.authorizations.find((a) => a.issuerTransactionToken === token)).toMatchObject({ amount: 1250n, kind: 'AUTHORIZATION' });
    });

    it('a signed event is reported once per delivery with its token; a forged one is refused (401) and reported never', async () => {
      const eventToken = `evt_${randomUUID()}`;
      const message: ProcessorMessage = { kind: 'EVENT', type: 'CLEARING', eventToken, processorRef: 'ref-1', issuerTransactionToken: 'tok-1', amount: 700 };
      expect((await h.push(message)).status).toBe(200);
      expect(h.recorded.events.filter((e) => e.eventToken === eventToken)).toEqual([expect.objectContaining({ type: 'CLEARING', amount: 700n })]);
      const forged = await h.pushForged({ ...message, eventToken: `${eventToken}-forged` });
      expect(forged.status).toBe(401);
      expect(h.recorded.events.some((e) => e.eventToken === `${eventToken}-forged`)).toBe(false);
    });

    it('an aborted signal is honoured', async () => {
      expect((await settlesWithin(2_000, adapter.provision(request(h.activates), { signal: AbortSignal.abort() }))).ok).toBe(false);
    });
  });
}
