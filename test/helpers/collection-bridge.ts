import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { sandboxCoordinates, SANDBOX_COLLECTION_RAILS } from '../../src/adapters/collection/sandbox/coordinates.js';
import type { OpenCoordinatesRequest } from '../../src/adapters/collection/port.js';

/**
 * A loopback stand-in for an operator's collection bridge (docs/adapters.md "Collection"): checks the service's
 * signature on every request, signs its answers with its own P-256 key, keeps credits in memory (what its
 * /collection/credits answers from a numeric cursor) and issues the sandbox bank's coordinates.
 * `unsigned`: answers are signed with another key.
 */
export const collectionBridgeKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
export const otherBridgeKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
export const signBridge = (body: string, key = collectionBridgeKey.privateKey) => JSON.stringify({ v: '1', s: sign('sha256', Buffer.from(body), key).toString('base64') });
export const collectionBridgePublicKeyPem = () => collectionBridgeKey.publicKey.export({ type: 'spki', format: 'pem' }).toString();

export class CollectionBridge {
  url = '';
  readonly credits: Array<Record<string, unknown>> = [];
  readonly opened = new Map<string, number>();
  private server?: Server;
  constructor(
    private readonly servicePublicKeyPem: () => string,
    private readonly tamper: { unsigned?: boolean } = {},
  ) {}

  async start(): Promise<this> {
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const raw = Buffer.concat(chunks);
      const sig = JSON.parse(String(req.headers['x-svc-signature'] ?? '{}')) as { s?: string };
      const trusted = !!sig.s && verify('sha256', raw, this.servicePublicKeyPem(), Buffer.from(sig.s, 'base64'));
      const body = JSON.parse(raw.toString('utf8') || '{}') as Record<string, unknown>;
      let status = 200;
      let answer: unknown = {};
      if (!trusted) [status, answer] = [401, { error: { code: 'SIGNATURE_INVALID' } }];
      else if (req.url === '/collection/coordinates/open') {
        const r = body as unknown as OpenCoordinatesRequest;
        this.opened.set(r.coordinatesId, (this.opened.get(r.coordinatesId) ?? 0) + 1);
        const served = (SANDBOX_COLLECTION_RAILS[r.currency] ?? []).includes(r.rail);
        const c = served ? sandboxCoordinates(r) : undefined;
        answer = c ? { status: 'OPEN', reference: c.reference, instructions: c.instructions } : { status: 'REJECTED' };
      } else if (req.url === '/collection/coordinates/close') answer = {};
      else if (req.url === '/collection/credits') {
        const from = Number(body.cursor ?? 0);
        const limit = Number(body.limit ?? 100);
        const page = this.credits.slice(from, from + limit);
        answer = { credits: page, nextCursor: String(from + page.length) };
      } else [status, answer] = [404, { error: { code: 'NOT_FOUND' } }];
      const text = JSON.stringify(answer);
      res.writeHead(status, { 'content-type': 'application/json', 'x-bridge-signature': signBridge(text, this.tamper.unsigned ? otherBridgeKey.privateKey : collectionBridgeKey.privateKey) });
      res.end(text);
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }
}
