import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';
import { onStatement } from '../../src/platform/db.js';

/**
 * Issue 24 (24d), the statement budget of an Idempotency-Key: one `POST /quotes` with `immediatelyExecute`,
 * through HTTP and the payments worker until the payment is settled, sends as many SQL statements and Redis
 * commands with a key as without one. Counted where the service talks to them: every statement on its pg
 * pool (onStatement) and every command its ioredis clients send (the app's own and BullMQ's) under this
 * test's Redis prefix. The worker's statements of a payment are those whose values name its transaction.
 */

let env: TestEnv;
beforeAll(async () => {
  // The sandbox rail answers at once: the worker's submission settles the payment (no poll to wait for).
  env = await createTestEnv({ SANDBOX_RAIL_DELAY_SCALE: '0' });
}, 180_000);
afterAll(async () => {
  await env.close();
});

interface Sent {
  sql: Array<{ text: string; values: unknown[] }>;
  redis: string[];
}

/** Records every statement and Redis command of this test's service until the returned stop() is called. */
function recording(): { sent: Sent; stop: () => void } {
  const sent: Sent = { sql: [], redis: [] };
  const stopSql = onStatement(env.deps.prisma, (text, values) => sent.sql.push({ text: text.replace(/\s+/g, ' '), values: values ?? [] }));
  const prefix = env.config.REDIS_PREFIX;
  const proto = Redis.prototype as unknown as { sendCommand: (cmd: { name: string; args: unknown[] }, ...rest: unknown[]) => unknown };
  const original = proto.sendCommand;
  proto.sendCommand = function (this: unknown, cmd, ...rest) {
    if (cmd?.args?.some((a) => String(a).includes(prefix))) sent.redis.push(cmd.name);
    return original.call(this, cmd, ...rest);
  };
  return {
    sent,
    stop: () => {
      stopSql();
      proto.sendCommand = original;
    },
  };
}

async function counted<T>(fn: () => Promise<T>): Promise<{ result: T; sent: Sent }> {
  const r = recording();
  try {
    return { result: await fn(), sent: r.sent };
  } finally {
    r.stop();
  }
}

/** Whether a statement's values name `id` (directly or inside an array parameter). */
const names = (values: unknown[], id: string): boolean => values.some((v) => (Array.isArray(v) ? names(v, id) : v === id || (typeof v === 'string' && v.includes(id))));
const short = (s: { text: string }) => s.text.slice(0, 120);

async function setup(): Promise<{ p: TestPlatform; usd: string; dest: string }> {
  const workers = env.startWorkers();
  try {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    const dest = await anActiveExternalAccount(p, usdBankAccount(), c.customerId);
    await fund(p, c.accounts.USD!, 1_000_000);
    return { p, usd: c.accounts.USD!, dest };
  } finally {
    await workers.close();
  }
}

const payment = (s: { usd: string; dest: string }, amount: number) => ({
  source: { sourceType: 'ACCOUNT', accountId: s.usd },
  destination: { destinationType: 'ACCOUNT', accountId: s.dest },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: amount,
  immediatelyExecute: true,
});

/** Waits (bounded) until both payments are COMPLETED, reading on a connection of its own: the service's pool counts only the worker. */
async function settled(ids: string[]): Promise<void> {
  const db = new pg.Client({ connectionString: env.databaseUrl });
  await db.connect();
  try {
    for (let i = 0; i < 600; i++) {
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM transactions WHERE id = ANY($1::text[]) AND status = 'COMPLETED' AND reconcile_after IS NULL`, [ids]);
      if (rows[0]!.n === ids.length) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`${ids.join(', ')} did not settle`);
  } finally {
    await db.end();
  }
}

describe('an Idempotency-Key costs no statement and no Redis command (issue 24)', () => {
  it('keyed and unkeyed payments send the same statements and Redis commands, API and worker, until settled; a repeat is answered from the record', async () => {
    const s = await setup();
    // Warm the per-process caches (credentials, platform settings) as a running server has them.
    expect((await s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 100), headers: { 'idempotency-key': 'warm' } })).statusCode).toBe(201);
    expect((await s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 100) })).statusCode).toBe(201);

    // API: the request alone (no worker runs meanwhile).
    const unkeyed = await counted(() => s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 1_000) }));
    const keyed = await counted(() => s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 2_000), headers: { 'idempotency-key': 'e2e-1' } }));
    expect(unkeyed.result.statusCode, unkeyed.result.body).toBe(201);
    expect(keyed.result.statusCode, keyed.result.body).toBe(201);
    console.log(`API, no key: ${unkeyed.sent.sql.length} statements, Redis [${unkeyed.sent.redis.join(' ')}]\n  ${unkeyed.sent.sql.map(short).join('\n  ')}`);
    console.log(`API, key:    ${keyed.sent.sql.length} statements, Redis [${keyed.sent.redis.join(' ')}]\n  ${keyed.sent.sql.map(short).join('\n  ')}`);
    expect(keyed.sent.sql.length, keyed.sent.sql.map(short).join('\n')).toBe(unkeyed.sent.sql.length);
    expect(keyed.sent.redis).toEqual(unkeyed.sent.redis);
    // The key's record is written by the payment's own statement: the only statement naming the table.
    const idem = keyed.sent.sql.filter((x) => x.text.includes('idempotency_records'));
    expect(idem).toHaveLength(1);
    expect(idem[0]!.text).toMatch(/INSERT INTO quotes/);
    expect(unkeyed.sent.sql.some((x) => x.text.includes('idempotency_records'))).toBe(false);

    // Worker: both payments submitted and settled; each one's statements counted by its transaction id.
    const tU = unkeyed.result.json().transactionId as string;
    const tK = keyed.result.json().transactionId as string;
    const worker = recording();
    const workers = env.startWorkers();
    try {
      await settled([tU, tK]);
    } finally {
      await workers.close();
      worker.stop();
    }
    const ofU = worker.sent.sql.filter((x) => names(x.values, tU));
    const ofK = worker.sent.sql.filter((x) => names(x.values, tK));
    console.log(`worker, no key: ${ofU.length} statements\n  ${ofU.map(short).join('\n  ')}\nworker, key: ${ofK.length} statements\n  ${ofK.map(short).join('\n  ')}`);
    expect(ofU.length).toBeGreaterThan(0);
    expect(ofK.length, ofK.map(short).join('\n')).toBe(ofU.length);
    // The worker's work on a payment never looks at keys (only the retention sweep, per period, deletes expired records).
    expect(ofK.some((x) => x.text.includes('idempotency_records'))).toBe(false);
    expect(worker.sent.sql.filter((x) => x.text.includes('idempotency_records')).every((x) => x.text.trim().startsWith('DELETE FROM idempotency_records')), worker.sent.sql.filter((x) => x.text.includes('idempotency_records')).map(short).join('\n')).toBe(true);
    expect((await balances(env, s.usd)).held).toBe(0n);

    // The repeat: found through the unique index by the payment's statement, answered from the record by one read.
    const repeat = await counted(() => s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 2_000), headers: { 'idempotency-key': 'e2e-1' } }));
    console.log(`repeat: ${repeat.sent.sql.length} statements, Redis [${repeat.sent.redis.join(' ')}]\n  ${repeat.sent.sql.map(short).join('\n  ')}`);
    expect(repeat.result.statusCode, repeat.result.body).toBe(201);
    expect(repeat.result.headers['idempotent-replayed']).toBe('true');
    expect(repeat.result.json().id).toBe(keyed.result.json().id);
    const reads = repeat.sent.sql.filter((x) => /^\s*SELECT\b/i.test(x.text) && x.text.includes('idempotency_records'));
    expect(reads, repeat.sent.sql.map(short).join('\n')).toHaveLength(1);
    expect(repeat.sent.redis).toEqual([]);
    // Answered once more, with the same bytes; nothing moved.
    const again = await s.p.request({ method: 'POST', url: '/quotes', payload: payment(s, 2_000), headers: { 'idempotency-key': 'e2e-1' } });
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(repeat.result.body);
    const b = await balances(env, s.usd);
    expect(b.held).toBe(0n);
    expect(b.available).toBe(1_000_000n - 3_200n);
    await expectLedgerConsistent(env, s.p.platformId);
  }, 180_000);
});
