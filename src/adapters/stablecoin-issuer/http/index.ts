import { createPublicKey, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { AdapterConfigError, type CallOptions, type InboundWebhook, type InboundWebhookAnswer } from '../../common.js';
import { BRIDGE_SIGNATURE_HEADER, verifyBridgeSignature } from '../../rails/http/index.js';
import { IssuerError, type IssuerOperationResult, type ResolvedToken, type StablecoinIssuer, type StablecoinIssuerContext } from '../port.js';

/**
 * The `http` issuer bridge: each call is forwarded to an operator-run HTTP service speaking the JSON
 * protocol of docs/adapters.md "Stablecoin issuer over the http bridge" (a Brale client in any
 * language). Requests are signed with the service's key (X-Svc-Signature); answers and pushes must
 * carry X-Bridge-Signature made with ADAPTER_HTTP_ISSUER_PUBLIC_KEY. Anything untrusted is a retryable
 * failure; only a signed answer with `retryable: false` refuses.
 */

const settingsSchema = z.object({
  URL: z.string().url('must be the bridge\'s base URL').refine((u) => /^https?:/.test(u), 'must be an http(s) URL'),
  PUBLIC_KEY: z.string().min(1, 'is required (the bridge\'s P-256 public key, PEM)'),
  TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).optional(),
  MAX_RESPONSE_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(65_536),
});

const errorAnswer = z.object({ error: z.object({ code: z.string().max(64), message: z.string().max(1000).optional(), retryable: z.boolean().optional() }) });
const tokenAnswer = z.object({
  name: z.string().min(1).max(200),
  symbol: z.string().min(1).max(32),
  baseCurrency: z.string().regex(/^[A-Z]{3}$/),
  decimals: z.number().int().min(2).max(18),
  networkTokenIdentifier: z.string().min(1).max(200),
  issuanceStatus: z.enum(['PENDING_REVIEW', 'PROVISIONING', 'PROVISIONED', 'REJECTED', 'FAILED']),
});
const CODES = ['CREDENTIALS_INVALID', 'CREDENTIALS_REVOKED', 'REQUEST_REFUSED'] as const;

function parseSettings(raw: Record<string, string>, envName: string) {
  const parsed = settingsSchema.safeParse(raw);
  if (!parsed.success) throw new AdapterConfigError(parsed.error.issues.map((i) => `ADAPTER_${envName}_${i.path.join('.')}: ${i.message}`).join('; '));
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey(parsed.data.PUBLIC_KEY.replace(/\\n/g, '\n'));
  } catch {
    throw new AdapterConfigError(`ADAPTER_${envName}_PUBLIC_KEY: is not a PEM public key`);
  }
  if (publicKey.asymmetricKeyType !== 'ec' || publicKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw new AdapterConfigError(`ADAPTER_${envName}_PUBLIC_KEY: must be an EC P-256 public key`);
  return { settings: parsed.data, publicKey };
}

/** bigint amounts travel as decimal strings (token units exceed 2^53). */
const toJson = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));

export function createHttpIssuer(raw: Record<string, string>, context: StablecoinIssuerContext): StablecoinIssuer {
  const envName = context.adapterId.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase();
  const { settings, publicKey } = parseSettings(raw, envName);
  const base = settings.URL.replace(/\/+$/, '');
  const timeoutMs = settings.TIMEOUT_MS ?? context.timeoutMs;

  /** One signed exchange: the verified JSON of a 2xx answer, null for a signed 404, else IssuerError. */
  async function exchange(path: string, payload: Record<string, unknown>, opts: CallOptions | undefined): Promise<unknown> {
    const body = toJson({ ...payload, sentAt: context.clock.now().toISOString() });
    const signal = opts?.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-signature': context.signer.signatureHeader(body), 'x-svc-adapter': context.adapterId }, body, signal, redirect: 'error' });
    } catch (err) {
      throw new IssuerError(`bridge ${path} unreachable: ${(err as Error).message}`, true);
    }
    const declared = Number(res.headers.get('content-length') ?? '0');
    const rawBody = Buffer.from(await res.arrayBuffer());
    if (declared > settings.MAX_RESPONSE_BYTES || rawBody.length > settings.MAX_RESPONSE_BYTES) throw new IssuerError(`bridge ${path} answer too large`, true);
    if (!verifyBridgeSignature(publicKey, rawBody, res.headers.get(BRIDGE_SIGNATURE_HEADER) ?? undefined)) throw new IssuerError(`bridge ${path} answered HTTP ${res.status} without a valid ${BRIDGE_SIGNATURE_HEADER}`, true);
    let json: unknown;
    try {
      json = JSON.parse(rawBody.toString('utf8'));
    } catch {
      throw new IssuerError(`bridge ${path} answered something that is not JSON`, true);
    }
    if (res.status === 404) return null;
    if (res.status >= 200 && res.status <= 299) return json;
    const e = errorAnswer.safeParse(json);
    const final = res.status < 500 && e.success && e.data.error.retryable === false;
    const code = final ? (CODES as readonly string[]).find((c) => c === e.data.error.code) ?? 'REQUEST_REFUSED' : 'UNAVAILABLE';
    throw new IssuerError(`bridge ${path} refused (HTTP ${res.status}, ${e.success ? e.data.error.code : 'UNKNOWN'})`, !final, code as IssuerError['code']);
  }

  const operation = (json: unknown, expectRef?: string): IssuerOperationResult => {
    const r = (json ?? {}) as IssuerOperationResult;
    if (expectRef !== undefined && r.reference !== expectRef) throw new IssuerError('bridge answered about another operation', true);
    return r;
  };

  return {
    id: context.adapterId,
    provider: 'BRALE',
    async verifyCredentials(creds, opts) {
      const json = (await exchange('/issuer/credentials/verify', { credentials: creds }, opts)) as Record<string, unknown> | null;
      if (!json) throw new IssuerError('bridge does not implement /issuer/credentials/verify', true);
      return json as never;
    },
    async resolveToken(account, token, opts): Promise<ResolvedToken | undefined> {
      const json = await exchange('/issuer/tokens/resolve', { account, token }, opts);
      if (json === null) return undefined;
      const t = tokenAnswer.safeParse(json);
      if (!t.success) throw new IssuerError(`bridge /issuer/tokens/resolve answered outside the protocol: ${t.error.issues[0]?.message}`, true);
      return t.data;
    },
    async createOperation(account, req, opts) {
      return operation(await exchange('/issuer/operations', { account, request: req, idempotencyKey: req.idempotencyKey }, opts));
    },
    async getOperation(account, reference, opts) {
      const json = await exchange('/issuer/operations/status', { account, reference }, opts);
      return json === null ? { reference, status: 'PENDING', notFound: true } : operation(json, reference);
    },
    /** The bridge's pushes: `{"reference": "<provider operation id>"}`, signed; the service re-reads the operation. */
    async handleWebhook(request: InboundWebhook): Promise<InboundWebhookAnswer> {
      if (!verifyBridgeSignature(publicKey, request.rawBody, request.headers[BRIDGE_SIGNATURE_HEADER])) {
        return { status: 401, body: { error: { code: 'SIGNATURE_INVALID', message: `missing or invalid ${BRIDGE_SIGNATURE_HEADER}` } } };
      }
      let reference: unknown;
      try {
        reference = (JSON.parse(request.rawBody.toString('utf8')) as { reference?: unknown }).reference;
      } catch {
        return { status: 400, body: { error: { code: 'INVALID_INPUT', message: 'body is not JSON' } } };
      }
      if (typeof reference !== 'string' || !reference || reference.length > 200) return { status: 400, body: { error: { code: 'INVALID_INPUT', message: 'reference is required' } } };
      const receipt = await context.reportOperationUpdated(reference);
      return receipt === 'ACCEPTED' ? { status: 200, body: { received: true } } : { status: 404, body: { error: { code: 'UNKNOWN_OPERATION', message: 'no stablecoin operation matches' } } };
    },
  };
}
