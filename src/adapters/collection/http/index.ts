import { createPublicKey, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { AdapterConfigError, type CallOptions, type InboundWebhook } from '../../common.js';
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
  const parsed = settingsSchema.safeParse(raw);
  if (!parsed.success) throw new AdapterConfigError(parsed.error.issues.map((i) => `ADAPTER_COLLECTION_HTTP_${i.path.join('.')}: ${i.message}`).join('; '));
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey(parsed.data.PUBLIC_KEY.replace(/\\n/g, '\n'));
  } catch {
    throw new AdapterConfigError('ADAPTER_COLLECTION_HTTP_PUBLIC_KEY: is not a PEM public key');
  }
  if (publicKey.asymmetricKeyType !== 'ec' || publicKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new AdapterConfigError('ADAPTER_COLLECTION_HTTP_PUBLIC_KEY: must be an EC P-256 (prime256v1) public key');
  }
  const rails = new Map(parsed.data.RAILS.split(',').map((part) => [part.split(':')[0]!, part.split(':')[1]!.split('|')] as [string, string[]]));
  return { settings: parsed.data, publicKey, rails };
}

export function createHttpCollection(raw: Record<string, string>, context: CollectionAdapterContext): CollectionAdapter {
  const { settings, publicKey, rails } = parseSettings(raw);
  const base = settings.URL.replace(/\/+$/, '');
  const timeoutMs = settings.TIMEOUT_MS ?? context.timeoutMs;

  async function exchange(path: string, payload: Record<string, unknown>, opts?: CallOptions): Promise<unknown> {
    const body = JSON.stringify({ ...payload, sentAt: context.clock.now().toISOString() });
    const signal = opts?.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-signature': context.signer.signatureHeader(body), 'x-svc-adapter': context.adapterId, ...(typeof payload.coordinatesId === 'string' ? { 'idempotency-key': payload.coordinatesId } : {}) },
        body,
        signal,
        redirect: 'error',
      });
    } catch (err) {
      throw new CollectionError(`collection bridge ${path} unreachable: ${(err as Error).message}`, true);
    }
    const rawBody = Buffer.from(await res.arrayBuffer());
    if (rawBody.length > 1_048_576) throw new CollectionError(`collection bridge ${path} answered more than 1 MiB`, true);
    if (!verifyBridgeSignature(publicKey, rawBody, res.headers.get(BRIDGE_SIGNATURE_HEADER) ?? undefined)) {
      throw new CollectionError(`collection bridge ${path} answered HTTP ${res.status} without a valid ${BRIDGE_SIGNATURE_HEADER}`, true);
    }
    let json: unknown;
    try {
      json = JSON.parse(rawBody.toString('utf8') || '{}');
    } catch {
      throw new CollectionError(`collection bridge ${path} answered something that is not JSON`, true);
    }
    if (res.status < 200 || res.status > 299) {
      const e = (json as { error?: { code?: string; retryable?: boolean } }).error;
      throw new CollectionError(`collection bridge ${path} refused (HTTP ${res.status}, ${e?.code ?? 'UNKNOWN'})`, res.status >= 500 || e?.retryable !== false);
    }
    return json;
  }

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
