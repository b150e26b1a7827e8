import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import type { IssuerError, StablecoinIssuer } from '../../src/adapters/stablecoin-issuer/port.js';

/**
 * A loopback stand-in for an operator's issuer bridge (docs/adapters.md "Stablecoin issuer over the http
 * bridge"): checks the service's signature, signs its answers with its own P-256 key, and serves `inner`
 * (the sandbox issuer) behind the protocol. `unsigned`: answers are signed with another key.
 */
export const bridgeKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
export const otherKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
export const signHeader = (body: string, key = bridgeKey.privateKey) => JSON.stringify({ v: '1', s: sign('sha256', Buffer.from(body), key).toString('base64') });
export const bridgePublicKeyPem = () => bridgeKey.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const servers: Server[] = [];
export async function stopBridges(): Promise<void> {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
}

/** A bridge serving `inner`; `tamper` may replace an answer's body (signed) or its signature. */
export async function startBridge(inner: StablecoinIssuer, servicePublicKeyPem: string | (() => string), tamper?: { unsigned?: boolean }) {
  const revive = (o: Record<string, unknown>) => JSON.parse(JSON.stringify(o), (k, v) => ((k === 'amount' || k === 'fiatAmount') && typeof v === 'string' ? BigInt(v) : v));
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const sig = JSON.parse(String(req.headers['x-svc-signature'] ?? '{}')) as { s?: string };
    const trusted = !!sig.s && verify('sha256', raw, typeof servicePublicKeyPem === 'function' ? servicePublicKeyPem() : servicePublicKeyPem, Buffer.from(sig.s, 'base64'));
    const body = revive(JSON.parse(raw.toString('utf8')) as Record<string, unknown>);
    let status = 200;
    let answer: unknown;
    try {
      if (!trusted) [status, answer] = [401, { error: { code: 'SIGNATURE_INVALID' } }];
      else if (req.url === '/issuer/credentials/verify') answer = await inner.verifyCredentials(body.credentials as never);
      else if (req.url === '/issuer/tokens/resolve') {
        answer = await inner.resolveToken(body.account as never, body.token as never);
        if (!answer) [status, answer] = [404, { error: { code: 'NOT_FOUND' } }];
      } else if (req.url === '/issuer/operations') answer = await inner.createOperation(body.account as never, body.request as never);
      else if (req.url === '/issuer/operations/status') {
        answer = await inner.getOperation(body.account as never, body.reference as string);
        if ((answer as { notFound?: boolean }).notFound) [status, answer] = [404, { error: { code: 'NOT_FOUND' } }];
      } else [status, answer] = [404, { error: { code: 'NOT_FOUND' } }];
    } catch (err) {
      const e = err as IssuerError;
      [status, answer] = [e.retryable ? 503 : 400, { error: { code: e.code, message: e.message, retryable: e.retryable } }];
    }
    const text = JSON.stringify(answer);
    res.writeHead(status, { 'content-type': 'application/json', 'x-bridge-signature': signHeader(text, tamper?.unsigned ? otherKey.privateKey : bridgeKey.privateKey) });
    res.end(text);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

