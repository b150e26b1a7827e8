import { createHmac, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createTestEnv, type TestEnv } from '../helpers/app.js';
import { Receiver } from '../helpers/receiver.js';
import { ctxFor } from '../../src/deps.js';
import { recordEvent } from '../../src/platform/outbox.js';
import { processDelivery } from '../../src/domains/webhooks/webhooks.jobs.js';
import { eventLabel } from '../../src/domains/webhooks/webhooks.model.js';

const SECRET = `whsec_${Buffer.from('a-standard-webhooks-test-secret!').toString('base64')}`;
const pem = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

describe('Standard Webhooks signature (STANDARD_WEBHOOKS_SECRET)', () => {
  let env: TestEnv;
  let receiver: Receiver;
  beforeAll(async () => {
    env = await createTestEnv({ STANDARD_WEBHOOKS_SECRET: SECRET });
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver.stop();
    await env.close();
  });

  it('each delivery carries webhook-id, webhook-timestamp and webhook-signature beside X-Svc-Signature; the standardwebhooks library verifies them', async () => {
    const p = await env.platform();
    await env.deps.prisma.platform.update({ where: { id: p.platformId }, data: { webhookEndpoint: receiver.url } });
    const id = await ctxFor(env.deps, p.platformId).db.$transaction((tx) => recordEvent(tx, 'X.SIGNED', { n: 1 }));
    expect(await processDelivery(env.deps, { eventId: eventLabel(id), platformId: p.platformId, windowStartMs: Date.now() })).toBe('DELIVERED');
    const got = receiver.received.at(-1)!;
    expect(got.headers['x-svc-signature']).toMatch(/^\{"v":"1","s":"/);
    expect(got.headers['webhook-id']).toBe(eventLabel(id));
    const ts = Number(got.headers['webhook-timestamp']);
    expect(Math.abs(ts - Date.now() / 1000)).toBeLessThan(600);
    const headers = { 'webhook-id': String(got.headers['webhook-id']), 'webhook-timestamp': String(got.headers['webhook-timestamp']), 'webhook-signature': String(got.headers['webhook-signature']) };
    expect(new Webhook(SECRET).verify(got.body, headers)).toEqual(got.json);
    // Any change to the body or the signed timestamp breaks the signature.
    expect(() => new Webhook(SECRET).verify(got.body.replace('X.SIGNED', 'X.SIGNEE'), headers)).toThrow();
    expect(() => new Webhook(SECRET).verify(got.body, { ...headers, 'webhook-timestamp': String(ts - 1) })).toThrow();
  });

  it('a captured delivery replayed after the 5-minute window is refused by the verifier', () => {
    const body = JSON.stringify({ id: 'Webhook:1', type: 'X', timestamp: new Date().toISOString(), data: {} });
    const old = Math.floor(Date.now() / 1000) - 6 * 60;
    const sig = createHmac('sha256', Buffer.from(SECRET.slice(6), 'base64')).update(`Webhook:1.${old}.${body}`).digest('base64');
    const headers = { 'webhook-id': 'Webhook:1', 'webhook-timestamp': String(old), 'webhook-signature': `v1,${sig}` };
    expect(() => new Webhook(SECRET).verify(body, headers)).toThrow(/too old/i);
  });

  it('STANDARD_WEBHOOKS_SECRET must be a whsec_ secret', async () => {
    await expect(createTestEnv({ STANDARD_WEBHOOKS_SECRET: 'plain' })).rejects.toThrow(/STANDARD_WEBHOOKS_SECRET: must be whsec_/);
  });
});

describe('SSRF: the address is checked when each delivery connects (production)', () => {
  let env: TestEnv;
  let receiver: Receiver;
  beforeAll(async () => {
    env = await createTestEnv({ SVC_ENV: 'production', WEBHOOK_SIGNING_KEY: pem() });
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver.stop();
    await env.close();
  });

  it('an endpoint whose name now resolves to loopback (DNS rebinding after the URL was accepted) is never dialled', async () => {
    const p = await env.platform();
    const port = new URL(receiver.url).port;
    for (const url of [`http://localhost:${port}/hooks`, `http://127.0.0.1:${port}/hooks`, `http://[::1]:${port}/hooks`]) {
      // Written directly, as if it had passed the save-time check with another DNS answer.
      await env.deps.prisma.platform.update({ where: { id: p.platformId }, data: { webhookEndpoint: url } });
      const id = await ctxFor(env.deps, p.platformId).db.$transaction((tx) => recordEvent(tx, 'X.SSRF', { url }));
      expect(await processDelivery(env.deps, { eventId: eventLabel(id), platformId: p.platformId, windowStartMs: Date.now() })).toBe('RETRY');
      const attempt = await env.deps.prisma.webhookAttempt.findFirstOrThrow({ where: { eventId: id } });
      expect(attempt.outcome, url).toBe('CONNECTION_ERROR');
      expect(attempt.error, url).toBe('WEBHOOK_ADDRESS_NOT_PUBLIC');
    }
    expect(receiver.received).toHaveLength(0);
  });

  it('in sandbox (private URLs allowed) the same endpoint is delivered to', async () => {
    const sandbox = await createTestEnv();
    try {
      const p = await sandbox.platform();
      await sandbox.deps.prisma.platform.update({ where: { id: p.platformId }, data: { webhookEndpoint: receiver.url.replace('127.0.0.1', 'localhost') } });
      const id = await ctxFor(sandbox.deps, p.platformId).db.$transaction((tx) => recordEvent(tx, 'X.SSRF', {}));
      expect(await processDelivery(sandbox.deps, { eventId: eventLabel(id), platformId: p.platformId, windowStartMs: Date.now() })).toBe('DELIVERED');
      expect(receiver.received).toHaveLength(1);
    } finally {
      await sandbox.close();
    }
  });
});
