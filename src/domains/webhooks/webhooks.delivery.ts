import type { Signer } from '../../platform/signing.js';
import { serializeEnvelope, isDelivered, type AttemptOutcome, type Envelope } from './webhooks.model.js';

export interface AttemptResult {
  outcome: AttemptOutcome;
  httpStatus: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string | null;
}

const MAX_RESPONSE_BODY = 2048;

/** One POST of one envelope. Never throws: every failure is an outcome to record. */
export async function postEnvelope(url: string, envelope: Envelope, signer: Signer, timeoutMs: number): Promise<AttemptResult> {
  const body = serializeEnvelope(envelope);
  const signature = signer.signatureHeader(body);
  const started = performance.now();
  try {
    const res = await fetch(url, {
      method: 'POST',
      // The spec's header, and the one REF's documentation and client helpers read (issue 13): one value.
      headers: { 'content-type': 'application/json', 'x-svc-signature': signature, 'x-grid-signature': signature, 'user-agent': 'svc-webhooks/1' },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
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
