import { randomInt, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer, balances, expectLedgerConsistent } from '../helpers/builders.js';
import { ServiceProcess, freePort, processEnv } from '../helpers/processes.js';
import { OwnRedis } from '../helpers/redis-server.js';
import { newId } from '../../src/platform/ids.js';
import { operatorSetInternalAccountStatus } from '../../src/domains/ledger/index.js';
import { sweepCoordinates } from '../../src/domains/collection/coordinates.service.js';
import { receiveCollectionCredit } from '../../src/domains/collection/index.js';
import { SANDBOX_COLLECTION_SIGNATURE, signSandboxCollection, type SandboxCollection } from '../../src/adapters/collection/sandbox/index.js';
import { creditToWire } from '../../src/adapters/collection/protocol.js';
import type { CollectionCredit } from '../../src/adapters/collection/port.js';

/**
 * Pay-in credits under chaos (issue 26 item 1): every credit is known to the sandbox bank (so the worker's
 * reconciliation poll finds it) and pushed two or three times to two API processes at once; one credit was
 * claimed by a worker that died before applying it, another was written by a worker that died before marking
 * it; the worker and an API process are killed -9 mid-stream and restarted, and Redis is killed and restarted
 * empty. Afterwards each credit was taken exactly once: one INCOMING transaction each, balances exact to the
 * minor unit, every journal balanced, the frozen account's credits held (COLLECTION_FAILED) and never credited.
 */
const ACCOUNTS = Number(process.env.CHAOS_COLLECTION_ACCOUNTS ?? 8);
const SECRET = 'chaos-collection-secret';
const SETTINGS = { COLLECTION_PROVIDER: 'sandbox', ADAPTER_COLLECTION_SANDBOX_SECRET: SECRET, PROVIDER_TIMEOUT_MS: '1000', COLLECTION_POLL_INTERVAL_MS: '150', COLLECTION_SWEEP_INTERVAL_MS: '150' };

let env: TestEnv;
let p: TestPlatform;
let redis: OwnRedis;
const processes: ServiceProcess[] = [];

beforeAll(async () => {
  env = await createTestEnv(SETTINGS);
  p = await env.platform();
  redis = await new OwnRedis().start();
}, 120_000);
afterAll(async () => {
  for (const s of processes) await s.kill();
  await redis?.kill();
  await env?.close();
});

const childEnv = () => ({ ...processEnv(env, SETTINGS), REDIS_URL: redis.url });

/** One provider push, re-sent until the service takes it (200), as providers do. */
async function push(apis: ServiceProcess[], credit: CollectionCredit): Promise<void> {
  const body = JSON.stringify({ kind: 'CREDIT', ...creditToWire(credit) });
  for (let attempt = 0; attempt < 400; attempt++) {
    const api = apis[randomInt(apis.length)]!;
    const res = await fetch(`${api.url}/2025-10-13/adapters/collection-sandbox/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SANDBOX_COLLECTION_SIGNATURE]: signSandboxCollection(SECRET, body) },
      body,
    }).catch(() => undefined);
    if (res?.status === 200) return;
    await new Promise((r) => setTimeout(r, 20 + randomInt(50)));
  }
  throw new Error(`credit never taken: ${body}`);
}

describe('pay-in credits under chaos', () => {
  it('credits pushed repeatedly and polled, across worker and API crashes and a Redis wipe, are each taken once', async () => {
    const bank = env.deps.adapters.collection as SandboxCollection;
    const accounts: Array<{ id: string; frozen: boolean }> = [];
    for (let i = 0; i <= ACCOUNTS; i++) accounts.push({ id: (await anApprovedCustomer(env, p, ['USD'])).accounts.USD!, frozen: i === ACCOUNTS });
    while ((await sweepCoordinates(env.deps)) > 0);
    await operatorSetInternalAccountStatus(env.deps, accounts.at(-1)!.id, 'FROZEN');

    // The bank receives every credit (recorded, not pushed: the poll will find them all).
    const credits: Array<{ account: string; frozen: boolean; credit: CollectionCredit }> = [];
    for (const a of accounts) {
      const coordinates = await env.deps.prisma.collectionCoordinates.findMany({ where: { internalAccountId: a.id, status: 'OPEN' } });
      for (let k = 0; k < 3; k++) {
        const c = coordinates[k % coordinates.length]!;
        const { credit } = await bank.simulateCredit({ creditId: `chaos-${randomUUID()}`, reference: c.reference!, rail: c.rail, amount: BigInt(1 + randomInt(1_000_000)), currency: 'USD' }, { push: false });
        credits.push({ account: a.id, frozen: a.frozen, credit });
      }
    }
    // A worker died after claiming one credit, before applying it.
    const claimed = credits[0]!;
    const coords = await env.deps.prisma.collectionCoordinates.findFirstOrThrow({ where: { adapterId: bank.id, reference: claimed.credit.reference } });
    await env.deps.prisma.collectionCredit.create({
      data: { id: newId('CollectionCredit'), adapterId: bank.id, providerCreditId: claimed.credit.creditId, platformId: p.platformId, internalAccountId: coords.internalAccountId, coordinatesId: coords.id, transactionId: newId('Transaction'), reference: claimed.credit.reference, rail: claimed.credit.rail, amount: claimed.credit.amount, currency: 'USD', status: 'RECEIVED', receivedAt: claimed.credit.receivedAt },
    });
    // Another died after writing its credit, before marking it applied.
    const written = credits[1]!;
    expect(await receiveCollectionCredit(env.deps, bank.id, written.credit)).toBe('APPLIED');
    await env.deps.prisma.collectionCredit.updateMany({ where: { providerCreditId: written.credit.creditId }, data: { status: 'RECEIVED' } });

    const apis = [await new ServiceProcess('api', childEnv(), await freePort()).start(), await new ServiceProcess('api', childEnv(), await freePort()).start()];
    let worker = await new ServiceProcess('worker', childEnv()).start();
    processes.push(...apis, worker);

    const traffic = Promise.all(credits.flatMap(({ credit }) => Array.from({ length: 2 + randomInt(2) }, () => push(apis, credit))));
    const faults = (async () => {
      await new Promise((r) => setTimeout(r, 200));
      await worker.kill();
      worker = await new ServiceProcess('worker', childEnv()).start();
      processes.push(worker);
      await apis[0]!.kill();
      apis[0] = await new ServiceProcess('api', childEnv(), apis[0]!.port).start();
      processes.push(apis[0]);
      await redis.kill();
      await redis.start();
    })();
    await Promise.all([traffic, faults]);

    // The worker's finishing sweep takes the two crashed credits once they are older than their lease.
    await eventually(async () => (await env.deps.prisma.collectionCredit.count({ where: { status: 'RECEIVED' } })) === 0, 180_000, 200);

    const rows = await env.deps.prisma.collectionCredit.findMany({ where: { adapterId: bank.id } });
    expect(rows).toHaveLength(credits.length);
    for (const a of accounts) {
      const expected = a.frozen ? 0n : credits.filter((c) => c.account === a.id).reduce((s, c) => s + c.credit.amount, 0n);
      expect(await balances(env, a.id), a.id).toEqual({ available: expected, held: 0n });
    }
    const applied = credits.filter((c) => !c.frozen).length;
    expect(rows.filter((r) => r.status === 'APPLIED')).toHaveLength(applied);
    expect(rows.filter((r) => r.status === 'HELD').map((r) => r.heldReason)).toEqual(['ACCOUNT_FROZEN', 'ACCOUNT_FROZEN', 'ACCOUNT_FROZEN']);
    const txs = await env.deps.prisma.transaction.groupBy({ by: ['status'], where: { platformId: p.platformId, type: 'INCOMING' }, _count: true });
    expect(Object.fromEntries(txs.map((t) => [t.status, t._count]))).toEqual({ COMPLETED: applied, FAILED: 3 });
    const events = await env.deps.prisma.$queryRaw<Array<{ type: string; n: bigint }>>`
      SELECT type, COUNT(*)::bigint AS n FROM webhook_events WHERE platform_id = ${p.platformId} AND type LIKE 'INCOMING_PAYMENT.%' GROUP BY type`;
    expect(Object.fromEntries(events.map((e) => [e.type, Number(e.n)]))).toEqual({ 'INCOMING_PAYMENT.COMPLETED': applied, 'INCOMING_PAYMENT.FAILED': 3 });
    await expectLedgerConsistent(env, p.platformId);
  }, 600_000);
});
