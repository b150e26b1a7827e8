import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import { type InboundWebhook } from '../../common.js';
import { bridgeExchange, bridgeSettings } from '../../bridge.js';
import { BRIDGE_SIGNATURE_HEADER, verifyBridgeSignature } from '../../rails/http/index.js';
import { CardIssuerError, type CardIssuerAdapter, type CardIssuerAdapterContext, type ProvisionResult } from '../port.js';
import { dispatchProcessorMessage } from '../protocol.js';

/**
 * The `http` bridge for a card processor (CARD_ISSUER=http; docs/adapters.md "Card issuer"): the
 * operator's service, in any language, speaks the JSON protocol below and holds the processor's
 * credentials. Outbound calls are signed with the service's key (X-Svc-Signature); the bridge's answers
 * and its pushes (authorization requests, events) carry X-Bridge-Signature made with the bridge's P-256
 * key (ADAPTER_CARD_HTTP_PUBLIC_KEY). Anything unsigned or outside the protocol is a retryable failure.
 *
 *   POST /cards/provision     {cardId, platformCardId, cardholderId, form, currency} → ProvisionResult
 *   POST /cards/provisioning  {processorRef}                                          → ProvisionResult
 *   POST /cards/state         {cardId, processorRef, state}                           → {}
 *   POST /cards/reveal        {cardId, processorRef, actor}                           → {url, expiresAt}
 *   POST /cards/3ds-password  {cardId, processorRef, password}                        → {}
 */
const settingsSchema = z.object({
  URL: z.string().url('must be the bridge\'s base URL').refine((u) => /^https?:/.test(u), 'must be an http(s) URL'),
  PUBLIC_KEY: z.string().min(1, 'is required (the bridge\'s P-256 public key, PEM)'),
  TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).optional(),
  SUPPORTS_3DS_PASSWORD: z.enum(['true', 'false']).default('false'),
});

const provisionAnswer = z.object({
  status: z.string().min(1).max(32),
  processorRef: z.string().min(1).max(200),
  issuerRef: z.string().max(200).optional(),
  brand: z.enum(['VISA', 'MASTERCARD']).optional(),
  last4: z.string().regex(/^\d{4}$/).optional(),
  expMonth: z.number().int().min(1).max(12).optional(),
  expYear: z.number().int().min(2000).max(2200).optional(),
  pollAfterMs: z.number().int().min(0).max(86_400_000).optional(),
});
const revealAnswer = z.object({ url: z.string().url(), expiresAt: z.string().datetime({ offset: true }) });

function parseSettings(raw: Record<string, string>): { settings: z.infer<typeof settingsSchema>; publicKey: KeyObject } {
  return bridgeSettings(settingsSchema, raw, 'ADAPTER_CARD_HTTP_');
}

/** An unknown provisioning status is PENDING: never guess that a card was issued or refused. */
export function toProvisionResult(json: unknown, expectRef?: string): ProvisionResult {
  const a = provisionAnswer.safeParse(json);
  if (!a.success) throw new CardIssuerError(`card bridge answered outside the protocol: ${a.error.issues[0]?.message ?? 'invalid'}`, true);
  if (expectRef !== undefined && a.data.processorRef !== expectRef) throw new CardIssuerError('card bridge answered about another card', true);
  const status = a.data.status === 'ACTIVE' || a.data.status === 'REJECTED' ? a.data.status : 'PENDING';
  const { status: _s, ...rest } = a.data;
  return { status, ...rest };
}

export function createHttpCardIssuer(raw: Record<string, string>, context: CardIssuerAdapterContext): CardIssuerAdapter {
  const { settings, publicKey } = parseSettings(raw);
  const exchange = bridgeExchange({
    url: settings.URL, timeoutMs: settings.TIMEOUT_MS ?? context.timeoutMs, publicKey, context, label: 'card bridge', maxBytes: 65_536, idempotencyField: 'cardId',
    error: (message, retryable) => new CardIssuerError(message, retryable),
  });

  return {
    id: context.adapterId,
    supports3dsPassword: settings.SUPPORTS_3DS_PASSWORD === 'true',
    async provision(req, opts) {
      return toProvisionResult(await exchange('/cards/provision', { ...req }, opts));
    },
    async getProvisioning(processorRef, opts) {
      return toProvisionResult(await exchange('/cards/provisioning', { processorRef }, opts), processorRef);
    },
    async setState(req, opts) {
      await exchange('/cards/state', { ...req }, opts);
    },
    async set3dsPassword(req, opts) {
      await exchange('/cards/3ds-password', { ...req }, opts);
    },
    async reveal(req, opts) {
      const a = revealAnswer.safeParse(await exchange('/cards/reveal', { ...req }, opts));
      if (!a.success) throw new CardIssuerError('card bridge /cards/reveal answered outside the protocol', true);
      return { url: a.data.url, expiresAt: new Date(a.data.expiresAt) };
    },
    /** The bridge's pushes: authorization requests (answered with the decision), events, provisioning. */
    async handleWebhook(request: InboundWebhook) {
      if (!verifyBridgeSignature(publicKey, request.rawBody, request.headers[BRIDGE_SIGNATURE_HEADER])) {
        return { status: 401, body: { error: { code: 'SIGNATURE_INVALID', message: `missing or invalid ${BRIDGE_SIGNATURE_HEADER}` } } };
      }
      return dispatchProcessorMessage(request.rawBody, context);
    },
  };
}
