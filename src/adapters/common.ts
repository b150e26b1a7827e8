import { createPublicKey, type KeyObject } from 'node:crypto';
/**
 * What every adapter kind shares: how it is built (`create(config, context)`), what the service
 * hands it (AdapterContext), how calls are bounded (CallOptions.signal) and how a provider's
 * inbound webhooks reach it. Public: re-exported by src/adapters/public.ts (package export
 * `svc-payments/adapters`), documented in docs/adapters.md. Nothing here imports service internals.
 */

export const ADAPTER_KINDS = ['rail', 'kyc', 'fx', 'notifier', 'liveness', 'storage', 'beneficiary-check', 'bank-link', 'uma', 'deposits', 'stablecoin-issuer', 'card-issuer', 'collection'] as const;
export type AdapterKind = (typeof ADAPTER_KINDS)[number];

/** Passed as the last argument of every adapter call. */
export interface CallOptions {
  /**
   * Aborts when the service stops waiting (PROVIDER_TIMEOUT_MS, shutdown). Hand it to `fetch` or your
   * client library and reject promptly once it fires; the service then treats the outcome as unknown
   * and repeats the call later with the same idempotency key.
   */
  signal?: AbortSignal;
}

/** A pino-compatible logger, already bound to the adapter (`adapter`, `kind` fields). */
export interface AdapterLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Signs with the service's own P-256 key (the webhook key, decision A6). */
export interface AdapterSigner {
  /** SPKI PEM: give it to your provider or bridge so it can check what the service sends. */
  readonly publicKeyPem: string;
  /** ECDSA P-256 / SHA-256 over `body`, DER-encoded. */
  signRaw(body: string | Buffer): Buffer;
  /** `{"v":"1","s":"<base64 DER>"}`: the value of `X-Svc-Signature`, as on webhooks. */
  signatureHeader(body: string | Buffer): string;
}

/**
 * Handed to `create(config, context)`. Keep it: the callbacks are how asynchronous outcomes come
 * back. Kinds with asynchronous outcomes extend it (RailAdapterContext, KycAdapterContext, ...).
 */
export interface AdapterContext {
  /** This adapter's id: its configuration prefix (`ADAPTER_<ID>_`) and its webhook path segment. */
  readonly adapterId: string;
  readonly kind: AdapterKind;
  /** `sandbox` or `production` (SVC_ENV). Never act on sandbox magic values in production. */
  readonly environment: 'sandbox' | 'production';
  readonly logger: AdapterLogger;
  readonly clock: { now(): Date };
  readonly signer: AdapterSigner;
  /** Absolute URL of `POST <base>/adapters/<adapterId>/webhooks`, for providers that push outcomes. */
  readonly webhookUrl: string;
  /** Default bound of one outbound call in milliseconds (PROVIDER_TIMEOUT_MS). */
  readonly timeoutMs: number;
}

/** A provider's request to `POST /adapters/{adapterId}/webhooks`, as received. */
export interface InboundWebhook {
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The body bytes exactly as received: check the provider's signature over these. */
  rawBody: Buffer;
}

/** What the service answers the provider. Anything thrown is answered 500 (the provider retries). */
export interface InboundWebhookAnswer {
  status: number;
  body?: unknown;
}

/** Optional on every adapter kind. */
export interface AdapterLifecycle {
  /** Receives the provider's pushes; verify the signature first and answer 401 when it fails. */
  handleWebhook?(request: InboundWebhook): Promise<InboundWebhookAnswer>;
  /** Releases connections when the process stops. */
  close?(): Promise<void>;
}

/**
 * Thrown by `create` for a missing or invalid setting. Any error thrown by `create` stops start-up
 * with its message; this class only makes the intent explicit.
 */
export class AdapterConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdapterConfigError';
  }
}

/**
 * Thrown by an adapter call that produced no answer; `retryable` says whether the service may ask again
 * with the same idempotency key. Each port names its own subclass (RailError, IssuerError, CardIssuerError,
 * CollectionError), whose comment says what a refusal means there.
 */
export class AdapterCallError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/**
 * What a guard throws for an adapter's failure: the port's own error class as it is, anything else wrapped
 * as `Kind` with `prefix` on its message and the original as its cause. `retryable: false` on the original
 * is the only way to say "final".
 */
export function asCallError<E extends AdapterCallError>(err: unknown, Kind: new (message: string, retryable: boolean) => E, prefix: string): E {
  if (err instanceof Kind) return err;
  const refused = !!err && typeof err === 'object' && (err as { retryable?: unknown }).retryable === false;
  const e = new Kind(`${prefix}: ${err instanceof Error ? err.message : String(err)}`, !refused);
  (e as Error & { cause?: unknown }).cause = err;
  return e;
}

/**
 * An adapter module (a file named in RAIL_ADAPTERS, KYC_PROVIDER, ...): it exports `create` and
 * should export `id` (else the id is the file name, or the folder name for index files) and `kind`.
 * `config` holds the adapter's own settings: every `ADAPTER_<ID>_<KEY>` variable as `KEY`, merged
 * over the JSON object in `ADAPTER_<ID>_JSON`. `create` validates them and throws on a bad one.
 */
export interface AdapterModule<A, C extends AdapterContext = AdapterContext> {
  id?: string;
  kind?: AdapterKind;
  create(config: Record<string, string>, context: C): A | Promise<A>;
}

/** Upper snake case of an adapter id: `my-bank` → `MY_BANK` (its `ADAPTER_MY_BANK_*` variables). */
export function adapterEnvName(id: string): string {
  return id
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();
}

/**
 * A bridge's P-256 public key from its PEM setting (`\n` escapes allowed, as env files write them): the key
 * that verifies the bridge's signed pushes. `setting` names the variable in the errors (AdapterConfigError).
 */
export function p256PublicKey(pem: string, setting: string): KeyObject {
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey(pem.replace(/\\n/g, '\n'));
  } catch {
    throw new AdapterConfigError(`${setting}: is not a PEM public key`);
  }
  if (publicKey.asymmetricKeyType !== 'ec' || publicKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new AdapterConfigError(`${setting}: must be an EC P-256 (prime256v1) public key`);
  }
  return publicKey;
}
