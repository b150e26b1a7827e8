import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, randomUUID, sign, verify, type KeyObject } from 'node:crypto';

/**
 * A loopback stand-in for an operator's bridge service (docs/adapters.md "The http bridge"): keeps
 * payouts in memory, signs every answer with its own P-256 key, checks the service's signature on
 * every request, and can be told to misbehave. Outcome by the destination's last three digits:
 * `002` refused at submission (signed 422, not retryable), `004` FAILED after `settleMs`
 * (ACCOUNT_CANNOT_RECEIVE), `007` FAILED and its refund fails too, `009` a status outside the
 * protocol forever; anything else COMPLETED after `settleMs`.
 */
export type BridgeFault =
  | 'timeout' // acts, then answers after the adapter gave up
  | 'garbage' // 200, signed, not JSON
  | 'garbage-unsigned' // 200, unsigned, not JSON
  | 'bad-signature' // a well-formed answer signed with another key
  | 'off-protocol' // signed JSON that is not the protocol
  | 'wrong-payout' // signed, well-formed, about another payout
  | 'http500'; // signed 500

interface Payout {
  idempotencyKey: string;
  reference: string;
  last3: string;
  createdAtMs: number;
  amount: number;
  currency: string;
  rail: string;
}

export interface BridgeRequest {
  path: string;
  body: Record<string, unknown>;
  signatureValid: boolean;
  /** When the request arrived (Date.now()). */
  atMs: number;
}

export class BridgeServer {
  url = '';
  readonly publicKeyPem: string;
  private readonly privateKey: KeyObject;
  private readonly otherKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  private servicePublicKey?: string;
  private server?: Server;
  readonly payouts = new Map<string, Payout>();
  /** How many times each idempotency key was really paid (must never exceed 1). */
  readonly paid = new Map<string, number>();
  readonly refunds = new Map<string, { reference: string; status: string; calls: number }>();
  readonly requests: BridgeRequest[] = [];
  /** Faults answered, in order, to the next requests on a path (`/payouts`, `/payouts/status`, `/refunds`). */
  readonly faults: Record<string, BridgeFault[]> = {};
  settleMs = 100;
  timeoutDelayMs = 1_500;
  /** Push mode: final statuses are sent through `push` (to the service's webhook route). */
  push?: (body: string, headers: Record<string, string>) => Promise<unknown>;
  dropPushes = false;
  pushTwice = false;
  readonly pushed: string[] = [];
  /** Pushes the service answered, per idempotency key (pushTwice: two per payout). */
  readonly pushesAnswered = new Map<string, number>();

  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    this.privateKey = privateKey;
    this.publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  }

  /** The service's public key (GET /config webhookPublicKey): requests not signed with it get 401. */
  trust(servicePublicKeyPem: string): void {
    this.servicePublicKey = servicePublicKeyPem;
  }

  signatureHeader(body: string, key: KeyObject = this.privateKey): string {
    return JSON.stringify({ v: '1', s: sign('sha256', Buffer.from(body), key).toString('base64') });
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }

  requestsTo(path: string): BridgeRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** The answer a poll would get now. */
  statusOf(p: Payout): Record<string, unknown> {
    const settled = Date.now() - p.createdAtMs >= this.settleMs;
    const base = { idempotencyKey: p.idempotencyKey, reference: p.reference };
    if (p.last3 === '009') return { ...base, status: 'IN_FLIGHT_AT_CORRESPONDENT', pollAfterMs: 50 };
    if (!settled) return { ...base, status: 'PENDING', pollAfterMs: Math.max(10, this.settleMs - (Date.now() - p.createdAtMs)) };
    if (p.last3 === '004' || p.last3 === '007') return { ...base, status: 'FAILED', failureReason: 'ACCOUNT_CANNOT_RECEIVE', retryable: false };
    return { ...base, status: 'COMPLETED' };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const signatureValid = this.checkServiceSignature(raw, req.headers['x-svc-signature']);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      // recorded as {}
    }
    this.requests.push({ path, body, signatureValid, atMs: Date.now() });
    if (this.servicePublicKey && !signatureValid) return this.answer(res, 401, { error: { code: 'SIGNATURE_INVALID', retryable: true } });

    const fault = this.faults[path]?.shift();
    const answer = this.route(path, body);
    if (!fault) return this.answer(res, answer.status, answer.json);
    switch (fault) {
      case 'timeout':
        await new Promise((r) => setTimeout(r, this.timeoutDelayMs));
        return this.answer(res, answer.status, answer.json);
      case 'garbage':
        return this.send(res, 200, '<html>bridge error</html>', this.signatureHeader('<html>bridge error</html>'));
      case 'garbage-unsigned':
        return this.send(res, 200, 'OK', undefined);
      case 'bad-signature': {
        const text = JSON.stringify(answer.json);
        return this.send(res, answer.status, text, this.signatureHeader(text, this.otherKey));
      }
      case 'off-protocol':
        return this.answer(res, 200, { ok: true, payout: 'done' });
      case 'wrong-payout':
        return this.answer(res, 200, { ...(answer.json as object), idempotencyKey: `Transaction:${randomUUID()}`, reference: `brg_${randomUUID()}` });
      case 'http500':
        return this.answer(res, 500, { error: { code: 'INTERNAL', message: 'bridge down' } });
    }
  }

  private route(path: string, body: Record<string, unknown>): { status: number; json: unknown } {
    if (path === '/payouts') return this.submit(body);
    if (path === '/payouts/status') {
      const p = [...this.payouts.values()].find((x) => x.reference === body.reference);
      return p ? { status: 200, json: this.statusOf(p) } : { status: 404, json: { error: { code: 'UNKNOWN_PAYOUT' } } };
    }
    if (path === '/refunds') {
      const key = String(body.idempotencyKey);
      const p = [...this.payouts.values()].find((x) => x.reference === body.reference);
      const existing = this.refunds.get(key);
      const r = existing ?? { reference: `brf_${randomUUID()}`, status: p?.last3 === '007' ? 'FAILED' : 'COMPLETED', calls: 0 };
      r.calls += 1;
      this.refunds.set(key, r);
      return { status: 200, json: { idempotencyKey: key, reference: r.reference, status: r.status } };
    }
    return { status: 404, json: { error: { code: 'NOT_FOUND' } } };
  }

  private submit(body: Record<string, unknown>): { status: number; json: unknown } {
    const key = String(body.idempotencyKey);
    const destination = (body.destination ?? {}) as Record<string, unknown>;
    const last3 = String(destination.identifierLast3 ?? '');
    if (last3 === '002') return { status: 422, json: { error: { code: 'ACCOUNT_INVALID', message: 'the bank refused the account', retryable: false } } };
    let p = this.payouts.get(key);
    if (!p) {
      p = { idempotencyKey: key, reference: `brg_${randomUUID()}`, last3, createdAtMs: Date.now(), amount: Number(body.amount), currency: String(body.currency), rail: String(body.rail) };
      this.payouts.set(key, p);
      this.paid.set(key, (this.paid.get(key) ?? 0) + 1);
      if (this.push) this.schedulePush(p);
    }
    const now = this.statusOf(p);
    // Push mode answers PENDING at first and tells the outcome later, like most bank APIs.
    return { status: 200, json: this.push ? { idempotencyKey: key, reference: p.reference, status: now.status === 'COMPLETED' || now.status === 'FAILED' ? now.status : 'PENDING' } : now };
  }

  private schedulePush(p: Payout): void {
    setTimeout(async () => {
      const body = JSON.stringify(this.statusOf(p));
      this.pushed.push(body);
      if (this.dropPushes) return;
      const headers = { 'content-type': 'application/json', 'x-bridge-signature': this.signatureHeader(body) };
      for (let i = 0; i < (this.pushTwice ? 2 : 1); i++) {
        await this.push?.(body, headers);
        this.pushesAnswered.set(p.idempotencyKey, (this.pushesAnswered.get(p.idempotencyKey) ?? 0) + 1);
      }
    }, this.settleMs + 5).unref();
  }

  private checkServiceSignature(raw: Buffer, header: string | string[] | undefined): boolean {
    if (!this.servicePublicKey || typeof header !== 'string') return false;
    try {
      return verify('sha256', raw, this.servicePublicKey, Buffer.from((JSON.parse(header) as { s: string }).s, 'base64'));
    } catch {
      return false;
    }
  }

  private answer(res: ServerResponse, status: number, json: unknown): void {
    const text = JSON.stringify(json);
    this.send(res, status, text, this.signatureHeader(text));
  }

  private send(res: ServerResponse, status: number, text: string, signature: string | undefined): void {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json', ...(signature ? { 'x-bridge-signature': signature } : {}) });
    res.end(text);
  }
}
