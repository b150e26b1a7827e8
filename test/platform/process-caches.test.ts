import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { BASE, createTestEnv, eventually, type TestEnv } from '../helpers/app.js';
import { anApprovedCustomer, fund } from '../helpers/builders.js';
import { buildApp } from '../../src/app.js';
import { withAdapters, bullConnection, closeDeps } from '../../src/bootstrap.js';
import { createPrisma } from '../../src/platform/db.js';
import { createRedis } from '../../src/platform/redis.js';
import { createQueues } from '../../src/platform/queue.js';
import { loadSigner } from '../../src/platform/signing.js';
import { ALL_QUEUES } from '../../src/modules.js';
import type { AppDeps } from '../../src/deps.js';

// Platform settings are cached in each process (issue 12); a change reaches every process at once,
// whatever age limit the copies have.
let env: TestEnv;
let other: { app: FastifyInstance; deps: AppDeps };

beforeAll(async () => {
  env = await createTestEnv({ PLATFORM_SETTINGS_MAX_AGE_MS: '3600000' });
  // A second API process on the same database and Redis (its own pools, cache and subscriber).
  const prisma = createPrisma(env.config.DATABASE_URL, 3);
  const redis = createRedis(env.config.REDIS_URL);
  const queues = createQueues(ALL_QUEUES, bullConnection(env.config), env.config.REDIS_PREFIX);
  const deps = await withAdapters({ config: env.config, prisma, redis, queues, clock: env.clock, signer: await loadSigner(prisma, undefined), logger: pino({ level: 'silent' }) });
  other = { app: await buildApp(deps), deps };
  await other.app.ready();
});
afterAll(async () => {
  await other.app.close();
  await closeDeps(other.deps);
  await env.close();
});

describe('credentials verified once per process', () => {
  it('a token deleted through one process is refused by another that had it cached', async () => {
    const p = await env.platform();
    const created = await p.request({ method: 'POST', url: '/tokens', payload: { name: 'cached elsewhere', permissions: ['VIEW'] } });
    expect(created.statusCode, created.body).toBe(201);
    const token = created.json();
    const auth = `Basic ${Buffer.from(`${token.clientId}:${token.clientSecret}`).toString('base64')}`;
    const read = () => other.app.inject({ method: 'GET', url: `${BASE}/config`, headers: { authorization: auth } });
    expect((await read()).statusCode).toBe(200);
    // Cached in the other process now, and in Redis.
    expect((await p.request({ method: 'DELETE', url: `/tokens/${token.id}` })).statusCode).toBe(204);
    await eventually(async () => (await read()).statusCode === 401, 5_000);
  });
});

describe('platform settings cached per process', () => {
  it('a currency limit changed through one process applies to the next quote on another', async () => {
    const p = await env.platform();
    const a = await anApprovedCustomer(env, p, ['USD']);
    const b = await anApprovedCustomer(env, p, ['USD']);
    await fund(p, a.accounts.USD!, 1_000_000);
    const quoteOnOther = async () => {
      const res = await other.app.inject({
        method: 'POST',
        url: `${BASE}/quotes`,
        headers: { authorization: p.auth },
        payload: { source: { sourceType: 'ACCOUNT', accountId: a.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: b.accounts.USD }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 10_000 },
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    };
    // The other process now has the settings cached.
    expect((await quoteOnOther()).status).toBe('PENDING');
    const minimum = await p.request({ method: 'PATCH', url: '/config', payload: { supportedCurrencies: [{ currencyCode: 'USD', minAmount: 20_000, maxAmount: 100_000_000, requiredCounterpartyFields: [], enabledTransactionTypes: ['OUTGOING', 'INCOMING'] }] } });
    expect(minimum.statusCode, minimum.body).toBe(200);
    // Without the invalidation the other process would keep its copy for an hour.
    await eventually(async () => {
      const res = await other.app.inject({
        method: 'POST',
        url: `${BASE}/quotes`,
        headers: { authorization: p.auth },
        payload: { source: { sourceType: 'ACCOUNT', accountId: a.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: b.accounts.USD }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 10_000 },
      });
      return res.statusCode === 400 && res.json().code === 'AMOUNT_OUT_OF_RANGE';
    }, 5_000);
    const config = await other.app.inject({ method: 'GET', url: `${BASE}/config`, headers: { authorization: p.auth } });
    expect(config.json().supportedCurrencies.find((c: { currencyCode: string }) => c.currencyCode === 'USD').minAmount).toBe(20_000);
  });

  it('a process whose subscriber lost Redis reads through until it is back', async () => {
    const p = await env.platform();
    const first = await other.app.inject({ method: 'GET', url: `${BASE}/config`, headers: { authorization: p.auth } });
    expect(first.statusCode).toBe(200);
    // A change written behind every cache's back (as by a process whose publish was lost) …
    await env.deps.prisma.platformCurrency.updateMany({ where: { platformId: p.platformId, currencyCode: 'USD' }, data: { minAmount: 4242n } });
    // … is seen as soon as the subscriber reconnects: reconnecting clears every copy.
    await (other.deps.bus as unknown as { subscriber: { disconnect(reconnect: boolean): void } }).subscriber.disconnect(true);
    await eventually(async () => {
      const res = await other.app.inject({ method: 'GET', url: `${BASE}/config`, headers: { authorization: p.auth } });
      return res.json().supportedCurrencies.find((c: { currencyCode: string }) => c.currencyCode === 'USD').minAmount === 4242;
    }, 10_000);
  });
});
