import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer, balances, expectLedgerConsistent, fund } from '../helpers/builders.js';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { onStatement, poolOf } from '../../src/platform/db.js';
import { SANDBOX_PROCESSOR_SIGNATURE, signSandboxMessage } from '../../src/adapters/card-issuer/sandbox/index.js';

/**
 * Issue 27 item 4: an authorization decision is cheap by construction, so a card network's deadline
 * holds on a loaded machine. Counted while the API serves a signed AUTHORIZATION_REQUEST pushed to the
 * issuer port (`POST /adapters/card-sandbox/webhooks`, what the processor calls): statements sent to
 * Postgres (BEGIN/COMMIT included) and commands sent to Redis by any client (BullMQ's included).
 */
const BUDGET = {
  /** The card's facts cached: the one writing statement (decide, hold, row, history, events, journal). */
  warm: 1,
  /** First sight of a card in this process: its facts read, then the statement. */
  cold: 2,
  redisCommands: 0,
};
const SECRET = 'budget-processor-secret';

/** CPU ms a process has used (utime + stime, Linux /proc; ticks of 10 ms); 0 where /proc is missing. */
function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}

let env: TestEnv;
let p: TestPlatform;
beforeAll(async () => {
  env = await createTestEnv({ ADAPTER_CARD_SANDBOX_SECRET: SECRET });
  p = await env.platform();
});
afterAll(() => env.close());

let seq = 0;
async function aUsdCard(funded: number, extra: Record<string, unknown> = {}) {
  const c = await anApprovedCustomer(env, p, ['USD']);
  const usd = c.accounts.USD!;
  if (funded > 0) await fund(p, usd, funded);
  const res = await p.request({ method: 'POST', url: '/cards', payload: { cardholderId: c.customerId, form: 'VIRTUAL', fundingSources: [usd], platformCardId: `budget-${++seq}-${Date.now()}x`, ...extra } });
  expect(res.statusCode, res.body).toBe(201);
  return { card: res.json(), usd };
}

/** The processor's push: a signed authorization request; the answer is the decision. */
async function authorize(processorRef: string, amount: number, token = `tok-${++seq}-${Date.now()}`) {
  const body = JSON.stringify({ kind: 'AUTHORIZATION_REQUEST', processorRef, issuerTransactionToken: token, messageKind: 'AUTHORIZATION', amount, currency: 'USD', merchant: { descriptor: 'BUDGET CAFE', mcc: '5814', country: 'US' } });
  const res = await env.app.inject({ method: 'POST', url: '/2025-10-13/adapters/card-sandbox/webhooks', headers: { 'content-type': 'application/json', [SANDBOX_PROCESSOR_SIGNATURE]: signSandboxMessage(SECRET, body) }, payload: body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { approved: boolean; cardTransactionId: string; reason?: string; heldAmount?: number };
}

/** Statements on the app's pool and Redis commands of every ioredis client while `fn` runs. */
async function counted<T>(fn: () => Promise<T>): Promise<{ result: T; statements: string[]; redis: string[] }> {
  const statements: string[] = [];
  const redis: string[] = [];
  const stop = onStatement(env.deps.prisma, (text) => statements.push(text.replace(/\s+/g, ' ').slice(0, 120)));
  const proto = Redis.prototype as unknown as { sendCommand: (cmd: { name: string }) => unknown };
  const send = proto.sendCommand;
  proto.sendCommand = function (this: unknown, cmd: { name: string }) {
    redis.push(cmd.name);
    return send.apply(this, [cmd]);
  };
  try {
    return { result: await fn(), statements, redis };
  } finally {
    stop();
    proto.sendCommand = send;
  }
}

describe('statement budget of a card authorization', () => {
  it(`an approval costs ${BUDGET.cold} statements on first sight of the card, then ${BUDGET.warm}, with no Redis command, and holds once`, async () => {
    const { card, usd } = await aUsdCard(10_000);
    const cold = await counted(() => authorize(card.processorRef, 1_000));
    expect(cold.result).toMatchObject({ approved: true, heldAmount: 1_000 });
    expect(cold.statements.length, cold.statements.join('\n')).toBeLessThanOrEqual(BUDGET.cold);
    const warm = await counted(() => authorize(card.processorRef, 2_000));
    console.log(`warm authorization: ${warm.statements.length} statement(s), ${warm.redis.length} Redis command(s)\n  ${warm.statements.join('\n  ')}`);
    expect(warm.result).toMatchObject({ approved: true, heldAmount: 2_000 });
    expect(warm.statements.length, warm.statements.join('\n')).toBe(BUDGET.warm);
    expect(warm.redis, warm.redis.join(' ')).toHaveLength(BUDGET.redisCommands);
    expect(await balances(env, usd)).toEqual({ available: 7_000n, held: 3_000n });
    const tx = (await p.request({ method: 'GET', url: `/transactions/${warm.result.cardTransactionId}` })).json();
    expect(tx).toMatchObject({ type: 'CARD', status: 'AUTHORIZED', cardId: card.id, accountId: usd, authorizedAmount: { amount: 2_000 } });
    await expectLedgerConsistent(env, p.platformId);
  });

  it('a decline (over maxSpendPerTransaction, then insufficient funds) costs one statement and writes only the decline record', async () => {
    const { card, usd } = await aUsdCard(1_000, { maxSpendPerTransaction: 5_000 });
    await authorize(card.processorRef, 100);
    const over = await counted(() => authorize(card.processorRef, 5_001));
    expect(over.result).toMatchObject({ approved: false, reason: 'SPEND_LIMIT_EXCEEDED' });
    expect(over.statements).toHaveLength(1);
    expect(over.redis).toHaveLength(0);
    // The balance is the ledger's guard inside the same statement: the decline is written by it too.
    const poor = await counted(() => authorize(card.processorRef, 1_000));
    expect(poor.result).toMatchObject({ approved: false, reason: 'INSUFFICIENT_FUNDS' });
    expect(poor.statements).toHaveLength(1);
    expect(await balances(env, usd)).toEqual({ available: 900n, held: 100n });
    for (const id of [over.result.cardTransactionId, poor.result.cardTransactionId]) {
      expect((await p.request({ method: 'GET', url: `/transactions/${id}` })).json()).toMatchObject({ status: 'DECLINED', authorizedAmount: { amount: 0 } });
      const evs = (await p.request({ method: 'GET', url: `/webhook-events?resourceId=${encodeURIComponent(id)}` })).json().data;
      expect(evs.filter((e: any) => String(e.type).startsWith('CARD_TRANSACTION.'))).toHaveLength(0);
    }
    await expectLedgerConsistent(env, p.platformId);
  });

  it('a cached card frozen since is declined CARD_PAUSED: the statement re-checks the facts it was decided on', async () => {
    const { card, usd } = await aUsdCard(5_000);
    expect((await authorize(card.processorRef, 100)).approved).toBe(true);
    // Frozen behind the cache's back (as another process would): the cached facts are stale.
    await env.deps.prisma.card.updateMany({ where: { id: card.id }, data: { state: 'FROZEN' } });
    const frozen = await counted(() => authorize(card.processorRef, 100));
    expect(frozen.result).toMatchObject({ approved: false, reason: 'CARD_PAUSED' });
    // The stale write (nothing written), the facts read again, the decline.
    expect(frozen.statements).toHaveLength(3);
    await env.deps.prisma.card.updateMany({ where: { id: card.id }, data: { state: 'ACTIVE' } });
    expect((await authorize(card.processorRef, 100)).approved).toBe(true);
    expect(await balances(env, usd)).toEqual({ available: 4_800n, held: 200n });
  });

  it('concurrent authorizations beyond the balance: exactly what the balance covers is held, the rest declined, a retried token answered once', async () => {
    const { card, usd } = await aUsdCard(10_000);
    await authorize(card.processorRef, 1);
    const answers = await Promise.all(Array.from({ length: 24 }, () => authorize(card.processorRef, 1_000)));
    expect(answers.filter((a) => a.approved)).toHaveLength(9);
    expect(answers.filter((a) => !a.approved).every((a) => a.reason === 'INSUFFICIENT_FUNDS')).toBe(true);
    const again = await Promise.all(Array.from({ length: 4 }, () => authorize(card.processorRef, 500, 'tok-same-concurrent')));
    expect(new Set(again.map((a) => a.cardTransactionId)).size).toBe(1);
    expect(again.every((a) => a.approved)).toBe(true);
    expect(await balances(env, usd)).toEqual({ available: 499n, held: 9_501n });
    await expectLedgerConsistent(env, p.platformId);
  });

  it('200 warm decisions in a row hold exactly their sum (and the CPU per decision is logged)', async () => {
    const { card, usd } = await aUsdCard(1_000_000);
    await authorize(card.processorRef, 1);
    const n = Number(process.env.CARD_BUDGET_DECISIONS ?? 200);
    // The pool's backends (27d): Postgres's CPU per decision, from /proc, whatever else the machine runs.
    const backends = (await poolOf(env.deps.prisma).query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`)).rows.map((r) => r.pid);
    const pgBefore = backends.map(cpuMsOf);
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) await authorize(card.processorRef, 10);
    const used = process.cpuUsage(before);
    const pgMs = backends.reduce((sum, pid, i) => sum + cpuMsOf(pid) - pgBefore[i]!, 0);
    console.log(`CPU per warm decision: API + inject + test (one process) ${((used.user + used.system) / n / 1000).toFixed(2)} ms, Postgres ${(pgMs / n).toFixed(2)} ms (${n} decisions, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')})`);
    expect(await balances(env, usd)).toEqual({ available: 1_000_000n - 1n - 10n * BigInt(n), held: 1n + 10n * BigInt(n) });
  });
});
