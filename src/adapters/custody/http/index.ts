import { createPublicKey, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import type { AdapterSigner, CallOptions } from '../../common.js';
import { BRIDGE_SIGNATURE_HEADER, verifyBridgeSignature } from '../../rails/http/index.js';
import { CustodyError, type CustodyCredit, type CustodyFailure, type WalletCustody } from '../port.js';

/**
 * The `http` bridge for wallet custody (docs/adapters.md "Wallet custody"): each port call is a signed
 * `POST <URL>/custody/<operation>` with the call's JSON (bigints as strings, buffers as hex), answered
 * with signed JSON (X-Bridge-Signature, the bridge's P-256 key, as the rail bridge). A bridge in front of
 * an enclave-backed provider declares `ADAPTER_CUSTODY_HTTP_ENCLAVE_BACKED=true`. An answer
 * `{error: {reason, message, retryable}}` becomes a CustodyError; anything untrusted is retryable.
 */
const settingsSchema = z.object({
  URL: z.string().url(),
  PUBLIC_KEY: z.string().min(1),
  TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  ENCLAVE_BACKED: z.enum(['true', 'false']).default('false'),
});

const REASONS: readonly CustodyFailure[] = ['OTP_BUNDLE_INVALID', 'STAMP_INVALID', 'SIGNER_REVOKED', 'WALLET_NOT_FOUND', 'PROVIDER_UNAVAILABLE', 'INVALID_KEY', 'CREDENTIAL_UPDATE_FAILED'];

const wire = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x && x.type === 'Buffer' && Array.isArray(x.data) ? Buffer.from(x.data).toString('hex') : x)));

/** A reported credit off the wire: the amount a decimal string of minor units, never a float. */
function creditIn(c: { reference: string; amount: string; currency: string; senderAddress?: string; receivedAt: string }): CustodyCredit {
  if (typeof c.reference !== 'string' || !/^[0-9]+$/.test(String(c.amount)) || typeof c.currency !== 'string') throw new CustodyError('PROVIDER_UNAVAILABLE', 'custody bridge list-credits: a credit off the protocol', true);
  return { reference: c.reference, amount: BigInt(c.amount), currency: c.currency, receivedAt: new Date(c.receivedAt), ...(c.senderAddress ? { senderAddress: c.senderAddress } : {}) };
}

export function createHttpCustody(raw: Record<string, string>, signer: AdapterSigner): WalletCustody {
  const parsed = settingsSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`ADAPTER_CUSTODY_HTTP_*: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const s = parsed.data;
  const key: KeyObject = createPublicKey(s.PUBLIC_KEY.replace(/\\n/g, '\n'));
  const base = s.URL.replace(/\/+$/, '');

  async function call<T>(op: string, req: unknown, opts?: CallOptions): Promise<T> {
    const body = JSON.stringify(wire(req));
    const signal = opts?.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(s.TIMEOUT_MS)]) : AbortSignal.timeout(s.TIMEOUT_MS);
    let res: Response;
    try {
      res = await fetch(`${base}/custody/${op}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-signature': signer.signatureHeader(body) }, body, signal, redirect: 'error' });
    } catch (err) {
      throw new CustodyError('PROVIDER_UNAVAILABLE', `custody bridge ${op} unreachable: ${(err as Error).message}`, true);
    }
    const rawBody = Buffer.from(await res.arrayBuffer());
    if (!verifyBridgeSignature(key, rawBody, res.headers.get(BRIDGE_SIGNATURE_HEADER) ?? undefined)) throw new CustodyError('PROVIDER_UNAVAILABLE', `custody bridge ${op}: answer not signed`, true);
    const json = JSON.parse(rawBody.toString('utf8') || '{}') as { error?: { reason?: string; message?: string; retryable?: boolean } } & Record<string, unknown>;
    if (!res.ok || json.error) {
      const reason = REASONS.find((r) => r === json.error?.reason) ?? 'PROVIDER_UNAVAILABLE';
      throw new CustodyError(reason, json.error?.message ?? `custody bridge ${op}: HTTP ${res.status}`, json.error?.retryable ?? res.status >= 500);
    }
    return json as T;
  }

  const stampOut = (x: { publicKey: string; signature: string }) => ({ publicKey: x.publicKey, signature: Buffer.from(x.signature, 'hex') });
  return {
    id: 'http',
    enclaveBacked: s.ENCLAVE_BACKED === 'true',
    createWallet: (r, o) => call('create-wallet', r, o),
    registerCredential: async (r, o) => void (await call('register-credential', r, o)),
    revokeCredential: async (r, o) => void (await call('revoke-credential', r, o)),
    issueOtpTarget: (r, o) => call('issue-otp-target', r, o),
    openOtpAttempt: (r, o) => call('open-otp-attempt', r, o),
    createSession: async (r, o) => void (await call('create-session', r, o)),
    revokeSession: async (r, o) => void (await call('revoke-session', r, o)),
    signTransfer: (r, o) => call('sign-transfer', r, o),
    exportWallet: (r, o) => call('export-wallet', r, o),
    setPrivacy: async (r, o) => void (await call('set-privacy', r, o)),
    createDelegatedSigner: (r, o) => call('create-delegated-signer', r, o),
    revokeDelegatedSigner: async (r, o) => void (await call('revoke-delegated-signer', r, o)),
    signWithDelegatedSigner: async (r, o) => stampOut(await call('sign-with-delegated-signer', r, o)),
    updateCredentialContact: async (r, o) => void (await call('update-credential-contact', r, o)),
    listCredits: async (r, o) => (await call<{ credits: Array<{ reference: string; amount: string; currency: string; senderAddress?: string; receivedAt: string }> }>('list-credits', r, o)).credits.map(creditIn),
  };
}
