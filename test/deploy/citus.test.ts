/**
 * Issue 29 (29c): the Citus rehearsal's own checks, run only against a Citus cluster
 * (TEST_CITUS_WORKERS, docs/deploy.md "Citus"; CI runs plain PostgreSQL and skips this file).
 * - the schema is distributed as db:migrate's plan says (tenant tables co-located on platform_id);
 * - a platform's shards of every tenant table are on one worker;
 * - starting payments through HTTP executes no multi-shard statement (citus_stat_counters), and the
 *   money stays exact (ledger consistent, balances moved by the amounts paid).
 * It prints the single-shard executions per payment (the rehearsal's figure in docs/decisions.md), and the
 * remote commands per payment (29d): `citus.log_remote_commands` sends each command the coordinator issues
 * to a worker to the client as a NOTICE naming the worker; those of each payment's request are counted, and
 * every command of a payment's start goes to the platform's one worker, none to the others (29e: the
 * balance-updated events are a co-located INSERT … SELECT pushed down to the platform's shard; before, an
 * INSERT … SELECT via the coordinator read the balance update's CTE, whose results Citus sends to every
 * worker — intermediate_result_pruning.c, SUBPLAN_ACCESS_ANYWHERE — and every worker joined the commit).
 * Settling them (the payments worker's jobs and the sweeps) writes only on the platform's worker: the
 * sweeps read every shard group (one group per shard, 29a), so the other workers see reads, no write and
 * no transaction of these payments.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolOf } from '../../src/platform/db.js';
import { createTestEnv, eventually, type TestEnv } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';
import { TENANT_COLUMN } from '../../src/platform/tenant-tables.js';

const onCitus = Boolean(process.env.TEST_CITUS_WORKERS);
const PAYMENTS = 20;

describe.skipIf(!onCitus)('on a Citus cluster (rehearsal only)', () => {
  let env: TestEnv;
  let db: pg.Client;
  beforeAll(async () => {
    env = await createTestEnv({ SANDBOX_RAIL_DELAY_SCALE: '0' }, { databaseSettings: { 'citus.log_remote_commands': 'on', client_min_messages: 'notice' } });
    db = new pg.Client({ connectionString: env.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await env?.close();
  });

  /** Remote commands the service's connections issued while `fn` ran: the worker (host:port) and text of each. */
  const remoteCommands = async (fn: () => Promise<void>): Promise<Array<{ node: string; command: string; client: number }>> => {
    const seen: Array<{ node: string; command: string; client: number }> = [];
    const pool = poolOf(env.deps.prisma);
    const hooked = new WeakSet<object>();
    let clients = 0;
    const hook = (client: pg.PoolClient) => {
      if (hooked.has(client)) return;
      hooked.add(client);
      const id = ++clients;
      client.on('notice', (n) => {
        if (!listening || !String(n.message).startsWith('issuing ')) return;
        // DETAIL: "on server postgres@127.0.0.1:5442 connectionId: 3"
        seen.push({ node: /on server \S*@(\S+)/.exec(String(n.detail ?? ''))?.[1] ?? '?', command: String(n.message).slice('issuing '.length), client: id });
      });
    };
    let listening = true;
    pool.on('connect', hook);
    pool.on('acquire', hook);
    try {
      await fn();
    } finally {
      listening = false;
      pool.off('connect', hook);
      pool.off('acquire', hook);
    }
    return seen;
  };

  const counters = async () => {
    const r = await db.query<{ single: string; multi: string }>(
      `SELECT query_execution_single_shard AS single, query_execution_multi_shard AS multi FROM citus_stat_counters WHERE name = current_database()`,
    );
    return { single: Number(r.rows[0]!.single), multi: Number(r.rows[0]!.multi) };
  };

  it('distributes every tenant table by platform_id in one co-location group', async () => {
    const r = await db.query<{ table: string; column: string | null; colocation: number; method: string }>(
      `SELECT c.relname AS table, column_to_column_name(p.logicalrelid, p.partkey) AS column, p.colocationid AS colocation, p.partmethod AS method
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         LEFT JOIN pg_dist_partition p ON p.logicalrelid = c.oid
        WHERE n.nspname = 'public' AND c.relkind = 'r'
          AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = $1 AND NOT a.attisdropped)
          AND c.relname NOT IN ('tenant_lookups', 'collection_credits')`,
      [TENANT_COLUMN],
    );
    expect(r.rows.length).toBeGreaterThan(20);
    expect(r.rows.filter((x) => x.method !== 'h' || x.column !== TENANT_COLUMN).map((x) => x.table)).toEqual([]);
    expect(new Set(r.rows.map((x) => x.colocation)).size).toBe(1);
  });

  it('starts and settles payments through HTTP with single-shard statements only, on the platform’s one worker', async () => {
    const workers = env.startWorkers();
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    const dest = await anActiveExternalAccount(p, usdBankAccount(), c.customerId);
    await fund(p, c.accounts.USD!, 1_000_000);
    await workers.close();

    const nodes = await db.query<{ node: string }>(
      `SELECT DISTINCT s.nodename || ':' || s.nodeport AS node
         FROM pg_dist_partition p JOIN pg_dist_shard_placement s ON s.shardid = get_shard_id_for_distribution_column(p.logicalrelid, $1::text)
        WHERE p.partmethod = 'h' AND column_to_column_name(p.logicalrelid, p.partkey) = $2`,
      [p.platformId, TENANT_COLUMN],
    );
    expect(nodes.rows.length, nodes.rows.map((n) => n.node).join(', ')).toBe(1);

    const before = await counters();
    const ids: string[] = [];
    const perPayment: Array<Array<{ node: string; command: string }>> = [];
    for (let i = 0; i < PAYMENTS; i++) {
      perPayment.push(await remoteCommands(async () => {
        const res = await p.request({
          method: 'POST',
          url: '/quotes',
          payload: { source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1000, immediatelyExecute: true },
        });
        expect(res.statusCode, res.body).toBe(201);
        ids.push(res.json().transactionId as string);
      }));
    }
    const after = await counters();
    console.log(`citus: ${PAYMENTS} payments started through HTTP on ${nodes.rows[0]!.node}: ${(after.single - before.single) / PAYMENTS} single-shard and ${(after.multi - before.multi) / PAYMENTS} multi-shard executions per payment`);
    const commands = perPayment.map((s) => s.length);
    console.log(`citus: remote commands per payment: ${commands.join(' ')} (mean ${(commands.reduce((a, b) => a + b, 0) / PAYMENTS).toFixed(2)}), workers reached: ${[...new Set(perPayment.flat().map((s) => s.node))].join(', ')}`);
    if (process.env.CITUS_DEBUG) console.log(perPayment[1]!.map((x) => `${x.node}: ${x.command.replace(/\s+/g, ' ').slice(0, 400)}`).join('\n'));
    expect(after.multi - before.multi).toBe(0);
    // Each payment's rows on one worker, the platform's: every command naming a shard (`<table>_<shard id>`) goes there.
    const home = nodes.rows[0]!.node;
    const shardCommand = (command: string) => /\b[a-z_]+_\d{6,}\b/.test(command);
    for (const s of perPayment) {
      const away = s.filter((x) => x.node !== home && shardCommand(x.command)).map((x) => `${x.node}: ${x.command.slice(0, 300)}`);
      expect(away, away.join('\n')).toEqual([]);
    }
    const elsewhere = perPayment.map((s) => s.filter((x) => x.node !== home).length);
    console.log(`citus: commands to the other workers per payment: ${elsewhere.join(' ')}`);
    expect(elsewhere.filter((n) => n > 0)).toEqual([]);
    const prepared = perPayment.map((s) => s.filter((x) => /^PREPARE TRANSACTION/.test(x.command)).length);
    console.log(`citus: commit per payment: ${prepared.every((n) => n === 0) ? 'one-phase' : `PREPARE TRANSACTION on ${[...new Set(prepared)].join('/')} worker(s)`}`);

    let settling: ReturnType<TestEnv['startWorkers']> | undefined;
    const settlingCommands = await remoteCommands(async () => {
      settling = env.startWorkers();
      try {
        await eventually(async () => {
          const r = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM transactions WHERE platform_id = $1 AND id = ANY($2) AND status = 'COMPLETED'`, [p.platformId, ids]);
          return r.rows[0]!.n === PAYMENTS;
        }, 60_000, 100);
      } finally {
        await settling.close();
      }
    });
    const settled = await counters();
    console.log(`citus: settling them: ${(settled.single - after.single) / PAYMENTS} single-shard and ${(settled.multi - after.multi) / PAYMENTS} multi-shard executions per payment (sweeps included)`);
    const byNode = (list: Array<{ node: string; command: string }>) => Object.fromEntries([...new Set(list.map((x) => x.node))].sort().map((n) => [n, list.filter((x) => x.node === n).length]));
    console.log(`citus: settling them: remote commands per worker ${JSON.stringify(byNode(settlingCommands))} (sweeps of every shard group included)`);
    // Nothing of theirs is written elsewhere: the other workers see the sweeps' reads of their own shards only.
    // The sandbox rail's simulated bank (sandbox_bank_payouts: a platform-wide table, the bank's own statement
    // and commit, not the payment's) is left out: its rows are placed by the payout's reference.
    const transactions = new Map<string, Array<{ node: string; command: string }>>();
    const open = new Map<number, { n: number; open: boolean }>();
    let n = 0;
    for (const x of settlingCommands) {
      const c = open.get(x.client) ?? { n: ++n, open: false };
      if (/^BEGIN/.test(x.command) && !c.open) Object.assign(c, { n: ++n, open: true });
      if (/^(COMMIT|ROLLBACK)/.test(x.command)) c.open = false;
      open.set(x.client, c);
      transactions.set(String(c.n), [...(transactions.get(String(c.n)) ?? []), x]);
    }
    const writesAway = [...transactions.values()]
      .filter((t) => !t.some((x) => /sandbox_bank_/.test(x.command)))
      .flat()
      .filter((x) => x.node !== home && /^(BEGIN|COPY|INSERT|UPDATE|DELETE|PREPARE|COMMIT)/.test(x.command))
      .map((x) => `${x.node}: ${x.command.slice(0, 300)}`);
    expect(writesAway, writesAway.join('\n')).toEqual([]);
    const b = await balances(env, c.accounts.USD!);
    expect(b.held).toBe(0n);
    await expectLedgerConsistent(env, p.platformId);
  });
});
