/**
 * Issue 30: the lists rewritten so an index serves every filter still return exactly the right rows, in
 * order, each once across pages (keyset pagination): either-or filters merged from two index scans,
 * time windows paged by (createdAt, id), webhook events by their resource_id column; and retention
 * cuts old payloads down without losing an event from the log.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { pruneOnce } from '../../src/platform/retention.js';

let env: TestEnv;
let p: TestPlatform;
let other: TestPlatform;
let db: pg.Client;
const DAY = 86_400_000;
const now = Date.now();

interface Row {
  id: string;
  createdAt: Date;
  sending: string;
  receiving: string;
  source: string;
  destination: string;
  customer: string | null;
  rail: string | null;
  refund: string | null;
}
const rows: Row[] = [];
const quoteIds: string[] = [];

/** A UUIDv7 id of `at` (ids sort by creation, as the service makes them). */
function idAt(type: string, at: Date, n: number): string {
  const hex = at.getTime().toString(16).padStart(12, '0') + '7' + n.toString(16).padStart(3, '0').slice(-3) + '8' + (n * 7919).toString(16).padStart(15, '0').slice(-15);
  return `${type}:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Every page of `url` (limit 7), checking each row appears once; returns the ids in page order. */
async function pageAll(platform: TestPlatform, url: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 200; i++) {
    const sep = url.includes('?') ? '&' : '?';
    const res = await platform.request({ method: 'GET', url: `${url}${sep}limit=7${cursor ? `&cursor=${cursor}` : ''}` });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    ids.push(...body.data.map((d: { id: string }) => d.id));
    expect(body.hasMore).toBe(Boolean(body.nextCursor));
    if (!body.hasMore) break;
    cursor = body.nextCursor;
  }
  expect(new Set(ids).size, 'a row returned twice').toBe(ids.length);
  return ids;
}

const newestFirst = (a: Row, b: Row) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1);

beforeAll(async () => {
  env = await createTestEnv();
  p = await env.platform();
  other = await env.platform();
  db = new pg.Client({ connectionString: env.databaseUrl });
  await db.connect();
  const currencies = ['USD', 'EUR', 'GBP'];
  for (let i = 0; i < 60; i++) {
    // Two rows share each timestamp in the window below: the keyset must break ties by id.
    const at = new Date(now - Math.floor(i / 2) * 3_600_000 - (i % 2 === 0 ? 0 : 0));
    rows.push({
      id: idAt('Transaction', at, i),
      createdAt: at,
      sending: currencies[i % 3]!,
      receiving: currencies[Math.floor(i / 3) % 3]!,
      source: `InternalAccount:src-${i % 4}`,
      destination: `InternalAccount:src-${(i + 1) % 4}`,
      customer: null,
      rail: i % 10 === 0 ? `ref-${i}` : null,
      refund: i % 10 === 5 ? `ref-${i - 5}` : null,
    });
  }
  for (const [platform, list] of [[p, rows], [other, rows.slice(0, 5)]] as const) {
    for (const [n, r] of list.entries()) {
      const id = platform === p ? r.id : idAt('Transaction', r.createdAt, 1000 + n);
      const quoteId = idAt('Quote', r.createdAt, platform === p ? n : 1000 + n);
      if (platform === p) quoteIds.push(quoteId);
      await db.query(
        `INSERT INTO quotes (id, platform_id, status, source_account_id, source, destination, destination_kind, sending_currency, receiving_currency, locked_side, locked_amount,
           total_sending_amount, total_receiving_amount, exchange_rate, fees_included, platform_fees_included, service_fees_included, transaction_id, expires_at, created_at, updated_at)
         VALUES ($1, $2, 'COMPLETED', $3, '{}', '{}', 'INTERNAL', $4, $5, 'SENDING', 100, 100, 100, '1', 0, 0, 0, $6, $7, $7, $7)`,
        [quoteId, platform.platformId, r.source, r.sending, r.receiving, id, r.createdAt],
      );
      await db.query(
        `INSERT INTO transactions (id, platform_id, quote_id, status, type, direction, source_account_id, source, destination, destination_kind, destination_account_id,
           sent_amount, sending_currency, received_amount, receiving_currency, exchange_rate, fees, platform_fees, service_fees, rail_reference, refund_reference, created_at, updated_at)
         VALUES ($1, $2, $3, 'COMPLETED', 'OUTGOING', 'DEBIT', $4, '{}', '{}', 'INTERNAL', $5, 100, $6, 100, $7, '1', 0, 0, 0, $8, $9, $10, $10)`,
        [id, platform.platformId, quoteId, r.source, r.destination, r.sending, r.receiving, r.rail, r.refund, r.createdAt],
      );
    }
  }
}, 120_000);

afterAll(async () => {
  await db?.end();
  await env?.close();
});

describe('transactions lists served by an index keep their answers (issue 30)', () => {
  it('currency matches the sent or the received currency: every such payment once, newest first, across pages', async () => {
    const expected = rows.filter((r) => r.sending === 'EUR' || r.receiving === 'EUR').sort(newestFirst).map((r) => r.id);
    expect(expected.some((id) => rows.find((r) => r.id === id)!.sending === 'EUR' && rows.find((r) => r.id === id)!.receiving === 'EUR')).toBe(true);
    expect(await pageAll(p, '/transactions?currency=EUR')).toEqual(expected);
  });

  it('oldest first too, the cursor continuing above the last id seen', async () => {
    const expected = rows.filter((r) => r.sending === 'GBP' || r.receiving === 'GBP').sort(newestFirst).reverse().map((r) => r.id);
    expect(await pageAll(p, '/transactions?currency=GBP&sortOrder=asc')).toEqual(expected);
  });

  it('accountIdentifier matches either side of the payment', async () => {
    const acct = 'InternalAccount:src-2';
    const expected = rows.filter((r) => r.source === acct || r.destination === acct).sort(newestFirst).map((r) => r.id);
    expect(expected.length).toBeGreaterThan(7);
    expect(await pageAll(p, `/transactions?accountIdentifier=${acct}`)).toEqual(expected);
  });

  it('reference matches the rail reference or the refund reference', async () => {
    const expected = rows.filter((r) => r.rail === 'ref-10' || r.refund === 'ref-10').sort(newestFirst).map((r) => r.id);
    expect(expected).toHaveLength(2);
    expect(await pageAll(p, '/transactions?reference=ref-10')).toEqual(expected);
  });

  it('a time window pages by (createdAt, id): rows sharing a timestamp each appear once, nothing outside the window', async () => {
    const start = new Date(now - 20 * 3_600_000 - 1);
    const end = new Date(now - 3 * 3_600_000);
    const expected = rows.filter((r) => r.createdAt >= start && r.createdAt <= end).sort(newestFirst).map((r) => r.id);
    expect(expected.length).toBeGreaterThan(20);
    const q = `startDate=${encodeURIComponent(start.toISOString())}&endDate=${encodeURIComponent(end.toISOString())}`;
    expect(await pageAll(p, `/transactions?${q}`)).toEqual(expected);
    expect(await pageAll(p, `/transactions?${q}&currency=USD`)).toEqual(
      rows.filter((r) => r.createdAt >= start && r.createdAt <= end && (r.sending === 'USD' || r.receiving === 'USD')).sort(newestFirst).map((r) => r.id),
    );
  });

  it('another platform rows never appear, whatever the filter', async () => {
    const ids = await pageAll(other, '/transactions?currency=EUR');
    expect(ids.every((id) => !rows.some((r) => r.id === id))).toBe(true);
    expect(await pageAll(p, '/transactions')).toHaveLength(rows.length);
  });

  it('a cursor that is not one of ours is refused with the spec error', async () => {
    const res = await p.request({ method: 'GET', url: '/transactions?cursor=not-a-cursor&startDate=2026-01-01T00:00:00Z' });
    expect(res.statusCode).toBe(400);
    expect(res.json().details.errors[0].field).toBe('cursor');
  });
});

describe('quotes lists (issue 30)', () => {
  it('a creation window pages by (createdAt, id), newest first', async () => {
    const after = new Date(now - 10 * 3_600_000);
    const expected = rows.map((r, i) => ({ ...r, id: quoteIds[i]! })).filter((r) => r.createdAt >= after).sort(newestFirst).map((r) => r.id);
    expect(await pageAll(p, `/quotes?createdAfter=${encodeURIComponent(after.toISOString())}`)).toEqual(expected);
  });

  it('by sending account, newest first', async () => {
    const expected = rows.map((r, i) => ({ ...r, id: quoteIds[i]! })).filter((r) => r.source === 'InternalAccount:src-1').sort(newestFirst).map((r) => r.id);
    expect(await pageAll(p, '/quotes?sendingAccountId=InternalAccount:src-1')).toEqual(expected);
  });
});

describe('webhook events by resource and retention (issue 30)', () => {
  it('events are listed by the resource_id set at insert; retention cuts old payloads and keeps them listed', async () => {
    const resource = rows[0]!.id;
    const old = new Date(now - 40 * DAY);
    for (let i = 0; i < 9; i++) {
      const at = i < 5 ? new Date(old.getTime() + i * 1000) : new Date(now - i * 1000);
      await db.query(`INSERT INTO webhook_events (id, platform_id, type, data, created_at, relayed_at, delivery_status) VALUES ($1, $2, $3, $4, $5, $5, 'DELIVERED')`, [
        idAt('Webhook', at, i).slice('Webhook:'.length), // the row's id is the uuid (30f)
        p.platformId,
        'OUTGOING_PAYMENT.COMPLETED',
        JSON.stringify({ id: resource, status: 'COMPLETED', sentAmount: { amount: 100, currency: { code: 'USD' } }, description: 'x'.repeat(500) }),
        at,
      ]);
    }
    await db.query(`INSERT INTO webhook_events (id, platform_id, type, data, created_at, relayed_at) VALUES ($1, $2, 'OUTGOING_PAYMENT.COMPLETED', $3, now(), now())`, [
      idAt('Webhook', new Date(), 99).slice('Webhook:'.length), // the row's id is the uuid (30f)
      other.platformId,
      JSON.stringify({ id: resource }),
    ]);
    await db.query(`INSERT INTO idempotency_records (platform_id, key, fingerprint, state, created_at, expires_at) VALUES ($1, 'old', 'f', 'DONE', now() - interval '2 days', now() - interval '1 day'), ($1, 'live', 'f', 'DONE', now(), now() + interval '1 day')`, [p.platformId]);

    const before = await pageAll(p, `/webhook-events?resourceId=${resource}`);
    expect(before).toHaveLength(9);
    const pass = await pruneOnce(env.deps);
    expect(pass.eventsPruned).toBe(5);
    expect(pass.idempotencyDeleted).toBe(1);
    expect(await pageAll(p, `/webhook-events?resourceId=${resource}`)).toEqual(before);
    const listed = (await p.request({ method: 'GET', url: `/webhook-events?resourceId=${resource}&limit=100` })).json().data as Array<{ id: string; data: Record<string, unknown> }>;
    const kept = listed.filter((e) => e.data.description);
    expect(kept).toHaveLength(4);
    const cut = listed.filter((e) => !e.data.description);
    expect(cut.map((e) => e.data)).toEqual(Array(5).fill({ id: resource, status: 'COMPLETED' }));
    expect((await db.query(`SELECT key FROM idempotency_records WHERE platform_id = $1`, [p.platformId])).rows.map((r) => r.key)).toEqual(['live']);
    // A second pass finds nothing due.
    expect(await pruneOnce(env.deps)).toEqual({ eventsPruned: 0, attemptsDeleted: 0, idempotencyDeleted: 0, statusChangesDeleted: 0 });
  });

  it('old events still owed a delivery keep their payload and do not hold back the pruning of delivered ones (27e)', async () => {
    const resource = 'Transaction:retention-pending-27e';
    const old = new Date(now - 50 * DAY);
    // The oldest three are still PENDING (an endpoint down for weeks, a redelivery queued): a batch of 2 taken
    // among all unpruned events would be theirs, prune nothing, and leave the delivered ones behind them whole.
    for (let i = 0; i < 5; i++) {
      const at = new Date(old.getTime() + i * 1000);
      await db.query(`INSERT INTO webhook_events (id, platform_id, type, data, created_at, relayed_at, delivery_status) VALUES ($1, $2, 'OUTGOING_PAYMENT.COMPLETED', $3, $4, $4, $5)`, [
        idAt('Webhook', at, 500 + i).slice('Webhook:'.length), // the row's id is the uuid (30f)
        p.platformId,
        JSON.stringify({ id: resource, status: 'COMPLETED', description: 'y'.repeat(100) }),
        at,
        i < 3 ? 'PENDING' : 'DELIVERED',
      ]);
    }
    const smallBatch = { ...env.deps, config: { ...env.deps.config, RETENTION_BATCH: 2 } };
    expect((await pruneOnce(smallBatch)).eventsPruned).toBe(2);
    const rows = (await db.query(`SELECT delivery_status, pruned_at IS NOT NULL AS pruned, data ? 'description' AS whole FROM webhook_events WHERE resource_id = svc_resource_key($1) ORDER BY created_at`, [resource])).rows;
    expect(rows).toEqual([
      ...Array(3).fill({ delivery_status: 'PENDING', pruned: false, whole: true }),
      ...Array(2).fill({ delivery_status: 'DELIVERED', pruned: true, whole: false }),
    ]);
    expect((await pruneOnce(smallBatch)).eventsPruned).toBe(0);
  });
});
