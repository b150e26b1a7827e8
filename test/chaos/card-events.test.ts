import { randomInt, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer, balances, expectLedgerConsistent, fund } from '../helpers/builders.js';
import { ServiceProcess, freePort, processEnv } from '../helpers/processes.js';
import { OwnRedis } from '../helpers/redis-server.js';
import { SANDBOX_PROCESSOR_SIGNATURE, signSandboxMessage } from '../../src/adapters/card-issuer/sandbox/index.js';

/**
 * Card events under chaos (issue 27): a processor pushes authorizations, advices, clearings, returns and
 * reversals for many cards to two API processes, each message delivered two or three times, the events of
 * one authorization shuffled (a return may arrive before its clearing and is re-sent until it applies),
 * while an API process is killed -9 mid-stream and restarted, and Redis is killed and restarted empty.
 * Afterwards every event was applied exactly once: each funding source holds exactly what the script
 * says, every journal balances, each card transaction has one event of each kind it reached.
 */
const CARDS = Number(process.env.CHAOS_CARD_COUNT ?? 12);
const SECRET = 'chaos-card-processor-secret';

let env: TestEnv;
let p: TestPlatform;
let redis: OwnRedis;
const apis: ServiceProcess[] = [];

interface Script {
  usd: string;
  funded: bigint;
  expected: bigint;
  /** Per authorization: the authorization first, then its events in any order. */
  flows: Array<{ auth: object; events: object[] }>;
}

beforeAll(async () => {
  env = await createTestEnv({ ADAPTER_CARD_SANDBOX_SECRET: SECRET });
  p = await env.platform();
  redis = await new OwnRedis().start();
}, 120_000);
afterAll(async () => {
  for (const a of apis) await a.kill();
  await redis?.kill();
  await env?.close();
});

const childEnv = () => ({ ...processEnv(env, { ADAPTER_CARD_SANDBOX_SECRET: SECRET }), REDIS_URL: redis.url });

/** One processor push, re-sent (as processors do) until the service takes it: 200, or a connection that came back. */
async function deliver(message: object): Promise<void> {
  const body = JSON.stringify(message);
  for (let attempt = 0; attempt < 400; attempt++) {
    const api = apis[randomInt(apis.length)]!;
    const res = await fetch(`${api.url}/2025-10-13/adapters/card-sandbox/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SANDBOX_PROCESSOR_SIGNATURE]: signSandboxMessage(SECRET, body) },
      body,
    }).catch(() => undefined);
    if (res?.status === 200) return;
    await new Promise((r) => setTimeout(r, 20 + randomInt(50)));
  }
  throw new Error(`message never taken: ${body}`);
}

async function scriptFor(i: number): Promise<Script & { processorRef: string }> {
  const c = await anApprovedCustomer(env, p, ['USD']);
  const usd = c.accounts.USD!;
  await fund(p, usd, 100_000);
  const res = await p.request({ method: 'POST', url: '/cards', payload: { cardholderId: c.customerId, form: 'VIRTUAL', fundingSources: [usd], platformCardId: `chaos-${i}-${randomUUID()}` } });
  expect(res.statusCode, res.body).toBe(201);
  const ref = res.json().processorRef as string;
  const flows: Script['flows'] = [];
  let expected = 100_000n;
  for (let k = 0; k < 3; k++) {
    const token = `tok-${randomUUID()}`;
    const amount = 1_000 + randomInt(5_000);
    const cleared = amount + (k === 1 ? 700 : 0); // the second authorization over-clears (a tip)
    const returned = k === 2 ? 400 : 0;
    const auth = { kind: 'AUTHORIZATION_REQUEST', processorRef: ref, issuerTransactionToken: token, messageKind: 'AUTHORIZATION', amount, currency: 'USD', merchant: { descriptor: `CHAOS SHOP ${k}` } };
    const ev = (type: string, extra: object) => ({ kind: 'EVENT', type, eventToken: `${token}:${type}`, processorRef: ref, issuerTransactionToken: token, ...extra });
    const events: object[] = [ev('CLEARING', { amount: cleared })];
    if (returned) events.push(ev('RETURN', { amount: returned }));
    flows.push({ auth, events });
    expected += -BigInt(cleared) + BigInt(returned);
  }
  return { usd, funded: 100_000n, expected, flows, processorRef: ref };
}

describe('card events under chaos', () => {
  it('repeated, shuffled processor events across an API crash and a Redis wipe are each applied once', async () => {
    const scripts: Script[] = [];
    for (let i = 0; i < CARDS; i++) scripts.push(await scriptFor(i));
    apis.push(await new ServiceProcess('api', childEnv(), await freePort()).start(), await new ServiceProcess('api', childEnv(), await freePort()).start());

    const sendFlow = async (flow: Script['flows'][number]) => {
      // The authorization is synchronous: the network waits for it (and may re-send it).
      await Promise.all([deliver(flow.auth), deliver(flow.auth)]);
      const copies = flow.events.flatMap((e) => (randomInt(2) ? [e, e] : [e, e, e]));
      copies.sort(() => randomInt(3) - 1);
      await Promise.all(copies.map((m) => deliver(m)));
    };
    const traffic = Promise.all(scripts.flatMap((s) => s.flows.map(sendFlow)));
    const faults = (async () => {
      await new Promise((r) => setTimeout(r, 300));
      await apis[0]!.kill();
      apis[0] = await new ServiceProcess('api', childEnv(), apis[0]!.port).start();
      await redis.kill();
      await redis.start();
    })();
    await Promise.all([traffic, faults]);

    for (const s of scripts) {
      expect(await balances(env, s.usd), s.usd).toEqual({ available: s.expected, held: 0n });
    }
    await expectLedgerConsistent(env, p.platformId);
    const txs = await env.deps.prisma.cardTransaction.findMany({ where: { platformId: p.platformId } });
    expect(txs).toHaveLength(CARDS * 3);
    const counts = await env.deps.prisma.$queryRaw<Array<{ type: string; n: bigint }>>`
      SELECT type, COUNT(*)::bigint AS n FROM webhook_events WHERE platform_id = ${p.platformId} AND type LIKE 'CARD_TRANSACTION.%' GROUP BY type`;
    const byType = Object.fromEntries(counts.map((c) => [c.type, Number(c.n)]));
    expect(byType['CARD_TRANSACTION.AUTHORIZED']).toBe(CARDS * 3);
    expect(byType['CARD_TRANSACTION.SETTLED']).toBe(CARDS * 3);
    // Each event was recorded once, whatever the number of deliveries.
    const events = await env.deps.prisma.cardEvent.count({ where: { platformId: p.platformId } });
    expect(events).toBe(CARDS * 4);
  }, 600_000);
});
