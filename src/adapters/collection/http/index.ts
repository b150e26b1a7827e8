import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import { type InboundWebhook } from '../../common.js';
import { bridgeExchange, bridgeSettings } from '../../bridge.js';
import { BRIDGE_SIGNATURE_HEADER, verifyBridgeSignature } from '../../rails/http/index.js';
import { CollectionError, type CollectionAdapter, type CollectionAdapterContext } from '../port.js';
import { creditWire, dispatchCollectionMessage } from '../protocol.js';

/**
 * The `http` bridge for a collection provider (COLLECTION_PROVIDER=http; docs/adapters.md "Collection"):
 * the operator's service, in any language, speaks the JSON protocol below and holds the provider's
 * credentials. Outbound calls are signed with the service's key (X-Svc-Signature); the bridge's answers
 * and its pushes (credits) carry X-Bridge-Signature made with the bridge's P-256 key
 * (ADAPTER_COLLECTION_HTTP_PUBLIC_KEY). Anything unsigned or outside the protocol is a retryable failure.
 * Which rails serve which currency is a setting (RAILS, `USD:ACH|WIRE,EUR:SEPA`): asked per account, it
 * must not cost a call.
 *
 *   POST /collection/coordinates/open   OpenCoordinatesRequest            → OpenCoordinatesResult
 *   POST /collection/coordinates/close  {coordinatesId, reference, rail}  → {}
 *   POST /collection/credits            {cursor?, limit}                  → {credits: Credit[], nextCursor}
 *   push (to the service's webhook URL) {kind: 'CREDIT', ...Credit}      → {received, receipt}
 */
const settingsSchema = z.object({
  URL: z.string().url('must be the bridge\'s base URL').refine((u) => /^https?:/.test(u), 'must be an http(s) URL'),
  PUBLIC_KEY: z.string().min(1, 'is required (the bridge\'s P-256 public key, PEM)'),
  RAILS: z.string().regex(/^[A-Z]{3,5}:[A-Z0-9_]+(\|[A-Z0-9_]+)*(,[A-Z]{3,5}:[A-Z0-9_]+(\|[A-Z0-9_]+)*)*$/, 'must read like USD:ACH|WIRE,EUR:SEPA'),
  TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).optional(),
});

const openAnswer = z.object({
  status: z.string().min(1).max(32),
  reference: z.string().min(1).max(200).optional(),
  instructions: z.object({ instructionsNotes: z.string().max(1000).optional(), isPlatformAccount: z.boolean(), accountOrWalletInfo: z.object({ accountType: z.string().min(1).max(40) }).passthrough() }).optional(),
  pollAfterMs: z.number().int().min(0).max(86_400_000 * 30).optional(),
});
const creditsAnswer = z.object({ credits: z.array(creditWire).max(1000), nextCursor: z.string().min(1).max(500) });

function parseSettings(raw: Record<string, string>): { settings: z.infer<typeof settingsSchema>; publicKey: KeyObject; rails: Map<string, string[]> } {
  const { settings, publicKey } = bridgeSettings(settingsSchema, raw, 'ADAPTER_COLLECTION_HTTP_');
  const rails = new Map(settings.RAILS.split(',').map((part) => [part.split(':')[0]!, part.split(':')[1]!.split('|')] as [string, string[]]));
  return { settings, publicKey, rails };
}

export function createHttpCollection(raw: Record<string, string>, context: CollectionAdapterContext): CollectionAdapter {
  const { settings, publicKey, rails } = parseSettings(raw);
  const exchange = bridgeExchange({
    url: settings.URL, timeoutMs: settings.TIMEOUT_MS ?? context.timeoutMs, publicKey, context, label: 'collection bridge', maxBytes: 1_048_576, idempotencyField: 'coordinatesId',
    error: (message, retryable) => new CollectionError(message, retryable),
  });

  return {
    id: context.adapterId,
    railsFor: (currency) => rails.get(currency) ?? [],
    async openCoordinates(req, opts) {
      const a = openAnswer.safeParse(await exchange('/collection/coordinates/open', { ...req }, opts));
      if (!a.success) throw new CollectionError(`collection bridge answered outside the protocol: ${a.error.issues[0]?.message ?? 'invalid'}`, true);
      const status = a.data.status === 'OPEN' || a.data.status === 'REJECTED' ? a.data.status : 'PENDING';
      return { ...a.data, status, ...(a.data.instructions ? { instructions: a.data.instructions as never } : {}) };
    },
    async closeCoordinates(req, opts) {
      await exchange('/collection/coordinates/close', { ...req }, opts);
    },
    async listCredits(req, opts) {
      const a = creditsAnswer.safeParse(await exchange('/collection/credits', { ...req }, opts));
      if (!a.success) throw new CollectionError(`collection bridge /collection/credits answered outside the protocol: ${a.error.issues[0]?.message ?? 'invalid'}`, true);
      return a.data;
    },
    /** The bridge's pushes: credits, each verified before anything is read from it. */
    async handleWebhook(request: InboundWebhook) {
      if (!verifyBridgeSignature(publicKey, request.rawBody, request.headers[BRIDGE_SIGNATURE_HEADER])) {
        return { status: 401, body: { error: { code: 'SIGNATURE_INVALID', message: `missing or invalid ${BRIDGE_SIGNATURE_HEADER}` } } };
      }
      return dispatchCollectionMessage(request.rawBody, context);
    },
  };
}
