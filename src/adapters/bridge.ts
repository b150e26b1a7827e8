import type { KeyObject } from 'node:crypto';
import type { z } from 'zod';
import { AdapterConfigError, p256PublicKey, type AdapterContext, type CallOptions } from './common.js';
import { BRIDGE_SIGNATURE_HEADER, verifyBridgeSignature } from './rails/http/index.js';

/**
 * What the `http` bridges of the card issuer and the collection provider share (issue 24: written once):
 * their settings (`ADAPTER_<NAME>_HTTP_*`: URL, the bridge's P-256 PUBLIC_KEY, TIMEOUT_MS, and the kind's
 * own) and the signed exchange — a POST signed with the service's key (X-Svc-Signature), the answer
 * accepted only with the bridge's X-Bridge-Signature, bounded in size, JSON, 2xx; anything else is the
 * kind's error, retryable unless the bridge said otherwise on a 4xx.
 */
export function bridgeSettings<S extends z.ZodTypeAny>(schema: S, raw: Record<string, string>, prefix: string): { settings: z.infer<S>; publicKey: KeyObject } {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new AdapterConfigError(parsed.error.issues.map((i) => `${prefix}${i.path.join('.')}: ${i.message}`).join('; '));
  return { settings: parsed.data, publicKey: p256PublicKey((parsed.data as { PUBLIC_KEY: string }).PUBLIC_KEY, `${prefix}PUBLIC_KEY`) };
}

export interface BridgeExchange {
  /** The bridge's base URL (trailing slashes dropped). */
  url: string;
  timeoutMs: number;
  publicKey: KeyObject;
  context: Pick<AdapterContext, 'adapterId' | 'clock' | 'signer'>;
  /** How the kind names its bridge in errors ("card bridge"). */
  label: string;
  maxBytes: number;
  /** The payload field sent as the Idempotency-Key header when it is a string. */
  idempotencyField: string;
  error: (message: string, retryable: boolean) => Error;
}

/** The signed POST of a bridge: its JSON answer, or `b.error`. */
export function bridgeExchange(b: BridgeExchange): (path: string, payload: Record<string, unknown>, opts?: CallOptions) => Promise<unknown> {
  const base = b.url.replace(/\/+$/, '');
  return async (path, payload, opts) => {
    const body = JSON.stringify({ ...payload, sentAt: b.context.clock.now().toISOString() });
    const signal = opts?.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(b.timeoutMs)]) : AbortSignal.timeout(b.timeoutMs);
    const key = payload[b.idempotencyField];
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-signature': b.context.signer.signatureHeader(body), 'x-svc-adapter': b.context.adapterId, ...(typeof key === 'string' ? { 'idempotency-key': key } : {}) },
        body,
        signal,
        redirect: 'error',
      });
    } catch (err) {
      throw b.error(`${b.label} ${path} unreachable: ${(err as Error).message}`, true);
    }
    return answerOf(b, path, res);
  };
}

async function answerOf(b: BridgeExchange, path: string, res: Response): Promise<unknown> {
  const rawBody = Buffer.from(await res.arrayBuffer());
  if (rawBody.length > b.maxBytes) throw b.error(`${b.label} ${path} answered more than ${b.maxBytes >= 1_048_576 ? `${b.maxBytes / 1_048_576} MiB` : `${b.maxBytes / 1024} KiB`}`, true);
  if (!verifyBridgeSignature(b.publicKey, rawBody, res.headers.get(BRIDGE_SIGNATURE_HEADER) ?? undefined)) {
    throw b.error(`${b.label} ${path} answered HTTP ${res.status} without a valid ${BRIDGE_SIGNATURE_HEADER}`, true);
  }
  let json: unknown;
  try {
    json = JSON.parse(rawBody.toString('utf8') || '{}');
  } catch {
    throw b.error(`${b.label} ${path} answered something that is not JSON`, true);
  }
  if (res.status < 200 || res.status > 299) {
    const e = (json as { error?: { code?: string; retryable?: boolean } }).error;
    throw b.error(`${b.label} ${path} refused (HTTP ${res.status}, ${e?.code ?? 'UNKNOWN'})`, res.status >= 500 || e?.retryable !== false);
  }
  return json;
}
