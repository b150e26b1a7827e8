import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import bolt11 from 'bolt11';
import {
  Currency,
  getLnurlpResponse,
  getPayReqResponse,
  getPubKeyResponse,
  InMemoryNonceValidator,
  KycStatus,
  parseLnurlpRequest,
  PayRequest,
  PubKeyResponse,
  verifyPayReqSignature,
  verifyUmaLnurlpQuerySignature,
} from '@uma-sdk/core';

/**
 * A counterparty VASP on loopback, built on the official UMA SDK the way a receiving VASP would:
 * `/.well-known/lnurlp/<user>` (signed LNURL-p answer), `/.well-known/lnurlpubkey` (a real X.509
 * secp256k1 certificate), and `/payreq/<user>` (signed pay-request answer with a BOLT11 invoice).
 * It checks the sender's signatures with the sender key the test hands it (keys are exchanged out of
 * band here). Paths under `/badcert` answer with an unusable certificate chain.
 *
 * Users at `vasp.test`: $alice (USD, EUR; FULL_NAME mandatory), $refuser (SENDER_NOT_ACCEPTED),
 * $broken (HTTP 500), $garbled (not JSON), $nouma (plain LNURL, no UMA data); anyone else 404.
 */
export const VASP_DOMAIN = 'vasp.test';
const VASP_SIGNING_KEY = '41b965275de6f3ceff138f03e0bd9c33d0041e0f119403d5b8274fcfb1cdb480';
const VASP_CERT = `-----BEGIN CERTIFICATE-----
MIIBfTCCASKgAwIBAgIUYj/ZD0cOyc+yq0mH8+1/5OpNA7UwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJdmFzcC50ZXN0MCAXDTI2MTEyMjAxMTgzOVoYDzIxMjYxMDI5
MDExODM5WjAUMRIwEAYDVQQDDAl2YXNwLnRlc3QwVjAQBgcqhkjOPQIBBgUrgQQA
CgNCAARplVvBEP2Buz5sBa5VXvV/cn2cAxlCpq7iGx04HqYMA6wk9aLVZYHYk4ZO
wDOmEeavjfHA2JNQl6ed1LPUKV+mo1MwUTAdBgNVHQ4EFgQUCHTLV1R9uw9WuZkN
AE50rG1W+IgwHwYDVR0jBBgwFoAUCHTLV1R9uw9WuZkNAE50rG1W+IgwDwYDVR0T
AQH/BAUwAwEB/zAKBggqhkjOPQQDAgNJADBGAiEA1PAjOyGNp3AbqKiIYwVZJayQ
REw5f3SY8Gik0sucrQMCIQCP6YO6R6YvFr0Xakn/JdX3hQp8XYqkhVzZWTln9TW+
Eg==
-----END CERTIFICATE-----
`;

/** A fresh sender identity (what UMA_SIGNING_PRIVATE_KEY / UMA_ENCRYPTION_PRIVATE_KEY hold). */
export function senderKeys(): { signing: string; encryption: string } {
  const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
  return { signing: hex(secp256k1.utils.randomPrivateKey()), encryption: hex(secp256k1.utils.randomPrivateKey()) };
}

const USD = new Currency('USD', 'US Dollar', '$', 10_000, 1, 5_000_000, 2, 1);
const EUR = new Currency('EUR', 'Euro', '€', 10_800, 1, 5_000_000, 2, 1);

export class UmaCounterparty {
  private server: Server;
  baseUrl = '';
  /** Pay requests received, as parsed (payer data included). */
  readonly payRequests: Array<{ user: string; amount: number; currency: string | undefined; payerData: Record<string, unknown> }> = [];
  private senderPubKeys: PubKeyResponse;
  /** Handler failures (a 500 was answered), for debugging tests. */
  readonly errors: string[] = [];
  private nonces = new InMemoryNonceValidator(Date.now() - 3_600_000);

  constructor(senderSigningKeyHex: string) {
    const pub = Buffer.from(secp256k1.getPublicKey(Buffer.from(senderSigningKeyHex, 'hex'), false)).toString('hex');
    this.senderPubKeys = new PubKeyResponse(undefined, undefined, pub, pub);
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err) => {
        this.errors.push(String((err as Error)?.stack ?? err));
        res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ status: "ERROR", reason: String(err) }));
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** UMA_DOMAIN_OVERRIDES for a test env: vasp.test, badcert.test (bad certificates), down.test (nothing listens). */
  overrides(): string {
    return JSON.stringify({ [VASP_DOMAIN]: this.baseUrl, 'badcert.test': `${this.baseUrl}/badcert`, 'down.test': 'http://127.0.0.1:9' });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { "content-type": "application/json" }).end(typeof body === "string" ? body : JSON.stringify(body));
    };
    let path = req.url ?? '/';
    const badCert = path.startsWith('/badcert/');
    if (badCert) path = path.slice('/badcert'.length);
    const domain = badCert ? 'badcert.test' : VASP_DOMAIN;
    if (path === '/.well-known/lnurlpubkey') {
      if (badCert) return json(200, { signingCertChain: ['30820102deadbeef'], encryptionCertChain: ['30820102deadbeef'] });
      const keys = getPubKeyResponse({ signingCertChainPem: VASP_CERT, encryptionCertChainPem: VASP_CERT });
      return json(200, keys.toJsonString());
    }
    const url = new URL(path, `https://${domain}`);
    if (url.pathname.startsWith('/.well-known/lnurlp/')) return this.lnurlp(url, domain, json);
    if (url.pathname.startsWith('/payreq/') && req.method === 'POST') {
      const body = await new Promise<string>((resolve) => {
        const chunks: Buffer[] = [];
        req.on('data', (c) => chunks.push(c));
        req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      });
      return this.payreq(url.pathname.slice('/payreq/'.length), domain, body, json);
    }
    json(404, { status: 'ERROR', reason: 'not found' });
  }

  private async lnurlp(url: URL, domain: string, json: (s: number, b: unknown) => void) {
    const user = decodeURIComponent(url.pathname.split('/')[3] ?? '').replace(/^\$/, '');
    if (user === 'broken') return json(500, { status: 'ERROR', reason: 'database down' });
    if (user === 'garbled') return json(200, '<html>not an lnurlp answer</html>');
    if (user === 'refuser') return json(403, { status: 'ERROR', code: 'SENDER_NOT_ACCEPTED', reason: 'We do not take payments from this sender.' });
    if (!['alice', 'nouma'].includes(user)) return json(404, { status: 'ERROR', code: 'USER_NOT_FOUND', reason: 'no such user' });
    const request = parseLnurlpRequest(url);
    const ok = await verifyUmaLnurlpQuerySignature(request, this.senderPubKeys, this.nonces);
    if (!ok) return json(400, { status: 'ERROR', code: 'INVALID_SIGNATURE', reason: 'bad signature' });
    const callback = `${this.baseUrl}${domain === VASP_DOMAIN ? '' : '/badcert'}/payreq/${user}`;
    if (user === 'nouma') return json(200, { tag: 'payRequest', callback, minSendable: 1000, maxSendable: 1_000_000_000, metadata: '[["text/plain","nouma"]]' });
    const response = await getLnurlpResponse({
      request,
      privateKeyBytes: Buffer.from(VASP_SIGNING_KEY, 'hex'),
      requiresTravelRuleInfo: true,
      callback,
      encodedMetadata: JSON.stringify([['text/plain', `Pay $${user}@${domain}`], ['text/identifier', `$${user}@${domain}`]]),
      minSendableSats: 1,
      maxSendableSats: 10_000_000,
      payerDataOptions: { identifier: { mandatory: true }, compliance: { mandatory: true }, name: { mandatory: true }, email: { mandatory: false } },
      currencyOptions: [USD, EUR],
      receiverKycStatus: KycStatus.Verified,
    });
    json(200, response.toJsonString());
  }

  private async payreq(user: string, domain: string, body: string, json: (s: number, b: unknown) => void) {
    const request = PayRequest.fromJson(body);
    const ok = await verifyPayReqSignature(request, this.senderPubKeys, this.nonces);
    if (!ok) return json(400, { status: 'ERROR', code: 'INVALID_SIGNATURE', reason: 'bad signature' });
    const currency = [USD, EUR].find((c) => c.code === request.receivingCurrencyCode);
    if (!currency) return json(400, { status: 'ERROR', code: 'INVALID_CURRENCY', reason: 'unsupported currency' });
    this.payRequests.push({ user, amount: request.amount, currency: request.receivingCurrencyCode, payerData: { ...(request.payerData ?? {}) } });
    const payee = `$${user}@${domain}`;
    const response = await getPayReqResponse({
      request,
      conversionRate: currency.multiplier,
      receivingCurrencyCode: currency.code,
      receivingCurrencyDecimals: currency.decimals,
      invoiceCreator: {
        createUmaInvoice: async (amountMsats: number, metadata: string) => {
          const encoded = bolt11.encode({
            millisatoshis: String(amountMsats),
            timestamp: Math.floor(Date.now() / 1000),
            tags: [
              { tagName: 'payment_hash', data: createHash('sha256').update(`${payee}:${body}`).digest('hex') },
              { tagName: 'purpose_commit_hash', data: createHash('sha256').update(metadata).digest('hex') },
              { tagName: 'expire_time', data: 600 },
            ],
          });
          return bolt11.sign(encoded, VASP_SIGNING_KEY).paymentRequest;
        },
      } as never,
      metadata: JSON.stringify([['text/plain', `Pay ${payee}`]]),
      receiverChannelUtxos: [],
      receiverFeesMillisats: 0,
      receivingVaspPrivateKey: Buffer.from(VASP_SIGNING_KEY, 'hex'),
      payeeIdentifier: payee,
      payeeData: { identifier: payee, name: 'Alice Counterparty' },
    });
    json(200, response.toJsonString());
  }
}
