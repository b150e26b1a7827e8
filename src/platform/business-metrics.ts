import client from 'prom-client';
import type { PrismaClient } from './db.js';
import type { Queues } from './queue.js';

/**
 * Business metrics, cluster-wide: read from Postgres (the record of everything owed) when Prometheus
 * scrapes, so every API replica reports the same numbers. Each query is bounded — open payments by
 * the (status, reconcile_after) index, recent payments and journals by their created_at index — and
 * one scrape's results are reused for CACHE_MS so several scrapers cost one round of queries.
 */
const CACHE_MS = 10_000;
/** Upper bounds of the settlement-latency buckets, in seconds (instant rails to a week of ACH). */
export const SETTLEMENT_BUCKETS = [1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 24 * 3600, 3 * 24 * 3600, 7 * 24 * 3600];

interface Snapshot {
  open: Array<{ status: string; rail: string; n: number }>;
  recent: Array<{ status: string; rail: string; n: number }>;
  settlement: Array<{ rail: string; buckets: number[]; count: number; sum: number }>;
  stuck: Array<{ rail: string; n: number }>;
  unbalancedJournals: number;
}

export interface BusinessMetricsDeps {
  prisma: PrismaClient;
  queues: Queues;
  /** The rail's expected settlement time (adapters) plus the grace reconciliation allows (PAYMENT_STALE_MS). */
  stuckAfterMs(rail: string | null): number;
}

export function registerBusinessMetrics(registry: client.Registry, deps: BusinessMetricsDeps) {
  let cached: { at: number; snap: Promise<Snapshot> } | undefined;
  const snapshot = () => {
    if (!cached || Date.now() - cached.at > CACHE_MS) {
      cached = { at: Date.now(), snap: read(deps) };
      cached.snap.catch(() => (cached = undefined));
    }
    return cached.snap;
  };

  /** A gauge recomputed from the snapshot at each scrape: one value per label set `values` gives. */
  const snapshotGauge = <L extends string>(name: string, help: string, labelNames: readonly L[], values: (s: Snapshot) => Array<[Record<L, string>, number]>) =>
    new client.Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        this.reset();
        for (const [labels, value] of values(await snapshot())) this.set(labels as client.LabelValues<L>, value);
      },
    });

  snapshotGauge('svc_payments_open', 'Outgoing payments not yet final (PENDING, PROCESSING), by status and rail', ['status', 'rail'], (s) =>
    s.open.map((r) => [{ status: r.status, rail: r.rail }, r.n]),
  );
  snapshotGauge('svc_payments_last_24h', 'Outgoing payments created in the last 24 hours, by current status and rail', ['status', 'rail'], (s) =>
    s.recent.map((r) => [{ status: r.status, rail: r.rail }, r.n]),
  );
  snapshotGauge('svc_payments_stuck', "PROCESSING payments past their rail's expected settlement time plus PAYMENT_STALE_MS, by rail", ['rail'], (s) =>
    s.stuck.map((r) => [{ rail: r.rail }, r.n]),
  );
  // Settlement latency (submission, else creation, to settlement) of payments completed among those
  // created in the last 24 hours, as cumulative buckets (a gauge histogram: recomputed from Postgres at each scrape).
  snapshotGauge('svc_payment_settlement_seconds_bucket', 'Settlement latency of payments created in the last 24 h: payments settled within le seconds', ['rail', 'le'], (s) =>
    s.settlement.flatMap((r) => [
      ...SETTLEMENT_BUCKETS.map((le, i): [Record<'rail' | 'le', string>, number] => [{ rail: r.rail, le: String(le) }, r.buckets[i] ?? 0]),
      [{ rail: r.rail, le: '+Inf' }, r.count] as [Record<'rail' | 'le', string>, number],
    ]),
  );
  snapshotGauge('svc_payment_settlement_seconds_sum', 'Total settlement latency of payments created in the last 24 h, in seconds', ['rail'], (s) =>
    s.settlement.map((r) => [{ rail: r.rail }, r.sum]),
  );
  snapshotGauge('svc_payment_settlement_seconds_count', 'Settled payments created in the last 24 h', ['rail'], (s) => s.settlement.map((r) => [{ rail: r.rail }, r.count]));
  new client.Gauge({
    name: 'svc_webhook_backlog',
    help: 'Webhook deliveries waiting, scheduled for retry or in flight (all workers)',
    registers: [registry],
    async collect() {
      const q = deps.queues.webhooks;
      if (!q) return this.set(0);
      const c = await q.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
      this.set(Object.values(c).reduce((a, b) => a + b, 0));
    },
  });
  snapshotGauge('svc_ledger_unbalanced_journals', 'Ledger journals of the last 24 hours whose entries do not sum to zero per currency (must be 0)', [], (s) => [[{}, s.unbalancedJournals]]);
  snapshotGauge('svc_ledger_balanced', '1 when every ledger journal of the last 24 hours balances, else 0', [], (s) => [[{}, s.unbalancedJournals === 0 ? 1 : 0]]);
  // hook:27 — card transactions in EXCEPTION (the network was paid, the funding source was not): alert on any.
  new client.Gauge({
    name: 'svc_card_transaction_exceptions',
    help: 'Card transactions in EXCEPTION (booked against the platform receivable), all platforms',
    registers: [registry],
    async collect() {
      const rows = await deps.prisma.$queryRaw<Array<{ n: bigint }>>`SELECT count(*)::bigint AS n FROM card_transactions WHERE status = 'EXCEPTION'`.catch(() => [{ n: 0n }]);
      this.set(Number(rows[0]?.n ?? 0));
    },
  });
}

async function read(deps: BusinessMetricsDeps): Promise<Snapshot> {
  const p = deps.prisma;
  const bucketSql = SETTLEMENT_BUCKETS.map((b) => `count(*) FILTER (WHERE secs <= ${b})::int`).join(', ');
  const [open, recent, settlement, processingRails, unbalanced] = await Promise.all([
    p.$queryRawUnsafe<Array<{ status: string; rail: string; n: number }>>(
      `SELECT status, coalesce(payment_rail, 'NONE') AS rail, count(*)::int AS n FROM transactions
       WHERE status IN ('PENDING', 'PROCESSING') AND type = 'OUTGOING' GROUP BY 1, 2`,
    ),
    p.$queryRawUnsafe<Array<{ status: string; rail: string; n: number }>>(
      `SELECT status, coalesce(payment_rail, 'NONE') AS rail, count(*)::int AS n FROM transactions
       WHERE created_at > now() - interval '24 hours' AND type = 'OUTGOING' GROUP BY 1, 2`,
    ),
    p.$queryRawUnsafe<Array<{ rail: string; buckets: number[]; count: number; sum: number }>>(
      `SELECT rail, ARRAY[${bucketSql}] AS buckets, count(*)::int AS count, coalesce(sum(secs), 0)::float8 AS sum FROM (
         SELECT coalesce(payment_rail, 'NONE') AS rail, extract(epoch FROM settled_at - coalesce(submitted_at, created_at))::float8 AS secs
         FROM transactions WHERE created_at > now() - interval '24 hours' AND type = 'OUTGOING' AND status = 'COMPLETED' AND settled_at IS NOT NULL
       ) s GROUP BY rail`,
    ),
    p.$queryRawUnsafe<Array<{ rail: string | null }>>(`SELECT DISTINCT payment_rail AS rail FROM transactions WHERE status = 'PROCESSING'`),
    p.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM (
         SELECT j.id FROM ledger_journals j JOIN ledger_entries e ON e.platform_id = j.platform_id AND e.journal_id = j.id
         WHERE j.created_at > now() - interval '24 hours' GROUP BY j.id, e.currency HAVING sum(e.amount) <> 0
       ) u`,
    ),
  ]);
  const stuck = await Promise.all(
    processingRails.map(async ({ rail }) => {
      const cutoff = new Date(Date.now() - deps.stuckAfterMs(rail));
      const rows = await p.$queryRawUnsafe<Array<{ n: number }>>(
        `SELECT count(*)::int AS n FROM transactions WHERE status = 'PROCESSING' AND payment_rail IS NOT DISTINCT FROM $1 AND coalesce(submitted_at, created_at) < $2`,
        rail,
        cutoff,
      );
      return { rail: rail ?? 'NONE', n: rows[0]?.n ?? 0 };
    }),
  );
  return { open, recent, settlement, stuck, unbalancedJournals: unbalanced[0]?.n ?? 0 };
}
