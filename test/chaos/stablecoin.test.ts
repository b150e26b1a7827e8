import { randomInt, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer, balances, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';
import { call, freePort, processEnv, ServiceProcess } from '../helpers/processes.js';
import { OwnRedis } from '../helpers/redis-server.js';
import { bridgePublicKeyPem, signHeader, startBridge, stopBridges } from '../helpers/issuer-bridge.js';
import { createSandboxIssuer } from '../../src/adapters/stablecoin-issuer/sandbox/index.js';
import type { StablecoinIssuer } from '../../src/adapters/stablecoin-issuer/port.js';
import { operatorSetTokenStatus } from '../../src/domains/stablecoin/stablecoins.service.js';
import { resourceKey } from '../../src/platform/ids.js';

/**
 * Stablecoin issuance with internal accounts under chaos (issue 26, anchor 26c): two API processes and a
 * worker on a Redis of the test's own, the sandbox issuer behind the http bridge (so the provider can push
 * signed webhooks). Mints funded from USD accounts into USDB accounts, WIRE-funded mints into USDB accounts
 * (funded by the provider, or left to expire) and burns from USDB accounts, each POST with an Idempotency-Key,
 * some sent twice to both APIs at once; the provider reports each operation two or three times to either API,
 * some operations fail at the provider (…902 at once, …904 after funding). Mid-stream the worker is killed -9
 * and restarted, an API is killed -9 and restarted, Redis is restarted empty. Afterwards every operation is
 * final, each hold/settle/release/credit was posted once, each account holds exactly what the final statuses
 * imply, every journal balances.
 */
const CUSTOMERS = Number(process.env.CHAOS_STABLECOIN_CUSTOMERS ?? 4);
const STEP_MS = 400;
const SERVICE_ENV = {
  STABLECOIN_RECONCILE_INTERVAL_MS: '200',
  OUTBOX_RELAY_INTERVAL_MS: '100',
  IDEMPOTENCY_LEASE_MS: '3000',
  JOB_SWEEP_INTERVAL_MS: '500',
  JOB_SWEEP_GRACE_MS: '1000',
  SHUTDOWN_TIMEOUT_MS: '3000',
};
const FINAL = ['COMPLETED', 'FAILED', 'EXPIRED'];
const USD_FUNDING = 10_000_000; // cents
const USDB_FUNDING = 100_000_000_000; // token minor units (6 decimals)

let env: TestEnv;
let p: TestPlatform;
let redis: OwnRedis;
let provider: StablecoinIssuer;
let bridgeEnv: Record<string, string>;
const apis: ServiceProcess[] = [];
const workers: ServiceProcess[] = [];

beforeAll(async () => {
  env = await createTestEnv();
  p = await env.platform();
  redis = await new OwnRedis().start();
  // The provider: the sandbox issuer on the test's database and the real clock, behind a loopback bridge.
  provider = createSandboxIssuer({ db: env.deps.prisma, now: () => Date.now(), stepMs: STEP_MS });
  const url = await startBridge(provider, () => env.deps.signer.publicKeyPem);
  bridgeEnv = { STABLECOIN_ISSUER_PROVIDER: 'http-issuer', ADAPTER_HTTP_ISSUER_URL: url, ADAPTER_HTTP_ISSUER_PUBLIC_KEY: bridgePublicKeyPem() };
}, 120_000);
afterAll(async () => {
  for (const x of [...apis, ...workers]) await x.kill();
  await redis?.kill();
  await stopBridges();
  await env?.close();
});

const childEnv = () => ({ ...processEnv(env, { ...SERVICE_ENV, ...bridgeEnv }), REDIS_URL: redis.url });
const pause = () => new Promise((r) => setTimeout(r, 30 + randomInt(70)));

/** A platform's client: the same call (same Idempotency-Key) on any live API until it is not "try again". */
async function reliably(method: string, path: string, body: unknown, key: string) {
  for (let attempt = 0; attempt < 600; attempt++) {
    const live = apis.filter((a) => a.running);
    const api = live[randomInt(live.length || 1)];
    if (api) {
      const res = await call(api.url, p.auth, method, path, body, { 'idempotency-key': key }).catch(() => undefined);
      if (res && res.status < 500 && !(res.status === 409 && res.json?.code === 'CONFLICT')) return res;
    }
    await pause();
  }
  throw new Error(`${method} ${path} never succeeded`);
}

/** The provider's push (`{"reference"}`, signed by the bridge), re-sent until a live API takes it. */
async function push(reference: string): Promise<void> {
  const body = JSON.stringify({ reference });
  for (let attempt = 0; attempt < 600; attempt++) {
    const live = apis.filter((a) => a.running);
    const api = live[randomInt(live.length || 1)];
    const res = api
      ? await fetch(`${api.url}/2025-10-13/adapters/http-issuer/webhooks`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-bridge-signature': signHeader(body) }, body }).catch(() => undefined)
      : undefined;
    if (res?.status === 200) return;
    await pause();
  }
  throw new Error(`push never taken: ${reference}`);
}
const pushRepeatedly = (reference: string) => Promise.all(Array.from({ length: 2 + randomInt(2) }, () => push(reference)));

/** A fiat amount in cents whose tail is no sandbox magic value (…902–…904), or one with the given tail. */
const fiat = (tail?: number) => 1000 * (1 + randomInt(20)) + (tail ?? randomInt(900));

interface Planned { key: string; kind: 'MINT' | 'WIRE_MINT' | 'BURN'; body: object; twice: boolean; expire?: boolean; id?: string }

describe('stablecoin issuance with internal accounts under chaos', () => {
  it('mints and burns across worker and API crashes and a Redis wipe move each amount once', async () => {
    const customers: Array<{ usd: string; usdb: string }> = [];
    for (let i = 0; i < CUSTOMERS; i++) {
      const c = await anApprovedCustomer(env, p, ['USD', 'USDB']);
      await fund(p, c.accounts.USD!, USD_FUNDING);
      await fund(p, c.accounts.USDB!, USDB_FUNDING);
      customers.push({ usd: c.accounts.USD!, usdb: c.accounts.USDB! });
    }

    apis.push(await new ServiceProcess('api', childEnv(), await freePort()).start(), await new ServiceProcess('api', childEnv(), await freePort()).start());
    workers.push(await new ServiceProcess('worker', childEnv()).start());

    const link = await reliably('POST', '/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: `chaos-${randomUUID().slice(0, 8)}`, apiClientSecret: 'sandbox-secret-1' }, randomUUID());
    expect(link.status, link.text).toBe(201);
    const token = await reliably('POST', '/stablecoins', { providerTokenIdentifier: 'USDB', networkTokenIdentifier: `btkn1${randomUUID().replace(/-/g, '')}`, network: 'SPARK' }, randomUUID());
    expect(token.status, token.text).toBe(201);
    await operatorSetTokenStatus(env.deps, p.platformId, token.json.id, 'PENDING_APPROVAL');
    await operatorSetTokenStatus(env.deps, p.platformId, token.json.id, 'ENABLED');
    // The payout bank account, created (and checked by the worker) through the processes under test.
    const ext = await reliably('POST', '/platform/external-accounts', usdBankAccount('123456789'), randomUUID());
    expect(ext.status, ext.text).toBe(201);
    const bank = ext.json.id as string;
    await eventually(async () => (await call(apis[1]!.url, p.auth, 'GET', `/platform/external-accounts/${bank}`)).json?.status === 'ACTIVE', 60_000, 100);

    // The plan: per customer three internal mints (one failing after funding on even customers, one refused at
    // once on the first), two WIRE mints into the USDB account (one funded, one left to expire), two burns
    // (one failing after funding on odd customers).
    const plan: Planned[] = [];
    customers.forEach((c, i) => {
      for (let k = 0; k < 3; k++) {
        const tail = k === 0 && i % 2 === 0 ? 904 : k === 1 && i === 0 ? 902 : undefined;
        plan.push({ key: randomUUID(), kind: 'MINT', twice: k !== 2, body: { amount: String(fiat(tail) * 10_000), fundingSource: { type: 'GRID_INTERNAL_ACCOUNT', accountId: c.usd }, destination: { accountId: c.usdb } } });
      }
      for (let k = 0; k < 2; k++) {
        plan.push({ key: randomUUID(), kind: 'WIRE_MINT', twice: k === 0, expire: k === 1, body: { amount: String(fiat() * 10_000), fundingSource: { type: 'WIRE' }, destination: { accountId: c.usdb } } });
      }
      for (let k = 0; k < 2; k++) {
        const tail = k === 0 && i % 2 === 1 ? 904 : undefined;
        plan.push({ key: randomUUID(), kind: 'BURN', twice: k === 1, body: { amount: String(fiat(tail) * 10_000), source: { type: 'GRID_INTERNAL_ACCOUNT', accountId: c.usdb }, destination: { type: 'EXTERNAL_ACCOUNT', externalAccountId: bank, rail: 'ACH_CREDIT' } } });
      }
    });
    const ops = () => env.deps.prisma.stablecoinOperation.findMany({ where: { platformId: p.platformId } });

    const traffic = Promise.all(plan.map(async (o) => {
      const path = `/stablecoins/${token.json.id}/${o.kind === 'BURN' ? 'burns' : 'mints'}`;
      const answers = await Promise.all(Array.from({ length: o.twice ? 2 : 1 }, () => reliably('POST', path, o.body, o.key)));
      for (const a of answers) expect(a.status, a.text).toBe(201);
      expect(new Set(answers.map((a) => a.json.id)).size).toBe(1);
      o.id = answers[0]!.json.id;
      const row = await env.deps.prisma.stablecoinOperation.findFirstOrThrow({ where: { platformId: p.platformId, id: o.id } });
      if (o.kind === 'WIRE_MINT') {
        expect(answers[0]!.json.status).toBe('PENDING_FUNDING');
        // The provider's funding window passes for one; the issuer's wire reaches the provider for the other.
        if (o.expire) await env.deps.prisma.stablecoinOperation.updateMany({ where: { platformId: p.platformId, id: o.id, status: 'PENDING_FUNDING' }, data: { expiresAt: new Date(Date.now() - 1000) } });
        else expect(await provider.simulateFunding!(row.providerOperationId!)).toBe(true);
      }
      if (row.providerOperationId && !o.expire) await pushRepeatedly(row.providerOperationId);
    }));
    const faults = (async () => {
      // Mid-stream: once a third of the operations exist.
      await eventually(async () => (await env.deps.prisma.stablecoinOperation.count({ where: { platformId: p.platformId } })) >= plan.length / 3, 120_000, 50);
      await workers[0]!.kill();
      workers[0] = await new ServiceProcess('worker', childEnv()).start();
      await apis[0]!.kill();
      apis[0] = await new ServiceProcess('api', childEnv(), apis[0]!.port).start();
      await redis.restartEmpty();
    })();
    await Promise.all([traffic, faults]);

    // The provider keeps reporting operations that are not final yet (its retries); the worker's reconciliation runs too.
    await eventually(async () => {
      const open = (await ops()).filter((o) => !FINAL.includes(o.status));
      for (const o of open) if (o.providerOperationId && o.status !== 'PENDING_FUNDING') await push(o.providerOperationId);
      return open.length === 0;
    }, 120_000, 300);

    // One operation per Idempotency-Key, each in the final status its provider scenario implies.
    const rows = await ops();
    expect(rows).toHaveLength(plan.length);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const o of plan) {
      const r = byId.get(o.id!)!;
      const tail = r.fiatAmount % 1000n;
      const expected = o.expire ? 'EXPIRED' : tail === 902n || tail === 904n ? 'FAILED' : 'COMPLETED';
      expect(r.status, `${o.kind} ${r.id} fiat ${r.fiatAmount}`).toBe(expected);
    }
    expect(new Set(rows.map((r) => r.status))).toEqual(new Set(FINAL));

    // Each step posted once: a final status reached once, every journal kind at most once per operation.
    const finals = await env.deps.prisma.statusChange.groupBy({ by: ['resourceId', 'toStatus'], where: { resourceId: { in: rows.map((r) => resourceKey(r.id)) }, toStatus: { in: FINAL } }, _count: true });
    expect(finals).toHaveLength(rows.length);
    expect(finals.every((f) => f._count === 1)).toBe(true);
    const journals = await env.deps.prisma.ledgerJournal.groupBy({ by: ['referenceId', 'kind'], where: { platformId: p.platformId, referenceId: { in: rows.map((r) => resourceKey(r.id)) } }, _count: true });
    expect(journals.every((j) => j._count === 1), JSON.stringify(journals.filter((j) => j._count !== 1))).toBe(true);
    for (const r of rows) {
      const kinds = journals.filter((j) => j.referenceId === resourceKey(r.id)).map((j) => j.kind).sort();
      const internalSource = (r.source as { type?: string }).type === 'GRID_INTERNAL_ACCOUNT';
      const held = kinds.includes('STABLECOIN_HOLD');
      const expected = [
        ...(held ? ['STABLECOIN_HOLD'] : []),
        ...(r.status === 'COMPLETED' && r.operationType === 'MINT' ? ['STABLECOIN_MINT_CREDIT'] : []),
        ...(held && r.status !== 'COMPLETED' ? ['STABLECOIN_RELEASE'] : []),
        ...(held && r.status === 'COMPLETED' ? ['STABLECOIN_SETTLE'] : []),
      ].sort();
      expect(kinds, `${r.operationType} ${r.status} ${r.id}`).toEqual(expected);
      if (internalSource && r.status === 'COMPLETED') expect(held).toBe(true);
      if (!internalSource) expect(held).toBe(false);
    }

    // Balances exact to the minor unit, from the final statuses.
    const completed = rows.filter((r) => r.status === 'COMPLETED');
    const src = (r: (typeof rows)[number]) => (r.source as { accountId?: string }).accountId;
    const dst = (r: (typeof rows)[number]) => (r.destination as { accountId?: string }).accountId;
    for (const c of customers) {
      const paid = completed.filter((r) => r.operationType === 'MINT' && src(r) === c.usd).reduce((s, r) => s + r.fiatAmount, 0n);
      const minted = completed.filter((r) => r.operationType === 'MINT' && dst(r) === c.usdb).reduce((s, r) => s + r.amount, 0n);
      const burned = completed.filter((r) => r.operationType === 'BURN' && src(r) === c.usdb).reduce((s, r) => s + r.amount, 0n);
      expect(await balances(env, c.usd), c.usd).toEqual({ available: BigInt(USD_FUNDING) - paid, held: 0n });
      expect(await balances(env, c.usdb), c.usdb).toEqual({ available: BigInt(USDB_FUNDING) + minted - burned, held: 0n });
    }
    await expectLedgerConsistent(env, p.platformId);
  }, 600_000);
});
