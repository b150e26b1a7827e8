/**
 * Issue 30: every list query is answered by an index that also gives its order — no sequential scan,
 * no sort of the whole set — and every sweep reads through an index over the rows that are due.
 *
 * The database is made to look like a large one to the planner the reliable way: enough rows, spread as
 * a platform's year spreads them (several platforms, a hundred customers, four currencies, both types,
 * every status, a year of timestamps), then ANALYZE. At that size a plan that walks the whole table
 * costs more than the index plan the list needs, so the planner's choice here is the choice it makes at
 * 2 million rows (bench:growth measures that). Each list is called through HTTP; its statements are
 * caught on the pool (onStatement) and EXPLAINed with their own values.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { onStatement } from '../../src/platform/db.js';
import { claimDuePayments, sweepPaymentWork, sweepPayments } from '../../src/domains/payments/transactions.jobs.js';
import { relayOutbox, sweepDeliveries } from '../../src/domains/webhooks/webhooks.jobs.js';
import { pruneOnce } from '../../src/platform/retention.js';

let env: TestEnv;
let p: TestPlatform;
let db: pg.Client;
const ROWS = 40_000;
let sample: { customerId: string; accountId: string; transactionId: string; railReference: string; eventType: string; umaAddress: string };

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Plan Rows': number;
  Filter?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
  /** Citus (the rehearsal): the coordinator's Custom Scan, with the statements it sent and the workers' plans. */
  'Distributed Query'?: {
    Subplans?: Array<{ PlannedStmt: Array<{ Plan: PlanNode }> }>;
    Job?: { Tasks?: Array<{ 'Remote Plan'?: Array<Array<{ Plan: PlanNode }>> }> };
  };
}

/**
 * The plan of `text` with its own values. On the Citus rehearsal (TEST_CITUS_WORKERS; issue 29, 29f) the coordinator
 * plans a Custom Scan and the shards' workers plan the reads: their plans (each task's, each subplan's) become the
 * Custom Scan's children, with a shard's relation and index names (`transactions_102008`, `…_pkey_102008`) read as
 * the table's, so every check below judges the plans that read the rows, on plain PostgreSQL and on Citus alike.
 */
const onCitus = Boolean(process.env.TEST_CITUS_WORKERS);

/**
 * Not judged on the Citus rehearsal (29f), with the reason. The year is seeded over four platforms, and on Citus each
 * shard's planner sees only its shard's part (8 shards: a platform's rows, or none): a sweep's statement per shard
 * group reads shards holding a few rows, where a scan or a broader index is the planner's right choice, and a
 * statement whose platform comes from a lookup (tenant_lookups, distributed by the value) cannot be pruned at
 * planning, so EXPLAIN shows one of its shards' plans, an arbitrary one. Plain PostgreSQL and the partitioned
 * database judge them all.
 */
const NOT_JUDGED_ON_CITUS: Record<string, string> = {
  'external accounts of the platform': "the shard's planner walks the primary key with the filter (its statistics: the platform's own accounts)",
  'quote expiry': 'per shard group; small shards read (platform_id, status, id)',
  'submissions and refunds owed, reconciliation': 'per shard group; a nearly empty shard is scanned',
  'webhook delivery sweep': 'per shard group; small shards read (platform_id, delivery_status, id)',
};

async function explain(text: string, values?: unknown[]): Promise<PlanNode> {
  const r = await db.query(`EXPLAIN (FORMAT JSON) ${text}`, values);
  return withWorkerPlans((r.rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan, false);
}

function withWorkerPlans(node: PlanNode, onShard: boolean): PlanNode {
  const distributed = node['Distributed Query'];
  const table = (name?: string) => (onShard && name ? name.replace(/_\d+$/, '') : name);
  const children = [
    ...(node.Plans ?? []).map((child) => withWorkerPlans(child, onShard)),
    ...(distributed?.Subplans ?? []).flatMap((sub) => sub.PlannedStmt.map((stmt) => withWorkerPlans(stmt.Plan, false))),
    ...(distributed?.Job?.Tasks ?? []).flatMap((task) => (task['Remote Plan'] ?? []).flat().map((stmt) => withWorkerPlans(stmt.Plan, true))),
  ];
  return { ...node, 'Relation Name': table(node['Relation Name']), 'Index Name': table(node['Index Name']), Plans: children.length ? children : undefined };
}

/**
 * What is wrong with a list's plan: a sequential scan of `table`, an index walked with the filter
 * checked on the rows it finds (rows read and thrown away: what made the events log take 73 s), or a
 * sort of more than a page's worth of rows.
 */
function planProblems(node: PlanNode, table: string, out: string[] = []): string[] {
  if (node['Node Type'] === 'Seq Scan' && node['Relation Name'] === table) out.push(`Seq Scan on ${table}`);
  if (/Index/.test(node['Node Type']) && node['Relation Name'] === table && node.Filter && !harmlessFilter(node.Filter)) out.push(`${node['Index Name']} walked with a filter: ${node.Filter}`);
  if (node['Node Type'] === 'Sort' && (node.Plans?.[0]?.['Plan Rows'] ?? 0) > 200) out.push(`Sort of ${node.Plans![0]!['Plan Rows']} rows`);
  for (const child of node.Plans ?? []) planProblems(child, table, out);
  return out;
}

/**
 * Filters that remove few rows, so the walk stays bounded: deleted accounts and the platform's own
 * accounts among its customers' (rare), and the platform check after a lookup by a rail's reference
 * (references are unique per rail, whichever platform).
 */
function harmlessFilter(filter: string): boolean {
  const rest = filter
    .replace(/NOT is_deleted/g, '')
    .replace(/status <> 'DELETED'::text/g, '') // issue 26: a deleted agent, as rare as a deleted customer
    .replace(/customer_id IS NOT NULL/g, '')
    .replace(/platform_id = '[^']*'::uuid/g, '') // a uuid since 30e
    .replace(/AND|[()\s]/g, '');
  return rest === '';
}

function seqScans(node: PlanNode, table: string, out: string[] = []): string[] {
  if (node['Node Type'] === 'Seq Scan' && node['Relation Name'] === table) out.push(`Seq Scan on ${table}`);
  for (const child of node.Plans ?? []) seqScans(child, table, out);
  return out;
}

function indexesUsed(node: PlanNode, out: string[] = []): string[] {
  if (node['Index Name']) out.push(node['Index Name']);
  for (const child of node.Plans ?? []) indexesUsed(child, out);
  return out;
}

/** Calls `url` and EXPLAINs every statement it sent that reads `table` in an order. */
async function plansOf(url: string, table: string): Promise<Array<{ sql: string; plan: PlanNode }>> {
  const seen: Array<{ text: string; values?: unknown[] }> = [];
  const stop = onStatement(env.deps.prisma, (text, values) => seen.push({ text, values }));
  try {
    const res = await p.request({ method: 'GET', url });
    expect(res.statusCode, res.body).toBe(200);
  } finally {
    stop();
  }
  const lists = seen.filter((s) => new RegExp(`FROM "public"\\."${table}"`).test(s.text) && /ORDER BY/.test(s.text));
  expect(lists.length, `${url}: no ordered read of ${table} among ${seen.map((s) => s.text.slice(0, 80)).join(' | ')}`).toBeGreaterThan(0);
  const out: Array<{ sql: string; plan: PlanNode }> = [];
  for (const s of lists) {
    out.push({ sql: s.text, plan: await explain(s.text, s.values) });
  }
  return out;
}

beforeAll(async () => {
  env = await createTestEnv();
  p = await env.platform();
  const others = [await env.platform(), await env.platform(), await env.platform()];
  db = new pg.Client({ connectionString: env.databaseUrl });
  await db.connect();
  await seed([p.platformId, ...others.map((o) => o.platformId)]);
  await db.query('ANALYZE');
  const t = (await db.query(`SELECT id, customer_id, source_account_id, rail_reference FROM transactions WHERE platform_id = $1 AND rail_reference IS NOT NULL ORDER BY id LIMIT 1`, [p.platformId])).rows[0];
  const e = (await db.query(`SELECT type FROM webhook_events WHERE platform_id = $1 LIMIT 1`, [p.platformId])).rows[0];
  const c = (await db.query(`SELECT uma_address FROM customers WHERE id = $1`, [t.customer_id])).rows[0];
  sample = { customerId: t.customer_id, accountId: t.source_account_id, transactionId: t.id, railReference: t.rail_reference, eventType: e.type, umaAddress: c.uma_address };
}, 600_000);

afterAll(async () => {
  await db?.end();
  await env?.close();
});

/** A year of rows over four platforms, in bulk. */
async function seed(platforms: string[]): Promise<void> {
  await db.query(
    `CREATE TEMP TABLE seed_customers AS
       SELECT 'Customer:' || gen_random_uuid() AS id, ($1::uuid[])[1 + i % 4] AS platform_id, i FROM generate_series(0, 399) i`,
    [platforms],
  );
  await db.query(`INSERT INTO customers (id, platform_id, platform_customer_id, customer_type, status, uma_address)
    SELECT id, platform_id, 'plan-' || i, 'INDIVIDUAL', 'APPROVED', '$plan' || i || '@example.com' FROM seed_customers`);
  // Ids as the service makes them: UUIDv7, time-ordered like created_at.
  const v7 = (ts: string) => `(lpad(to_hex((extract(epoch FROM ${ts}) * 1000)::bigint), 12, '0') || '7' || substr(md5(random()::text), 1, 3) || '8' || substr(md5(random()::text), 1, 15))`;
  const uuid = (hex: string) => `substr(${hex}, 1, 8) || '-' || substr(${hex}, 9, 4) || '-' || substr(${hex}, 13, 4) || '-' || substr(${hex}, 17, 4) || '-' || substr(${hex}, 21, 12)`;
  await db.query(
    `CREATE TEMP TABLE seed_tx AS
       SELECT g.i, c.id AS customer_id, c.platform_id, now() - (g.i % 365) * interval '1 day' - (g.i % 997) * interval '1 second' AS at,
              (ARRAY['USD','EUR','GBP','MXN'])[1 + g.i % 4] AS sending, (ARRAY['USD','EUR','GBP','MXN'])[1 + (g.i / 4) % 4] AS receiving,
              (ARRAY['COMPLETED','COMPLETED','COMPLETED','FAILED','PROCESSING','EXPIRED'])[1 + g.i % 6] AS status
         FROM generate_series(0, ${ROWS - 1}) g(i) JOIN seed_customers c ON c.i = g.i % 400`,
  );
  await db.query(`ALTER TABLE seed_tx ADD COLUMN hex text, ADD COLUMN qhex text`);
  await db.query(`UPDATE seed_tx SET hex = ${v7('at')}, qhex = ${v7('at')}`);
  await db.query(`INSERT INTO transactions (id, platform_id, quote_id, customer_id, status, type, direction, source_account_id, source, destination, destination_kind,
      destination_account_id, sent_amount, sending_currency, received_amount, receiving_currency, exchange_rate, fees, platform_fees, service_fees, rail_reference, created_at, updated_at)
    SELECT 'Transaction:' || ${uuid('hex')}, platform_id, 'Quote:' || ${uuid('qhex')}, customer_id, status, CASE WHEN i % 5 = 0 THEN 'INCOMING' ELSE 'OUTGOING' END, 'DEBIT',
      'InternalAccount:' || md5(customer_id), '{}', '{}', 'EXTERNAL_ACCOUNT', 'ExternalAccount:' || (i % 50), 1000, sending, 1000, receiving, '1', 0, 0, 0,
      'rail-' || i, at, at
    FROM seed_tx`);
  await db.query(`INSERT INTO quotes (id, platform_id, status, customer_id, source_account_id, source, destination, destination_kind, destination_account_id, sending_currency,
      receiving_currency, locked_side, locked_amount, total_sending_amount, total_receiving_amount, exchange_rate, fees_included, platform_fees_included, service_fees_included,
      transaction_id, expires_at, created_at, updated_at)
    SELECT 'Quote:' || ${uuid('qhex')}, platform_id, status, customer_id, 'InternalAccount:' || md5(customer_id), '{}',
      -- One quote in ten pays a UMA address (forty receivers): GET /quotes?receivingUmaAddress= (issue 30).
      CASE WHEN i % 10 = 0 THEN jsonb_build_object('destinationType', 'UMA_ADDRESS', 'umaAddress', '$receiver' || (i / 10) % 40 || '@uma.example', 'currency', receiving) ELSE '{}' END,
      CASE WHEN i % 10 = 0 THEN 'UMA' ELSE 'EXTERNAL_ACCOUNT' END, CASE WHEN i % 10 = 0 THEN NULL ELSE 'ExternalAccount:' || (i % 50) END,
      sending, receiving, 'SENDING', 1000, 1000, 1000, '1', 0, 0, 0, 'Transaction:' || ${uuid('hex')}, at + interval '5 minutes', at, at
    FROM seed_tx`);
  // Three events per payment, as a payment records them.
  await db.query(`INSERT INTO webhook_events (id, platform_id, type, data, created_at, relayed_at, delivery_status)
    SELECT (${uuid(v7('at'))})::uuid, platform_id, 'OUTGOING_PAYMENT.' || s, jsonb_build_object('id', 'Transaction:' || ${uuid('hex')}, 'status', s), at, at,
      (ARRAY['DELIVERED','DELIVERED','FAILED','UNDELIVERABLE'])[1 + i % 4]
    FROM seed_tx CROSS JOIN unnest(ARRAY['PENDING','PROCESSING','COMPLETED']) s`);
  await db.query(`INSERT INTO external_accounts (id, platform_id, customer_id, owner_key, status, currency, account_type, account_info, payment_rails, identifier_last3, identity_hash, created_at)
    SELECT 'ExternalAccount:' || ${uuid(v7('at'))}, platform_id, CASE WHEN i % 100 = 0 THEN NULL ELSE customer_id END, CASE WHEN i % 100 = 0 THEN 'PLATFORM' ELSE customer_id END,
      'ACTIVE', sending, 'USD_ACCOUNT', '{}', ARRAY['ACH'], '123', md5(i::text), at
    FROM seed_tx WHERE (i / 400) % 4 = 0`);
  await db.query(`INSERT INTO cards (id, platform_id, customer_id, platform_card_id, form, state, currency, funding_sources, closed_at, created_at)
    SELECT 'Card:' || ${uuid(v7('at'))}, platform_id, customer_id, 'card-' || i, 'VIRTUAL', (ARRAY['ACTIVE','FROZEN','CLOSED'])[1 + i % 3], 'USDB', ARRAY['InternalAccount:x'],
      CASE WHEN i % 3 = 2 THEN at END, at
    FROM seed_tx WHERE (i / 400) % 4 = 1`);
  // Issue 27: card transactions, listed with the payments.
  await db.query(`INSERT INTO card_transactions (id, platform_id, card_id, customer_id, platform_customer_id, account_id, issuer_transaction_token, kind, status, direction,
      merchant_descriptor, currency, funding_currency, authorized_amount, authorized_at, last_event_at, created_at, updated_at)
    SELECT 'CardTransaction:' || ${uuid(v7('at'))}, platform_id, 'Card:' || (i % 50), customer_id, 'plan', 'InternalAccount:' || md5(customer_id), 'tok-' || i, 'AUTHORIZATION',
      (ARRAY['AUTHORIZED','SETTLED','DECLINED'])[1 + i % 3], 'DEBIT', 'SHOP', 'USD', 'USD', 100, at, at, at, at
    FROM seed_tx WHERE (i / 400) % 4 = 3`);
  await db.query(`INSERT INTO verifications (id, platform_id, customer_id, status, channel, created_at)
    SELECT 'Verification:' || ${uuid(v7('at'))}, platform_id, customer_id, (ARRAY['APPROVED','REJECTED','RESOLVE_ERRORS'])[1 + i % 3], 'DIRECT', at
    FROM seed_tx WHERE (i / 400) % 4 = 2`);
  await db.query(`INSERT INTO agents (id, platform_id, customer_id, name, policy, created_at)
    SELECT 'Agent:' || ${uuid(v7('at'))}, platform_id, customer_id, 'agent ' || i,
      '{"currency":"USD","maxTransactionAmount":"1000","dailyLimit":"5000","approvalThreshold":"500","allowedActions":[]}', at FROM seed_tx WHERE (i / 400) % 8 = 3`);
  await db.query(`INSERT INTO documents (id, platform_id, customer_id, holder_id, document_type, country, file_name, content_type, size_bytes, sha256, storage_key, created_at)
    SELECT 'Document:' || ${uuid(v7('at'))}, platform_id, customer_id, customer_id, 'PROOF_OF_ADDRESS', 'US', 'p.pdf', 'application/pdf', 1, md5(i::text), 'k' || i, at
    FROM seed_tx WHERE (i / 400) % 8 = 7`);
}

const day = new Date(Date.now() - 180 * 86_400_000);
const window = () => `startDate=${encodeURIComponent(day.toISOString())}&endDate=${encodeURIComponent(new Date(day.getTime() + 86_400_000).toISOString())}`;

const LISTS: Array<[string, () => string, string]> = [
  ['transactions, newest first', () => '/transactions', 'transactions'],
  ['transactions by time window', () => `/transactions?${window()}`, 'transactions'],
  ['transactions by currency (sent or received)', () => '/transactions?currency=EUR', 'transactions'],
  ['transactions by type', () => '/transactions?type=INCOMING', 'transactions'],
  ['transactions by status', () => '/transactions?status=FAILED', 'transactions'],
  ['transactions by customer', () => `/transactions?customerId=${sample.customerId}`, 'transactions'],
  ['transactions by customer and status', () => `/transactions?customerId=${sample.customerId}&status=COMPLETED`, 'transactions'],
  // 30c: the platform's own payments (customer_id NULL) through their partial indexes.
  ['transactions of the platform itself', () => `/transactions?customerId=${p.platformId}`, 'transactions'],
  ['transactions of the platform itself by status', () => `/transactions?customerId=${p.platformId}&status=COMPLETED`, 'transactions'],
  ['transactions by account identifier (either side)', () => `/transactions?accountIdentifier=${sample.accountId}`, 'transactions'],
  ['transactions by sender account', () => `/transactions?senderAccountIdentifier=${sample.accountId}`, 'transactions'],
  ['transactions by receiver account', () => '/transactions?receiverAccountIdentifier=ExternalAccount:7', 'transactions'],
  ['transactions by reference', () => `/transactions?reference=${sample.railReference}`, 'transactions'],
  ['transactions ascending from a deep cursor', () => `/transactions?sortOrder=asc&cursor=${Buffer.from(JSON.stringify({ id: sample.transactionId })).toString('base64url')}`, 'transactions'],
  ['quotes, newest first', () => '/quotes', 'quotes'],
  ['quotes by customer', () => `/quotes?customerId=${sample.customerId}`, 'quotes'],
  ['quotes by status', () => '/quotes?status=FAILED', 'quotes'],
  ['quotes of the platform itself', () => `/quotes?customerId=${p.platformId}`, 'quotes'],
  ['quotes by receiving account', () => '/quotes?receivingAccountId=ExternalAccount:7', 'quotes'],
  ['quotes by creation window', () => `/quotes?createdAfter=${encodeURIComponent(day.toISOString())}&createdBefore=${encodeURIComponent(new Date(day.getTime() + 86_400_000).toISOString())}`, 'quotes'],
  ['quotes by sending account', () => `/quotes?sendingAccountId=${sample.accountId}`, 'quotes'],
  ['quotes by receiving UMA address', () => `/quotes?receivingUmaAddress=${encodeURIComponent('$receiver7@uma.example')}`, 'quotes'],
  ['quotes by sending UMA address', () => `/quotes?sendingUmaAddress=${encodeURIComponent(sample.umaAddress)}`, 'quotes'],
  ['webhook events, newest first', () => '/webhook-events', 'webhook_events'],
  ['webhook events of a resource (the dashboard payment page)', () => `/webhook-events?resourceId=${sample.transactionId}`, 'webhook_events'],
  ['webhook events by type', () => `/webhook-events?type=${sample.eventType}`, 'webhook_events'],
  ['webhook events by delivery status', () => '/webhook-events?deliveryStatus=FAILED', 'webhook_events'],
  // 30d: (platform_id, created_at) gives the window's order; an Incremental Sort orders one timestamp's rows by id.
  ['webhook events by time window', () => `/webhook-events?${window()}`, 'webhook_events'],
  ['cards by state', () => '/cards?state=FROZEN', 'cards'],
  ['cards by cardholder', () => `/cards?cardholderId=${sample.customerId}`, 'cards'],
  ['card transactions in the unfiltered transaction list', () => '/transactions', 'card_transactions'],
  ['card transactions in the transaction list by time window', () => `/transactions?${window()}`, 'card_transactions'],
  ['card transactions in the transaction list by customer', () => `/transactions?customerId=${sample.customerId}`, 'card_transactions'],
  ['card transactions of a card', () => '/transactions?cardId=Card:7', 'card_transactions'],
  ['agents', () => '/agents', 'agents'],
  ['verifications by status', () => '/verifications?verificationStatus=REJECTED', 'verifications'],
  ['verifications by customer', () => `/verifications?customerId=${sample.customerId}`, 'verifications'],
  ['documents of a holder', () => `/documents?documentHolder=${sample.customerId}`, 'documents'],
  ['external accounts of the customers, by currency', () => '/customers/external-accounts?currency=EUR', 'external_accounts'],
  ['external accounts of a customer', () => `/customers/external-accounts?customerId=${sample.customerId}`, 'external_accounts'],
  ['external accounts of the platform', () => '/platform/external-accounts', 'external_accounts'],
];

describe('every list is read through an index in its own order, at the size of a year (issue 30)', () => {
  it.for(LISTS)('%s: no sequential scan, no sort of the whole set', async ([name, url, table], { skip }) => {
    if (onCitus && NOT_JUDGED_ON_CITUS[name]) skip(NOT_JUDGED_ON_CITUS[name]);
    for (const { sql, plan } of await plansOf(url(), table)) {
      expect(planProblems(plan, table), `${sql}\n${JSON.stringify(plan, null, 1)}`).toEqual([]);
      expect(indexesUsed(plan).length, sql).toBeGreaterThan(0);
    }
  });
});

describe('a time window is read through (platform_id, created_at) in its order (issue 30, 30d)', () => {
  const WINDOWS: Array<[string, () => string, string]> = [
    ['transactions', () => `/transactions?${window()}`, 'transactions_platform_id_created_at_idx'],
    ['quotes', () => `/quotes?createdAfter=${encodeURIComponent(day.toISOString())}&createdBefore=${encodeURIComponent(new Date(day.getTime() + 86_400_000).toISOString())}`, 'quotes_platform_id_created_at_idx'],
    ['webhook_events', () => `/webhook-events?${window()}`, 'webhook_events_platform_id_created_at_idx'],
  ];
  it.each(WINDOWS)('%s: the created_at index, the ties on created_at put in id order by an Incremental Sort, no Sort', async (table, url, index) => {
    for (const { sql, plan } of await plansOf(url(), table)) {
      expect(indexesUsed(plan), sql).toContain(index);
      const nodes = (n: PlanNode): string[] => [n['Node Type'], ...(n.Plans ?? []).flatMap(nodes)];
      expect(nodes(plan), `${sql}\n${JSON.stringify(plan, null, 1)}`).not.toContain('Sort');
    }
  });
});

describe('the sweeps read only the rows that are due (issue 30)', () => {
  const LARGE = ['transactions', 'quotes', 'webhook_events'];
  /** Indexes over the rows that are due (partial, or ordered by the due date), and primary keys. */
  const DUE = /^(transactions_processing_reconcile_idx|transactions_return_watch_due_idx|transactions_refund_pending_idx|transactions_live_idx|quotes_pending_expiry_idx|webhook_events_unrelayed_idx|webhook_events_due_idx|webhook_events_unpruned_idx|idempotency_records_expires_at_idx|webhook_attempts_attempted_at_idx|\w+_pkey)$/;
  const SWEEPS: Array<[string, () => Promise<unknown>]> = [
    ['quote expiry', () => sweepPayments(env.deps)],
    ['submissions and refunds owed, reconciliation', () => sweepPaymentWork(env.deps)],
    ['outbox relay', () => relayOutbox(env.deps)],
    ['webhook delivery sweep', () => sweepDeliveries(env.deps)],
    ['retention', () => pruneOnce(env.deps)],
  ];
  it.for(SWEEPS)('%s: every statement through an index over the due rows, no scan of a large table', async ([name, sweep], { skip }) => {
    if (onCitus && NOT_JUDGED_ON_CITUS[name]) skip(NOT_JUDGED_ON_CITUS[name]);
    const seen: Array<{ text: string; values?: unknown[] }> = [];
    const stop = onStatement(env.deps.prisma, (text, values) => seen.push({ text, values }));
    try {
      await sweep();
    } finally {
      stop();
    }
    const reads = seen.filter((s) => /^\s*(SELECT|UPDATE|DELETE|WITH)/i.test(s.text) && LARGE.some((t) => s.text.includes(t)));
    expect(reads.length).toBeGreaterThan(0);
    for (const s of reads) {
      const plan = await explain(s.text, s.values);
      const scans = LARGE.flatMap((table) => seqScans(plan, table));
      expect(scans, `${s.text}\n${JSON.stringify(plan, null, 1)}`).toEqual([]);
      expect(indexesUsed(plan).filter((i) => !DUE.test(i)), s.text).toEqual([]);
    }
  });
});

describe('reconciliation reads the checks due, not a week of completed payments (30g)', () => {
  function nodesOn(node: PlanNode, index: string, out: PlanNode[] = []): PlanNode[] {
    if (node['Index Name'] === index) out.push(node);
    for (const child of node.Plans ?? []) nodesOn(child, index, out);
    return out;
  }
  it.skipIf(onCitus)('the watched payments from their next check on (an Index Cond on reconcile_after, not a filter over the week); the payments in flight through theirs', async () => {
    const seen: Array<{ text: string; values?: unknown[] }> = [];
    const stop = onStatement(env.deps.prisma, (text, values) => seen.push({ text, values }));
    try {
      await claimDuePayments(env.deps, new Date());
    } finally {
      stop();
    }
    const claim = seen.find((s) => /UPDATE "transactions" SET "reconcile_after"/.test(s.text));
    expect(claim, 'the claim statement').toBeDefined();
    const plan = await explain(claim!.text, claim!.values);
    const shown = JSON.stringify(plan, null, 1);
    const watched = nodesOn(plan, 'transactions_return_watch_due_idx');
    expect(watched.length, shown).toBeGreaterThan(0);
    for (const n of watched) expect(n['Index Cond'] ?? '', shown).toMatch(/reconcile_after <=/);
    expect(nodesOn(plan, 'transactions_processing_reconcile_idx').length, shown).toBeGreaterThan(0);
    expect(seqScans(plan, 'transactions'), shown).toEqual([]);
  });
});

describe('a card authorization finds every row by its key (issue 27)', () => {
  /**
   * The tables an authorization reads that the year's seed makes large, and the only indexes it may read
   * them through. (The seed leaves internal_accounts and platform_currencies a few rows, where a scan is
   * the planner's right choice; the accounts are joined by id with the platform checked after the lookup.)
   */
  const KEYS: Record<string, RegExp> = {
    cards: /^(cards_pkey|cards_processor_ref_key)$/,
    customers: /^customers_pkey$/,
    card_transactions: /^card_transactions_platform_id_token_key$/,
  };
  function problems(node: PlanNode, out: string[] = []): string[] {
    const table = node['Relation Name'];
    if (table && KEYS[table]) {
      if (node['Node Type'] === 'Seq Scan') out.push(`Seq Scan on ${table}`);
      if (node['Index Name'] && !KEYS[table]!.test(node['Index Name'])) out.push(`${table} read through ${node['Index Name']}`);
    }
    for (const child of node.Plans ?? []) problems(child, out);
    return out;
  }

  // Not on Citus (NOT_JUDGED_ON_CITUS above): the card is found through tenant_lookups, so the statement's shard is
  // known only when it runs, and EXPLAIN shows one of the eight shards' plans.
  it.skipIf(onCitus)('the facts read and the one writing statement, at the size of a year', async () => {
    // The seeded year holds thousands of live cards: room for one more.
    expect((await p.request({ method: 'PATCH', url: '/config', payload: { maxLiveCards: 10_000_000 } })).statusCode).toBe(200);
    const customer = (await p.request({ method: 'POST', url: '/customers', payload: { customerType: 'INDIVIDUAL', platformCustomerId: `plan-card-${Date.now()}`, fullName: 'Plan Card', currencies: ['USD'] } })).json();
    await db.query(`UPDATE customers SET status = 'APPROVED' WHERE id = $1`, [customer.id]);
    const account = (await db.query(`SELECT id FROM internal_accounts WHERE customer_id = $1 AND currency = 'USD'`, [customer.id])).rows[0]?.id as string;
    expect(account, 'the customer has a USD account').toEqual(expect.any(String));
    expect((await p.request({ method: 'POST', url: `/sandbox/internal-accounts/${account}/fund`, payload: { amount: 100_000 } })).statusCode).toBe(200);
    const card = await p.request({ method: 'POST', url: '/cards', payload: { cardholderId: customer.id, form: 'VIRTUAL', fundingSources: [account], platformCardId: `plan-card-${Date.now()}x` } });
    expect(card.statusCode, card.body).toBe(201);
    const seen: Array<{ text: string; values?: unknown[] }> = [];
    const stop = onStatement(env.deps.prisma, (text, values) => seen.push({ text, values }));
    try {
      const res = await p.request({ method: 'POST', url: `/sandbox/cards/${card.json().id}/simulate/authorization`, payload: { amount: 500, currency: 'USD', merchant: { descriptor: 'PLAN SHOP' } } });
      expect(res.statusCode, res.body).toBe(202);
    } finally {
      stop();
    }
    const statements = seen.filter((s) => /card_transactions|processor_ref/.test(s.text) && /^\s*(SELECT|WITH)/i.test(s.text));
    expect(statements.length).toBeGreaterThanOrEqual(2);
    for (const s of statements) {
      const plan = await explain(s.text, s.values);
      expect(problems(plan), `${s.text}\n${JSON.stringify(plan, null, 1)}`).toEqual([]);
    }
  });
});
