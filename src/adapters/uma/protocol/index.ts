import {
  getPayRequest,
  getSignedLnurlpRequestUrl,
  KycStatus,
  LnurlpResponse,
  PayReqResponse,
  PubKeyResponse,
  verifyPayReqResponseSignature,
  verifyUmaLnurlpResponseSignature,
  type NonceValidator,
} from '@uma-sdk/core';
import { decodeBolt11 } from '../../../platform/bolt11.js';
import type { Redis } from 'ioredis';
import { UmaCounterpartyError, type CallOptions, type PayerDataField, type UmaCounterpartyAdapter, type UmaLookupRequest, type UmaPayRequest, type UmaPayTerms, type UmaReceiver } from '../port.js';
import { fieldNameOfPayerDataKey, payerDataKeyOf } from './payer-data.js';

/**
 * A real UMA client (the official `@uma-sdk/core`): signed LNURL-p lookup, the receiver's public
 * keys from `/.well-known/lnurlpubkey`, signature checks of both answers, and the signed pay
 * request to the receiver's callback. Counterparties are reached at https://<domain> unless
 * UMA_DOMAIN_OVERRIDES names another base URL. Every call is bounded by UMA_REQUEST_TIMEOUT_MS.
 * Failures are mapped to the spec's codes (src/adapters/uma/port.ts).
 */
export interface UmaProtocolOptions {
  vaspDomain: string;
  signingPrivateKeyHex: string;
  domainOverrides: Record<string, string>;
  timeoutMs: number;
  redis: Redis;
  redisPrefix: string;
  now: () => Date;
}

/** The error codes a counterparty may name in its UMA error body that we pass on as they are. */
const PASS_THROUGH = new Map<string, [string, 400 | 404 | 412 | 424]>([
  ['SENDER_NOT_ACCEPTED', ['SENDER_NOT_ACCEPTED', 400]],
  ['COUNTERPARTY_NOT_ALLOWED', ['SENDER_NOT_ACCEPTED', 400]],
  ['USER_NOT_FOUND', ['UMA_NOT_FOUND', 404]],
  ['AMOUNT_OUT_OF_RANGE', ['AMOUNT_OUT_OF_RANGE', 400]],
  ['INVALID_CURRENCY', ['INVALID_CURRENCY', 400]],
  ['MISSING_REQUIRED_UMA_PARAMETERS', ['MISSING_REQUIRED_UMA_PARAMETERS', 400]],
  ['UNSUPPORTED_UMA_VERSION', ['UNSUPPORTED_UMA_VERSION', 412]],
  ['NO_COMPATIBLE_UMA_VERSION', ['NO_COMPATIBLE_UMA_VERSION', 424]],
]);

/** Nonces of counterparty signatures, remembered in Redis so a replay is refused by every process. */
class RedisNonceValidator implements NonceValidator {
  constructor(private readonly redis: Redis, private readonly prefix: string, private readonly now: () => Date) {}
  async checkAndSaveNonce(nonce: string, timestampSec: number): Promise<boolean> {
    const ageSec = this.now().getTime() / 1000 - timestampSec;
    // A signature older than a day (or from the future beyond clock skew) is not accepted.
    if (ageSec > 86_400 || ageSec < -300) return false;
    const stored = await this.redis.set(`${this.prefix}:uma-nonce:${nonce}`, '1', 'EX', 2 * 86_400, 'NX');
    return stored === 'OK';
  }
}

function domainOf(umaAddress: string): string {
  return umaAddress.slice(umaAddress.indexOf('@') + 1);
}

export function createUmaProtocolClient(opts: UmaProtocolOptions): UmaCounterpartyAdapter {
  const signingKey = Buffer.from(opts.signingPrivateKeyHex, 'hex');
  const nonces = new RedisNonceValidator(opts.redis, opts.redisPrefix, opts.now);
  const baseUrlOf = (domain: string) => opts.domainOverrides[domain] ?? `https://${domain}`;
  const signalOf = (o?: CallOptions) => (o?.signal ? AbortSignal.any([o.signal, AbortSignal.timeout(opts.timeoutMs)]) : AbortSignal.timeout(opts.timeoutMs));

  async function call(url: string, init: RequestInit, failure: UmaCounterpartyError, o?: CallOptions): Promise<{ status: number; text: string }> {
    try {
      const res = await fetch(url, { ...init, redirect: 'error', signal: signalOf(o) });
      return { status: res.status, text: await res.text() };
    } catch {
      throw failure;
    }
  }

  /** A non-200 answer: the counterparty's UMA error code when we know it, else `fallback`. */
  function refusal(status: number, text: string, fallback: UmaCounterpartyError): UmaCounterpartyError {
    if (status === 404) return new UmaCounterpartyError('UMA_NOT_FOUND', 404, 'No receiver has this UMA address.');
    if (status === 412) return new UmaCounterpartyError('UNSUPPORTED_UMA_VERSION', 412, 'The receiving VASP speaks no UMA version this service supports.');
    try {
      const body = JSON.parse(text) as { code?: unknown; reason?: unknown };
      const known = typeof body.code === 'string' ? PASS_THROUGH.get(body.code) : undefined;
      if (known) return new UmaCounterpartyError(known[0], known[1], typeof body.reason === 'string' ? body.reason.slice(0, 300) : `The receiving VASP answered ${body.code}.`);
    } catch {
      // not a UMA error body
    }
    return fallback;
  }

  async function fetchPubKeys(domain: string, o?: CallOptions): Promise<{ keys: PubKeyResponse; raw: string }> {
    const fetchError = new UmaCounterpartyError('COUNTERPARTY_PUBKEY_FETCH_ERROR', 424, "The receiving VASP's public keys could not be fetched.", true);
    const res = await call(`${baseUrlOf(domain)}/.well-known/lnurlpubkey`, { method: 'GET' }, fetchError, o);
    if (res.status !== 200) throw fetchError;
    let keys: PubKeyResponse;
    try {
      keys = PubKeyResponse.fromJson(res.text);
    } catch (err) {
      if (err instanceof SyntaxError) throw new UmaCounterpartyError('INVALID_PUBKEY_FORMAT', 400, "The receiving VASP's public key answer is not JSON.");
      throw new UmaCounterpartyError('CERT_CHAIN_INVALID', 400, "The receiving VASP's certificate chain cannot be parsed.");
    }
    const now = opts.now();
    for (const cert of [...(keys.signingCertChain ?? []), ...(keys.encryptionCertChain ?? [])]) {
      if (new Date(cert.validTo) < now) throw new UmaCounterpartyError('CERT_CHAIN_EXPIRED', 400, "The receiving VASP's certificate has expired.");
    }
    try {
      keys.getSigningPubKey();
      keys.getEncryptionPubKey();
    } catch (err) {
      const code = (err as { code?: string }).code === 'INVALID_PUBKEY_FORMAT' ? 'INVALID_PUBKEY_FORMAT' : 'CERT_CHAIN_INVALID';
      throw new UmaCounterpartyError(code, 400, "The receiving VASP's public keys are not usable.");
    }
    return { keys, raw: res.text };
  }

  return {
    id: 'uma-protocol',

    async lookup(req: UmaLookupRequest, o?: CallOptions): Promise<UmaReceiver> {
      const domain = domainOf(req.receiverUmaAddress);
      const signed = await getSignedLnurlpRequestUrl({ isSubjectToTravelRule: true, receiverAddress: req.receiverUmaAddress, senderVaspDomain: opts.vaspDomain, signingPrivateKey: signingKey });
      const url = `${baseUrlOf(domain)}${signed.pathname}${signed.search}`;
      const res = await call(url, { method: 'GET' }, new UmaCounterpartyError('LNURLP_REQUEST_FAILED', 424, 'The receiving VASP could not be reached.', true), o);
      if (res.status !== 200) throw refusal(res.status, res.text, new UmaCounterpartyError('LOOKUP_REQUEST_FAILED', 400, `The receiving VASP answered the lookup with HTTP ${res.status}.`));
      let response: LnurlpResponse;
      try {
        response = LnurlpResponse.fromJson(res.text);
      } catch {
        throw new UmaCounterpartyError('PARSE_LNURLP_RESPONSE_ERROR', 400, "The receiving VASP's LNURL-p response could not be parsed.");
      }
      if (!response.isUma()) throw new UmaCounterpartyError('INVALID_RECEIVER', 400, 'The receiver does not speak UMA (no compliance data or currencies).');
      if (response.compliance.receiverIdentifier.toLowerCase() !== req.receiverUmaAddress) {
        throw new UmaCounterpartyError('INVALID_RECEIVER', 400, 'The receiving VASP answered for another receiver.');
      }
      const { keys, raw } = await fetchPubKeys(domain, o);
      const valid = await verifyUmaLnurlpResponseSignature(response, keys, nonces).catch(() => false);
      if (!valid) throw new UmaCounterpartyError('INVALID_RECEIVER', 400, "The receiving VASP's signature does not verify.");
      const requiredPayerDataFields: PayerDataField[] = [];
      for (const [key, option] of Object.entries(response.payerData ?? {})) {
        const name = fieldNameOfPayerDataKey(key);
        if (name) requiredPayerDataFields.push({ name, mandatory: Boolean(option?.mandatory) });
      }
      return {
        receiverUmaAddress: req.receiverUmaAddress,
        currencies: response.currencies.map((c) => ({ code: c.code, decimals: c.decimals, multiplier: c.multiplier, min: BigInt(Math.ceil(c.minSendable)), max: BigInt(Math.floor(c.maxSendable)) })),
        requiredPayerDataFields,
        counterparty: { domain, callback: response.callback, umaVersion: response.umaVersion, pubKeys: raw },
      };
    },

    async payRequest(req: UmaPayRequest, o?: CallOptions): Promise<UmaPayTerms> {
      const c = req.counterparty as { domain?: string; callback?: string; umaVersion?: string; pubKeys?: string };
      if (!c.callback || !c.pubKeys || !c.domain) throw new UmaCounterpartyError('INVALID_RECEIVER', 400, 'The lookup holds no pay-request callback.');
      const keys = PubKeyResponse.fromJson(c.pubKeys);
      const payerData: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.payerData)) {
        const key = payerDataKeyOf(name);
        if (key !== 'identifier' && key !== 'compliance') payerData[key] = value;
      }
      const payRequest = await getPayRequest({
        receiverEncryptionPubKey: keys.getEncryptionPubKey(),
        sendingVaspPrivateKey: signingKey,
        receivingCurrencyCode: req.currency,
        amount: Number(req.amount),
        isAmountInReceivingCurrency: true,
        payerIdentifier: req.senderUmaAddress,
        payerKycStatus: KycStatus.Verified,
        trInfo: JSON.stringify(req.payerData),
        umaMajorVersion: Number.parseInt(c.umaVersion ?? '1', 10) || 1,
        payerData: payerData as never,
      });
      const callback = new URL(c.callback, `${baseUrlOf(c.domain)}/`);
      const res = await call(callback.toString(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: payRequest.toJsonString() }, new UmaCounterpartyError('PAYREQ_REQUEST_FAILED', 424, 'The receiving VASP did not answer the pay request.', true), o);
      if (res.status !== 200) throw refusal(res.status, res.text, new UmaCounterpartyError('INVALID_PAYREQ_RESPONSE', 400, `The receiving VASP refused the pay request (HTTP ${res.status}).`));
      let response: PayReqResponse;
      try {
        response = PayReqResponse.fromJson(res.text);
      } catch {
        throw new UmaCounterpartyError('PARSE_PAYREQ_RESPONSE_ERROR', 400, "The receiving VASP's pay-request response could not be parsed.");
      }
      if (!response.isUma()) throw new UmaCounterpartyError('INVALID_PAYREQ_RESPONSE', 400, 'The pay-request response carries no UMA payment data.');
      const valid = await verifyPayReqResponseSignature(response, req.senderUmaAddress, req.receiverUmaAddress, keys, nonces).catch(() => false);
      if (!valid) throw new UmaCounterpartyError('INVALID_PAYREQ_RESPONSE', 400, "The receiving VASP's pay-request signature does not verify.");
      const converted = response.converted;
      if (converted.currencyCode !== req.currency || BigInt(converted.amount ?? -1) !== req.amount) {
        throw new UmaCounterpartyError('INVALID_PAYREQ_RESPONSE', 400, 'The receiving VASP quoted another amount or currency than asked.');
      }
      return { ...termsOfInvoice(response.pr, opts.now()), multiplier: converted.multiplier, receiverFeeMsats: BigInt(Math.round(converted.fee ?? 0)), counterpartyInformation: { ...(response.payeeData ?? {}) } };
    },
  };
}

/** Amount and expiry read from the invoice itself: it is what will be paid. */
function termsOfInvoice(invoice: string, now: Date): { invoice: string; amountMsats: bigint; expiresAt: Date } {
  try {
    const decoded = decodeBolt11(invoice);
    const amount = decoded.millisatoshis ?? undefined;
    const timestamp = Number(decoded.timestamp ?? now.getTime() / 1000);
    const expiry = Number(decoded.tags.find((t) => t.tagName === 'expire_time')?.data ?? 3600);
    if (typeof amount !== 'string' || !/^\d+$/.test(amount)) throw new Error('no amount');
    return { invoice, amountMsats: BigInt(amount), expiresAt: new Date((timestamp + expiry) * 1000) };
  } catch {
    throw new UmaCounterpartyError('INVALID_PAYREQ_RESPONSE', 400, 'The receiving VASP returned no usable Lightning invoice.');
  }
}
