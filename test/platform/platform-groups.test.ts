/**
 * Issue 29 item 2 (docs/decisions.md 29a): sweepers work per platform group and still hand out each row
 * once. Two sweepers — each with its own connection pool, as two worker processes have — sweep the same
 * due rows of 24 platforms at the same time in small batches: every row is taken by exactly one of them,
 * and none is left due. Then the groups themselves: one holding every platform on plain Postgres, one per
 * partition of a table hash-partitioned by platform_id, each group's statement touching one partition.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/app.js';
import { createPrisma } from '../../src/platform/db.js';
import type { AppDeps } from '../../src/deps.js';
import { claimDuePayments } from '../../src/domains/payments/transactions.jobs.js';
import { relayOutbox } from '../../src/domains/webhooks/webhooks.jobs.js';
import { platformGroups } from '../../src/platform/platform-groups.js';

const PLATFORMS = 24;
const PER_PLATFORM = 12;
let env: TestEnv;
let db: pg.Client;
let platforms: string[];
/** The second sweeper: the same code over its own pool. */
let other: AppDeps;

beforeAll(async () => {
  // Small batches: each sweeper takes many turns, interleaved with the other's.
  env = await createTestEnv({ PAYMENT_RECONCILE_BATCH: '7', OUTBOX_RELAY_BATCH: '9' });
  platforms = [];
  for (let i = 0; i < PLATFORMS; i++) platforms.push((await env.platform()).platformId);
  db = new pg.Client({ connectionString: env.databaseUrl });
  await db.connect();
  other = { ...env.deps, prisma: createPrisma(env.databaseUrl, { poolMax: 5 }) };
}, 120_000);

afterAll(async () => {
  await other?.prisma.$disconnect();
  await db?.end();
  await env?.close();
});

/** Runs `sweep` until a turn finds nothing; what each turn took, in order. */
async function sweepUntilDry<T>(sweep: () => Promise<T[]>): Promise<T[]> {
  const taken: T[] = [];
  for (;;) {
    const got = await sweep();
    if (got.length === 0) return taken;
    taken.push(...got);
  }
}

describe('two sweepers over many platforms (issue 29, 29a)', () => {
  it('payments whose check is due: each claimed by exactly one sweeper, none left due', async () => {
    await db.query(
      `INSERT INTO customers (id, platform_id, platform_customer_id, customer_type, status, uma_address)
       SELECT 'Customer:grp-' || p, p, 'grp-' || p, 'INDIVIDUAL', 'APPROVED', '$grp' || md5(p::text) || '@example.com' FROM unnest($1::uuid[]) p`,
      [platforms],
    );
    await db.query(
      `INSERT INTO transactions (id, platform_id, quote_id, customer_id, status, type, direction, source_account_id, source, destination, destination_kind,
         destination_account_id, sent_amount, sending_currency, received_amount, receiving_currency, exchange_rate, fees, platform_fees, service_fees,
         rail_reference, reconcile_after, created_at, updated_at)
       SELECT 'Transaction:grp-' || md5(p::text) || '-' || i, p, 'Quote:grp-' || md5(p::text) || '-' || i, 'Customer:grp-' || p, 'PROCESSING', 'OUTGOING', 'DEBIT',
         'InternalAccount:grp', '{}', '{}', 'EXTERNAL_ACCOUNT', 'ExternalAccount:grp', 1000, 'USD', 1000, 'USD', '1', 0, 0, 0,
         'rail-grp-' || md5(p::text) || '-' || i, now() - interval '1 minute', now(), now()
         FROM unnest($1::uuid[]) p, generate_series(1, ${PER_PLATFORM}) i`,
      [platforms],
    );
    const ids = (await db.query(`SELECT id FROM transactions WHERE id LIKE 'Transaction:grp-%'`)).rows.map((r) => r.id as string);
    expect(ids).toHaveLength(PLATFORMS * PER_PLATFORM);
    const now = new Date();
    const [a, b] = await Promise.all([
      sweepUntilDry(() => claimDuePayments(env.deps, now)),
      sweepUntilDry(() => claimDuePayments(other, now)),
    ]);
    const taken = [...a, ...b].map((c) => c.id);
    // Taken once each, all of them: no id twice, none missing.
    expect(new Set(taken).size).toBe(taken.length);
    expect(new Set(taken)).toEqual(new Set(ids));
    // Each sweeper had a share (the two ran at once), and every claim names its row's platform.
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    const platformOf = new Map((await db.query(`SELECT id, platform_id FROM transactions WHERE id = ANY($1)`, [ids])).rows.map((r) => [r.id, r.platform_id]));
    for (const c of [...a, ...b]) expect(c.platformId).toBe(platformOf.get(c.id));
    // None is still due at `now`.
    const due = await db.query(`SELECT count(*)::int AS n FROM transactions WHERE id = ANY($1) AND reconcile_after <= $2`, [ids, now]);
    expect(due.rows[0].n).toBe(0);
  });

  it('the outbox relay: each event relayed by exactly one sweeper, none left behind', async () => {
    await db.query(`UPDATE platforms SET webhook_endpoint = 'http://127.0.0.1:9/hook' WHERE id = ANY($1)`, [platforms]);
    await db.query(
      `INSERT INTO webhook_events (id, platform_id, type, data, created_at)
       SELECT md5('grp-' || p::text || '-' || i)::uuid, p, 'OUTGOING_PAYMENT.COMPLETED', jsonb_build_object('i', i), now() - i * interval '1 ms'
         FROM unnest($1::uuid[]) p, generate_series(1, ${PER_PLATFORM}) i`,
      [platforms],
    );
    const pending = (await db.query(`SELECT count(*)::int AS n FROM webhook_events WHERE relayed_at IS NULL`)).rows[0].n as number;
    expect(pending).toBeGreaterThanOrEqual(PLATFORMS * PER_PLATFORM);
    // relayOutbox answers how many it relayed; a row relayed by both would be counted twice.
    const counted = (deps: AppDeps) => sweepUntilDry(async () => {
      const n = await relayOutbox(deps);
      return n > 0 ? [n] : [];
    });
    const [a, b] = await Promise.all([counted(env.deps), counted(other)]);
    const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
    expect(sum(a) + sum(b)).toBe(pending);
    expect((await db.query(`SELECT count(*)::int AS n FROM webhook_events WHERE relayed_at IS NULL`)).rows[0].n).toBe(0);
    // Every event of the 24 platforms relayed, its first attempt scheduled (from here the delivery sweep owns it).
    const events = (await db.query(`SELECT id, attempt_count, next_attempt_at FROM webhook_events WHERE type = 'OUTGOING_PAYMENT.COMPLETED' AND platform_id = ANY($1::uuid[])`, [platforms])).rows;
    expect(events).toHaveLength(PLATFORMS * PER_PLATFORM);
    for (const e of events) expect(e.next_attempt_at).not.toBeNull();
  });
});

describe('the platform groups (issue 29, 29a)', () => {
  // On the partitioned suite (TEST_DB_PARTITIONS) `transactions` is partitioned: the next test's case; on Citus, the last one's.
  it.skipIf(Number(process.env.TEST_DB_PARTITIONS ?? 0) > 1 || Boolean(process.env.TEST_CITUS_WORKERS))('plain Postgres: one group holding every platform', async () => {
    const groups = await platformGroups(env.deps.prisma, 'transactions');
    expect(groups).toHaveLength(1);
    expect(new Set(groups[0])).toEqual(new Set((await db.query(`SELECT id FROM platforms`)).rows.map((r) => r.id)));
  });

  it('a table hash-partitioned by platform_id: one group per partition, each statement on one partition', async () => {
    await db.query(`CREATE TABLE grp_rehearsal (platform_id uuid NOT NULL, id text NOT NULL, due boolean NOT NULL, PRIMARY KEY (platform_id, id)) PARTITION BY HASH (platform_id)`);
    for (let r = 0; r < 4; r++) await db.query(`CREATE TABLE grp_rehearsal_${r} PARTITION OF grp_rehearsal FOR VALUES WITH (modulus 4, remainder ${r})`);
    await db.query(`INSERT INTO grp_rehearsal SELECT id, 'row-' || i, true FROM platforms, generate_series(1, 3) i`);
    const all = (await db.query(`SELECT id FROM platforms`)).rows.map((r) => r.id as string);
    const groups = await platformGroups(env.deps.prisma, 'grp_rehearsal');
    // Every platform in exactly one group; the groups as many as the partitions holding platforms.
    expect(groups.flat().sort()).toEqual([...all].sort());
    const holding = (await db.query(`SELECT count(DISTINCT tableoid)::int AS n FROM grp_rehearsal`)).rows[0].n as number;
    expect(groups).toHaveLength(holding);
    expect(holding).toBeGreaterThan(1);
    for (const group of groups) {
      // The group's rows live in one partition …
      const parts = await db.query(`SELECT DISTINCT tableoid::regclass::text AS part FROM grp_rehearsal WHERE platform_id = ANY($1)`, [group]);
      expect(parts.rows).toHaveLength(1);
      // … and the sweep's statement shape, with the group as its parameter, is planned on that one partition.
      const plan = await db.query(`EXPLAIN (FORMAT JSON) SELECT platform_id, id FROM grp_rehearsal WHERE platform_id = ANY($1) AND due LIMIT 5 FOR UPDATE SKIP LOCKED`, [group]);
      const scanned = new Set<string>();
      const walk = (n: { 'Relation Name'?: string; Plans?: unknown[] }) => {
        if (n['Relation Name']) scanned.add(n['Relation Name']);
        for (const c of n.Plans ?? []) walk(c as typeof n);
      };
      walk(plan.rows[0]['QUERY PLAN'][0].Plan);
      expect([...scanned]).toEqual([parts.rows[0].part]);
    }
  });

  // The Citus rehearsal (TEST_CITUS_WORKERS, docs/deploy.md "Citus"): groups are shards.
  it.skipIf(!process.env.TEST_CITUS_WORKERS)('Citus: one group per shard of the distributed table, every platform in one', async () => {
    const groups = await platformGroups(env.deps.prisma, 'transactions');
    expect(groups.flat().sort()).toEqual((await db.query(`SELECT id FROM platforms`)).rows.map((r) => r.id as string).sort());
    expect(groups.length).toBeGreaterThan(1);
    for (const group of groups) {
      const shards = await db.query(`SELECT DISTINCT get_shard_id_for_distribution_column('transactions', p) AS shard FROM unnest($1::uuid[]) p`, [group]);
      expect(shards.rows).toHaveLength(1);
    }
  });
});
