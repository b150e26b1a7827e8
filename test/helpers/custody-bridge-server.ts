import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { CustodyError, type WalletCustody } from '../../src/adapters/custody/port.js';

/**
 * A loopback stand-in for an operator's custody bridge (docs/adapters.md "Wallet custody"): answers the
 * http custody adapter's signed `POST /custody/<operation>` calls by running them against a backing
 * provider (the sandbox one in the tests), signs every answer with its own P-256 key, refuses requests not
 * signed with the service's key, and turns a CustodyError into the protocol's `{error: {reason, …}}`.
 * Wire rules (the adapter's): bigints as decimal strings, buffers as hex, dates as ISO strings.
 */
const BIGINTS = new Set(['amount']);
const DATES = new Set(['expiresAt', 'receivedAt']);

function revive(v: unknown, key = ''): unknown {
  if (Array.isArray(v)) return v.map((x) => revive(x));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, revive(x, k)]));
  if (typeof v === 'string' && BIGINTS.has(key) && /^[0-9]+$/.test(v)) return BigInt(v);
  if (typeof v === 'string' && DATES.has(key)) return new Date(v);
  if (typeof v === 'string' && key === 'signature') return Buffer.from(v, 'hex');
  return v;
}

const out = (v: unknown): string => JSON.stringify(v ?? {}, (_k, x) => (typeof x === 'bigint' ? x.toString() : x && x.type === 'Buffer' && Array.isArray(x.data) ? Buffer.from(x.data).toString('hex') : x));

export class CustodyBridgeServer {
  url = '';
  readonly publicKeyPem: string;
  private readonly privateKey: KeyObject;
  private server?: Server;
  /** Operations called, in order (`create-wallet`, …). */
  readonly calls: string[] = [];

  constructor(private readonly backend: WalletCustody, private readonly servicePublicKeyPem: string) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    this.privateKey = pair.privateKey;
    this.publicKeyPem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
  }

  private answer(res: ServerResponse, status: number, body: string): void {
    res.writeHead(status, { 'content-type': 'application/json', 'x-bridge-signature': JSON.stringify({ v: '1', s: sign('sha256', Buffer.from(body), this.privateKey).toString('base64') }) });
    res.end(body);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const header = req.headers['x-svc-signature'];
    let trusted = false;
    try {
      trusted = typeof header === 'string' && verify('sha256', raw, this.servicePublicKeyPem, Buffer.from((JSON.parse(header) as { s: string }).s, 'base64'));
    } catch {
      trusted = false;
    }
    if (!trusted) return this.answer(res, 401, out({ error: { reason: 'PROVIDER_UNAVAILABLE', message: 'request not signed by the service', retryable: false } }));
    const op = (req.url ?? '').replace(/^\/custody\//, '');
    this.calls.push(op);
    const method = op.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase()) as keyof WalletCustody;
    const fn = this.backend[method];
    if (typeof fn !== 'function') return this.answer(res, 404, out({ error: { reason: 'PROVIDER_UNAVAILABLE', message: `unknown operation ${op}`, retryable: false } }));
    try {
      const result = await (fn as (r: unknown) => Promise<unknown>).call(this.backend, revive(JSON.parse(raw.toString('utf8'))));
      this.answer(res, 200, out(op === 'list-credits' ? { credits: result } : result));
    } catch (err) {
      if (err instanceof CustodyError) return this.answer(res, 422, out({ error: { reason: err.reason, message: err.message, retryable: err.retryable } }));
      this.answer(res, 500, out({ error: { reason: 'PROVIDER_UNAVAILABLE', message: (err as Error).message, retryable: true } }));
    }
  }
}
