/**
 * Issue 29 items 2 and 3 (docs/decisions.md 29a): on a database whose tenant tables are hash-partitioned
 * by platform_id (test/helpers/partitioned-db.ts — PostgreSQL prunes partitions where Citus prunes
 * shards), every sweeper's locking statement (`FOR UPDATE SKIP LOCKED`) reads and writes one partition per
 * table: it runs once per platform group (src/platform/platform-groups.ts) and names the group with
 * `platform_id = ANY($1)`. Plans are captured as the server ran them (auto_explain), due rows in place,
 * so what is checked is what a Citus coordinator would have routed to one shard.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/app.js';
import { AUTO_EXPLAIN_SETTINGS, capturePlans, partitionedTemplate, partitionsTouched, unprunedTables, type PlanCapture } from '../helpers/partitioned-db.js';
import { claimDuePayments, sweepPaymentWork } from '../../src/domains/payments/transactions.jobs.js';
import { relayOutbox, sweepDeliveries } from '../../src/domains/webhooks/webhooks.jobs.js';
import { reconcileOpenCases } from '../../src/domains/verification/verification.jobs.js';
import { sweepResetReviews } from '../../src/domains/sca/reset.service.js';
import { sweepLivenessOutcomes } from '../../src/domains/external-accounts/ownership.service.js';
import { sweepPendingChecks } from '../../src/domains/external-accounts/external-accounts.service.js';
import { pollWalletCredits, sweepWalletCredits } from '../../src/domains/wallet/wallet.incoming.js';
import { sweepOwedWallets } from '../../src/domains/wallet/wallet.provisioning.js';
import { sweepCoordinates } from '../../src/domains/collection/coordinates.service.js';
import { platformGroups } from '../../src/platform/platform-groups.js';
import { pruneOnce } from '../../src/platform/retention.js';
import { finishOwedPulls } from '../../src/domains/agent-actions/agent-actions.service.js';

/** The partitioned suite's count when it runs on it (TEST_DB_PARTITIONS), else this file's own template's. */
const PARTITIONS = Number(process.env.TEST_DB_PARTITIONS ?? 0) > 1 ? Number(process.env.TEST_DB_PARTITIONS) : 4;
const PLATFORMS = 10;
let env: TestEnv;
let db: pg.Client;
let capture: PlanCapture;
let platforms: string[];

// Not on the Citus rehearsal (TEST_CITUS_WORKERS; issue 29, 29f): this is the rehearsal *without* Citus, on a
// template whose tenant tables are re-created hash-partitioned, which a distributed database cannot be (and
// auto_explain fails on Citus's remote tasks, 29d/29e). On Citus, test/deploy/citus.test.ts checks the same property:
// every command of a payment goes to the one worker holding the platform.
const ON_CITUS = Boolean(process.env.TEST_CITUS_WORKERS);

beforeAll(async () => {
  if (ON_CITUS) return;
  const templateDb = Number(process.env.TEST_DB_PARTITIONS ?? 0) > 1 ? inject('templateDb') : await partitionedTemplate(inject('databaseDirectUrl'), inject('templateDb'), PARTITIONS);
  env = await createTestEnv(
    // Every sweep has its statement to run: the credit poll on, a collection provider to open coordinates with.
    { WALLET_CREDIT_POLL_INTERVAL_MS: '1000', COLLECTION_PROVIDER: 'sandbox', JOB_SWEEP_GRACE_MS: '0', KYC_RECONCILE_AFTER_MS: '0' },
    { templateDb, databaseSettings: AUTO_EXPLAIN_SETTINGS },
  );
  platforms = [];
  for (let i = 0; i < PLATFORMS; i++) platforms.push((await env.platform()).platformId);
  db = new pg.Client({ connectionString: env.databaseUrl });
  await db.connect();
  await db.query(`UPDATE platforms SET webhook_endpoint = 'http://127.0.0.1:9/hook' WHERE id = ANY($1)`, [platforms]);
  await db.query(
    `INSERT INTO customers (id, platform_id, platform_customer_id, customer_type, status, uma_address)
     SELECT 'Customer:plan-' || p, p, 'plan-' || p, 'INDIVIDUAL', 'APPROVED', '$plan' || md5(p::text) || '@example.com' FROM unnest($1::uuid[]) p`,
    [platforms],
  );
  // Due work of every platform: payments whose check is due, stale submissions, refunds owed; events to relay and to retry.
  await db.query(
    `INSERT INTO transactions (id, platform_id, quote_id, customer_id, status, type, direction, source_account_id, source, destination, destination_kind,
       destination_account_id, sent_amount, sending_currency, received_amount, receiving_currency, exchange_rate, fees, platform_fees, service_fees,
       rail_reference, reconcile_after, refund_status, created_at, updated_at)
     SELECT 'Transaction:plan-' || md5(p::text) || '-' || i, p, 'Quote:plan-' || md5(p::text) || '-' || i, 'Customer:plan-' || p, 'PROCESSING', 'OUTGOING', 'DEBIT',
       'InternalAccount:plan', '{}', '{}', 'EXTERNAL_ACCOUNT', 'ExternalAccount:plan', 1000, 'USD', 1000, 'USD', '1', 0, 0, 0,
       CASE WHEN i = 1 THEN NULL ELSE 'rail-plan-' || md5(p::text) || '-' || i END, now() - interval '1 minute',
       CASE WHEN i = 3 THEN 'PENDING' END, now() - interval '1 day', now() - interval '1 day'
       FROM unnest($1::uuid[]) p, generate_series(1, 3) i`,
    [platforms],
  );
  await db.query(
    `INSERT INTO webhook_events (id, platform_id, type, data, created_at)
     SELECT md5('plan-' || p::text || '-' || i)::uuid, p, 'OUTGOING_PAYMENT.COMPLETED', '{}', now() - interval '1 hour' FROM unnest($1::uuid[]) p, generate_series(1, 2) i`,
    [platforms],
  );
  capture = capturePlans(env.deps.prisma);
}, 300_000);

afterAll(async () => {
  capture?.stop();
  await db?.end();
  await env?.close();
});

describe.skipIf(ON_CITUS)('sweeps on tenant tables hash-partitioned by platform_id (issue 29, 29a)', () => {
  it('the groups: one per partition holding platforms, every platform in one', async () => {
    const groups = await platformGroups(env.deps.prisma, 'transactions');
    expect(groups.flat().sort()).toEqual((await db.query(`SELECT id FROM platforms ORDER BY id`)).rows.map((r) => r.id).sort());
    expect(groups.length).toBeGreaterThan(1);
    expect(groups.length).toBeLessThanOrEqual(PARTITIONS);
  });

  const SWEEPS: Array<[string, () => Promise<unknown>]> = [
    ['payments: check due (claim)', () => claimDuePayments(env.deps, new Date())],
    ['payments: submissions and refunds owed, reconciliation', () => sweepPaymentWork(env.deps)],
    ['webhooks: outbox relay', () => relayOutbox(env.deps)],
    ['webhooks: delivery sweep', () => sweepDeliveries(env.deps)],
    ['verifications: open cases', () => reconcileOpenCases(env.deps)],
    ['SCA resets: reviews due', () => sweepResetReviews(env.deps)],
    ['external accounts: liveness outcomes', () => sweepLivenessOutcomes(env.deps)],
    ['external accounts: pending checks', () => sweepPendingChecks(env.deps)],
    ['wallets: credits to book', () => sweepWalletCredits(env.deps)],
    ['wallets: credit poll', () => pollWalletCredits(env.deps)],
    ['wallets: owed provisioning', () => sweepOwedWallets(env.deps)],
    ['collection: accounts and coordinates due', () => sweepCoordinates(env.deps)],
  ];

  it.each(SWEEPS)('%s: each locking statement on one partition per table', async (_name, sweep) => {
    capture.clear();
    await sweep();
    const locking = capture.plans.filter((p) => /SKIP LOCKED/i.test(p.query));
    expect(locking.length, 'no locking statement ran').toBeGreaterThan(0);
    for (const p of locking) {
      expect(unprunedTables(p.plan), p.query).toEqual([]);
      // It reads a partitioned table at all (not a plain one by mistake).
      expect(partitionsTouched(p.plan).size, p.query).toBeGreaterThan(0);
    }
  });

  // Issue 29 (29d): the sweeps that take no row lock but read or change rows of many platforms also run per group.
  it('retention: one pass per platform group, each statement on one partition per table, every platform’s due rows cut', async () => {
    await db.query(
      `INSERT INTO webhook_events (id, platform_id, type, data, created_at, relayed_at, delivery_status)
       SELECT md5('old-' || p::text)::uuid, p, 'OUTGOING_PAYMENT.COMPLETED', '{"id": "x", "description": "long"}', now() - interval '400 days', now() - interval '400 days', 'DELIVERED'
         FROM unnest($1::uuid[]) p`,
      [platforms],
    );
    await db.query(
      `INSERT INTO webhook_attempts (id, platform_id, event_id, attempted_at, url, latency_ms, outcome)
       SELECT 'WebhookAttempt:old-' || md5(p::text), p, md5('old-' || p::text)::uuid, now() - interval '400 days', 'http://127.0.0.1:9/hook', 1, 'DELIVERED' FROM unnest($1::uuid[]) p`,
      [platforms],
    );
    // A payment's status change past STATUS_CHANGE_RETENTION_DAYS (deleted) and a customer's (kept: holds are counted from them).
    await db.query(
      `INSERT INTO status_changes (id, platform_id, machine, resource_id, event, from_status, to_status, created_at)
       SELECT md5('sc-' || m || p::text)::uuid, p, m, md5('r-' || p::text)::uuid, 'e', 'A', 'B', now() - interval '400 days'
         FROM unnest($1::uuid[]) p, unnest(ARRAY['transaction', 'customer']) m`,
      [platforms],
    );
    await db.query(
      `INSERT INTO idempotency_records (platform_id, key, fingerprint, state, created_at, expires_at)
       SELECT p, 'old-' || md5(p::text), 'f', 'DONE', now() - interval '2 days', now() - interval '1 day' FROM unnest($1::uuid[]) p`,
      [platforms],
    );
    const groups = await platformGroups(env.deps.prisma, 'webhook_events');
    expect(groups.length).toBeGreaterThan(1);
    capture.clear();
    const pass = await pruneOnce(env.deps);
    expect(pass).toEqual({ eventsPruned: PLATFORMS, attemptsDeleted: PLATFORMS, idempotencyDeleted: PLATFORMS, statusChangesDeleted: PLATFORMS });
    const statements = capture.plans.filter((p) => /webhook_events|webhook_attempts|idempotency_records|status_changes/.test(p.query));
    expect(statements.length).toBe(4 * groups.length);
    for (const p of statements) {
      expect(unprunedTables(p.plan), p.query).toEqual([]);
      expect(partitionsTouched(p.plan).size, p.query).toBeGreaterThan(0);
    }
    const left = await db.query(
      `SELECT (SELECT count(*) FROM webhook_events WHERE created_at < now() - interval '300 days' AND pruned_at IS NULL)::int AS events,
              (SELECT count(*) FROM webhook_attempts WHERE id LIKE 'WebhookAttempt:old-%')::int AS attempts,
              (SELECT count(*) FROM idempotency_records WHERE key LIKE 'old-%')::int AS records,
              (SELECT count(*) FROM status_changes WHERE created_at < now() - interval '300 days' AND machine = 'transaction')::int AS history,
              (SELECT count(*) FROM status_changes WHERE created_at < now() - interval '300 days' AND machine = 'customer')::int AS holds`,
    );
    expect(left.rows[0]).toEqual({ events: 0, attempts: 0, records: 0, history: 0, holds: PLATFORMS });
  });

  it('agents: owed TRANSFER_IN pulls read per platform group, each read on one partition', async () => {
    const groups = await platformGroups(env.deps.prisma, 'agent_actions');
    capture.clear();
    await finishOwedPulls(env.deps);
    const reads = capture.plans.filter((p) => /agent_actions/.test(p.query));
    expect(reads.length).toBe(groups.length);
    for (const p of reads) {
      expect(unprunedTables(p.plan), p.query).toEqual([]);
      expect(partitionsTouched(p.plan).size, p.query).toBeGreaterThan(0);
    }
  });
});
