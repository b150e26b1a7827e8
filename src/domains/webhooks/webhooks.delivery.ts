import { fetch as undiciFetch } from 'undici';
import type { Signer } from '../../platform/signing.js';
import { webhookDispatcher } from './webhook-url.js';
import { serializeEnvelope, isDelivered, type AttemptOutcome, type Envelope } from './webhooks.model.js';

export interface AttemptResult {
  outcome: AttemptOutcome;
  httpStatus: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string | null;
}

const MAX_RESPONSE_BODY = 2048;

export interface DeliveryOptions {
  timeoutMs: number;
  /** Private and loopback addresses allowed (sandbox); otherwise checked on every connection (SSRF). */
  allowPrivate: boolean;
}

export const deliveryOptions = (config: { WEBHOOK_TIMEOUT_MS: number; webhookAllowPrivateUrls: boolean }): DeliveryOptions => ({
  timeoutMs: config.WEBHOOK_TIMEOUT_MS,
  allowPrivate: config.webhookAllowPrivateUrls,
});

/** One POST of one envelope. Never throws: every failure is an outcome to record. */
export async function postEnvelope(url: string, envelope: Envelope, signer: Signer, opts: DeliveryOptions): Promise<AttemptResult> {
  const { timeoutMs } = opts;
  const body = serializeEnvelope(envelope);
  const signature = signer.signatureHeader(body);
  const started = performance.now();
  try {
    const dispatcher = webhookDispatcher(opts.allowPrivate);
    const res = await undiciFetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        // The spec's header, and the one REF's documentation and client helpers read (issue 13): one value.
        'x-svc-signature': signature,
        'x-grid-signature': signature,
        // Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature) when configured.
        ...signer.standardWebhookHeaders?.(envelope.id, body),
        'user-agent': 'svc-webhooks/1',
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
      ...(dispatcher ? { dispatcher } : {}),
    });
    const text = (await res.text().catch(() => '')).slice(0, MAX_RESPONSE_BODY);
    const latencyMs = Math.round(performance.now() - started);
    const ok = isDelivered(res.status);
    return { outcome: ok ? 'DELIVERED' : 'FAILED', httpStatus: res.status, latencyMs, error: ok ? null : `HTTP ${res.status}`, responseBody: text };
  } catch (err) {
    const latencyMs = Math.round(performance.now() - started);
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError';
    return {
      outcome: timedOut ? 'TIMEOUT' : 'CONNECTION_ERROR',
      httpStatus: null,
      latencyMs,
      error: timedOut ? `timed out after ${timeoutMs} ms` : (e.cause?.code ?? e.cause?.message ?? e.message),
      responseBody: null,
    };
  }
}
