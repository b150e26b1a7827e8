import { verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { AdapterConfigError, p256PublicKey, type CallOptions, type InboundWebhook, type InboundWebhookAnswer } from '../../common.js';
import { PAYOUT_STATUSES, RailError, type PayoutRequest, type PayoutResult, type RailAdapter, type RailAdapterContext, type RefundResult } from '../port.js';

/**
 * The `http` bridge: every payout, status poll and refund is forwarded to an operator-run HTTP
 * service (any language) speaking the JSON protocol of docs/adapters.md "The http bridge".
 * Requests are signed with the service's own key (X-Svc-Signature, as webhooks); answers and the
 * bridge's pushes must carry X-Bridge-Signature made with the bridge's key (ADAPTER_HTTP_PUBLIC_KEY).
 * Whatever cannot be trusted (unsigned, badly signed, not JSON, not the protocol, about another
 * payout) is a retryable failure: the service asks again later with the same idempotency key.
 */

export const BRIDGE_SIGNATURE_HEADER = 'x-bridge-signature';

const settingsSchema = z.object({
  URL: z.string().url('must be the bridge\'s base URL').refine((u) => /^https?:/.test(u), 'must be an http(s) URL'),
  PUBLIC_KEY: z.string().min(1, 'is required (the bridge\'s P-256 public key, PEM)'),
  TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).optional(),
  STATUS_DELIVERY: z.enum(['poll', 'push']).default('poll'),
  EXPECTED_SETTLEMENT_MS: z.coerce.number().int().min(0).optional(),
  RAILS: z.string().optional(),
  MAX_RESPONSE_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(65_536),
});
export type HttpBridgeSettings = z.infer<typeof settingsSchema>;

const reference = z.string().min(1).max(200);
const payoutAnswer = z.object({
  idempotencyKey: z.string().max(255).optional(),
  reference,
  status: z.string().min(1).max(64),
  failureReason: z.string().max(64).optional(),
  retryable: z.boolean().optional(),
  pollAfterMs: z.number().int().min(0).max(86_400_000).optional(),
});
const refundAnswer = z.object({ idempotencyKey: z.string().max(255), reference, status: z.string().min(1).max(64) });
const errorAnswer = z.object({ error: z.object({ code: z.string().max(64), message: z.string().max(1000).optional(), retryable: z.boolean().optional() }) });

/** The signature header's value: `{"v":"1","s":"<base64 DER>"}`, or the bare base64. */
export function verifyBridgeSignature(publicKey: KeyObject, rawBody: Buffer, header: string | undefined): boolean {
  if (!header) return false;
  let sig = header;
  try {
    const parsed = JSON.parse(header) as { s?: unknown };
    if (parsed && typeof parsed.s === 'string') sig = parsed.s;
  } catch {
    // bare base64
  }
  try {
    return verify('sha256', rawBody, publicKey, Buffer.from(sig, 'base64'));
  } catch {
    return false;
  }
}

function parseSettings(raw: Record<string, string>): { settings: HttpBridgeSettings; publicKey: KeyObject } {
  const parsed = settingsSchema.safeParse(raw);
  if (!parsed.success) {
    const say = (i: z.core.$ZodIssue) => (i.code === 'invalid_type' && /received undefined/.test(i.message) ? 'is required' : i.message);
    throw new AdapterConfigError(parsed.error.issues.map((i) => `ADAPTER_HTTP_${i.path.join('.')}: ${say(i)}`).join('; '));
  }
  const publicKey = p256PublicKey(parsed.data.PUBLIC_KEY, 'ADAPTER_HTTP_PUBLIC_KEY');
  return { settings: parsed.data, publicKey };
}

const toStatus = (s: string): PayoutResult['status'] => ((PAYOUT_STATUSES as readonly string[]).includes(s) ? (s as PayoutResult['status']) : 'PENDING');

async function readLimited(res: Response, max: number): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > max) throw new RailError(`bridge answer larger than ${max} bytes`, true);
  const chunks: Buffer[] = [];
  let size = 0;
  if (!res.body) return Buffer.alloc(0);
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > max) throw new RailError(`bridge answer larger than ${max} bytes`, true);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

export function createHttpRail(raw: Record<string, string>, context: RailAdapterContext): RailAdapter {
  const { settings, publicKey } = parseSettings(raw);
  const base = settings.URL.replace(/\/+$/, '');
  const timeoutMs = settings.TIMEOUT_MS ?? context.timeoutMs;
  const rails = settings.RAILS?.split(',').map((r) => r.trim().toUpperCase()).filter(Boolean);

  /** One signed exchange; resolves with the verified, parsed answer, throws RailError otherwise. */
  async function exchange(path: string, payload: Record<string, unknown>, opts: CallOptions | undefined): Promise<{ status: number; json: unknown }> {
    const body = JSON.stringify({ ...payload, sentAt: context.clock.now().toISOString() });
    const signal = opts?.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-svc-signature': context.signer.signatureHeader(body),
          'x-svc-adapter': context.adapterId,
          ...(typeof payload.idempotencyKey === 'string' ? { 'idempotency-key': payload.idempotencyKey } : {}),
        },
        body,
        signal,
        redirect: 'error',
      });
    } catch (err) {
      // Timeouts, refused connections, resets: the bridge may or may not have acted.
      throw new RailError(`bridge ${path} unreachable: ${(err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (err as Error).message}`, true);
    }
    const rawBody = await readLimited(res, settings.MAX_RESPONSE_BYTES);
    if (!verifyBridgeSignature(publicKey, rawBody, res.headers.get(BRIDGE_SIGNATURE_HEADER) ?? undefined)) {
      throw new RailError(`bridge ${path} answered HTTP ${res.status} without a valid ${BRIDGE_SIGNATURE_HEADER}`, true);
    }
    let json: unknown;
    try {
      json = JSON.parse(rawBody.toString('utf8'));
    } catch {
      throw new RailError(`bridge ${path} answered something that is not JSON`, true);
    }
    return { status: res.status, json };
  }

  /** A non-2xx answer: final only when the bridge says so (signed, `retryable: false`). */
  function refusal(path: string, status: number, json: unknown): RailError {
    const e = errorAnswer.safeParse(json);
    const code = e.success ? e.data.error.code : 'UNKNOWN';
    const retryable = status >= 500 || !e.success || e.data.error.retryable !== false;
    return new RailError(`bridge ${path} refused (HTTP ${status}, ${code})${e.success && e.data.error.message ? `: ${e.data.error.message}` : ''}`, retryable);
  }

  function payoutResult(path: string, json: unknown, expect: { idempotencyKey?: string; reference?: string }): PayoutResult {
    const a = payoutAnswer.safeParse(json);
    if (!a.success) throw new RailError(`bridge ${path} answered outside the protocol: ${a.error.issues[0]?.message ?? 'invalid'}`, true);
    // A signed answer about another payout (a replay, a mix-up in the bridge) is no answer at all.
    if (expect.idempotencyKey !== undefined && a.data.idempotencyKey !== expect.idempotencyKey) throw new RailError(`bridge ${path} answered about another payout`, true);
    if (expect.reference !== undefined && a.data.reference !== expect.reference) throw new RailError(`bridge ${path} answered about another reference`, true);
    const status = toStatus(a.data.status);
    if (status !== a.data.status) context.logger.warn({ status: a.data.status, reference: a.data.reference }, 'bridge status not in the protocol, read as PENDING');
    const out: PayoutResult = { status, reference: a.data.reference };
    if (a.data.pollAfterMs !== undefined) out.pollAfterMs = a.data.pollAfterMs;
    if (status === 'FAILED' || status === 'RETURNED') {
      out.failureReason = a.data.failureReason ?? (status === 'RETURNED' ? 'PAYOUT_RETURNED' : 'QUOTE_EXECUTION_FAILED');
      out.retryable = a.data.retryable === true;
    }
    return out;
  }

  const adapter: RailAdapter = {
    id: context.adapterId,
    ...(rails?.length ? { rails } : {}),
    statusDelivery: settings.STATUS_DELIVERY,
    ...(settings.EXPECTED_SETTLEMENT_MS !== undefined ? { expectedSettlementMs: settings.EXPECTED_SETTLEMENT_MS } : {}),

    async submitPayout(req: PayoutRequest, opts?: CallOptions) {
      opts?.signal?.throwIfAborted();
      const payload = {
        idempotencyKey: req.idempotencyKey,
        rail: req.rail,
        amount: Number(req.amount),
        currency: req.currency,
        destination: req.destination,
        remittanceInformation: req.remittanceInformation ?? null,
        purposeOfPayment: req.purposeOfPayment ?? null,
      };
      const { status, json } = await exchange('/payouts', payload, opts);
      if (status < 200 || status > 299) throw refusal('/payouts', status, json);
      return payoutResult('/payouts', json, { idempotencyKey: req.idempotencyKey });
    },

    async getPayoutStatus(ref: string, opts) {
      opts?.signal?.throwIfAborted();
      const { status, json } = await exchange('/payouts/status', { reference: ref, ...(opts?.idempotencyKey ? { idempotencyKey: opts.idempotencyKey } : {}) }, opts);
      // The bridge does not know it (yet): never guess an outcome.
      if (status === 404) return { status: 'PENDING', reference: ref, pollAfterMs: 1000, notFound: true };
      if (status < 200 || status > 299) throw refusal('/payouts/status', status, json);
      return payoutResult('/payouts/status', json, { reference: ref });
    },

    async refundPayout(req, opts): Promise<RefundResult> {
      opts?.signal?.throwIfAborted();
      const payload = { idempotencyKey: req.idempotencyKey, reference: req.reference, amount: Number(req.amount), currency: req.currency };
      const { status, json } = await exchange('/refunds', payload, opts);
      if (status < 200 || status > 299) throw refusal('/refunds', status, json);
      const a = refundAnswer.safeParse(json);
      if (!a.success || a.data.idempotencyKey !== req.idempotencyKey) throw new RailError('bridge /refunds answered outside the protocol', true);
      const s = a.data.status === 'COMPLETED' || a.data.status === 'FAILED' ? a.data.status : 'PENDING';
      return { status: s, reference: a.data.reference };
    },

    /** The bridge's pushes: `POST <base>/adapters/<id>/webhooks`, one payout outcome per request. */
    async handleWebhook(request: InboundWebhook): Promise<InboundWebhookAnswer> {
      if (!verifyBridgeSignature(publicKey, request.rawBody, request.headers[BRIDGE_SIGNATURE_HEADER])) {
        return { status: 401, body: { error: { code: 'SIGNATURE_INVALID', message: `missing or invalid ${BRIDGE_SIGNATURE_HEADER}` } } };
      }
      let json: unknown;
      try {
        json = JSON.parse(request.rawBody.toString('utf8'));
      } catch {
        return { status: 400, body: { error: { code: 'INVALID_INPUT', message: 'body is not JSON' } } };
      }
      const a = payoutAnswer.safeParse(json);
      if (!a.success) return { status: 400, body: { error: { code: 'INVALID_INPUT', message: a.error.issues[0]?.message ?? 'invalid' } } };
      const result = payoutResult('webhook', json, {});
      const receipt = await context.reportPayoutStatus({ ...result, ...(a.data.idempotencyKey ? { idempotencyKey: a.data.idempotencyKey } : {}) });
      return receipt === 'ACCEPTED' ? { status: 200, body: { received: true } } : { status: 404, body: { error: { code: 'UNKNOWN_PAYOUT', message: 'no payment of this adapter matches' } } };
    },
  };
  return adapter;
}
