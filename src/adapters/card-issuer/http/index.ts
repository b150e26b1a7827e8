import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import { AdapterConfigError, p256PublicKey, type CallOptions, type InboundWebhook } from '../../common.js';
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
  const parsed = settingsSchema.safeParse(raw);
  if (!parsed.success) throw new AdapterConfigError(parsed.error.issues.map((i) => `ADAPTER_CARD_HTTP_${i.path.join('.')}: ${i.message}`).join('; '));
  const publicKey = p256PublicKey(parsed.data.PUBLIC_KEY, 'ADAPTER_CARD_HTTP_PUBLIC_KEY');
  return { settings: parsed.data, publicKey };
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
  const base = settings.URL.replace(/\/+$/, '');
  const timeoutMs = settings.TIMEOUT_MS ?? context.timeoutMs;

  async function exchange(path: string, payload: Record<string, unknown>, opts?: CallOptions): Promise<unknown> {
    const body = JSON.stringify({ ...payload, sentAt: context.clock.now().toISOString() });
    const signal = opts?.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-signature': context.signer.signatureHeader(body), 'x-svc-adapter': context.adapterId, ...(typeof payload.cardId === 'string' ? { 'idempotency-key': payload.cardId } : {}) },
        body,
        signal,
        redirect: 'error',
      });
    } catch (err) {
      throw new CardIssuerError(`card bridge ${path} unreachable: ${(err as Error).message}`, true);
    }
    const rawBody = Buffer.from(await res.arrayBuffer());
    if (rawBody.length > 65_536) throw new CardIssuerError(`card bridge ${path} answered more than 64 KiB`, true);
    if (!verifyBridgeSignature(publicKey, rawBody, res.headers.get(BRIDGE_SIGNATURE_HEADER) ?? undefined)) {
      throw new CardIssuerError(`card bridge ${path} answered HTTP ${res.status} without a valid ${BRIDGE_SIGNATURE_HEADER}`, true);
    }
    let json: unknown;
    try {
      json = JSON.parse(rawBody.toString('utf8') || '{}');
    } catch {
      throw new CardIssuerError(`card bridge ${path} answered something that is not JSON`, true);
    }
    if (res.status < 200 || res.status > 299) {
      const e = (json as { error?: { code?: string; retryable?: boolean } }).error;
      throw new CardIssuerError(`card bridge ${path} refused (HTTP ${res.status}, ${e?.code ?? 'UNKNOWN'})`, res.status >= 500 || e?.retryable !== false);
    }
    return json;
  }

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
