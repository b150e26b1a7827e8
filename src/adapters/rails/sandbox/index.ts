import type { CallOptions } from '../../common.js';
import { poolOf, query, type PrismaClient } from '../../../platform/db.js';
import type { NetworkFeeEstimate, NetworkFeeRequest, PayoutRequest, PayoutResult, RailAdapter, RefundResult } from '../port.js';

/**
 * Deterministic sandbox rail (decision A9). The outcome is chosen by the destination identifier's
 * last three digits, or by the last three digits of the amount (`9xx` amounts, for destinations
 * whose identifier cannot be chosen freely):
 *   002 / amount …902  execution fails at submission (QUOTE_EXECUTION_FAILED)
 *   003 / amount …903  completes slowly (SANDBOX_SLOW_MS, default 6 minutes: a "stuck" payment)
 *   004 / amount …904  counterparty delivery fails after the rail delay (ACCOUNT_CANNOT_RECEIVE)
 *   005 / amount …905  completes, then the bank returns it SANDBOX_RETURN_AFTER_MS after it first
 *                      reported the completion (PAYOUT_RETURNED → FAILED)
 *   006 / amount …906  the user cancels (refund reason USER_CANCELLATION)
 *   007 / amount …907  payout and refund both fail
 *   anything else       completes after the rail's delay
 * The simulated bank keeps its records in Postgres (sandbox_bank_payouts, sandbox_bank_refunds;
 * issue 11: banks do not forget, and Redis may lose its data): one payout per idempotency key (a
 * retried submit returns the first one, every process sees the same payout), one answer per refund
 * key. Outcomes follow from the payout's scenario and the time since its submission, so the bank
 * answers the same whoever asks and whenever. A reference it never issued reads PENDING with
 * `notFound` (never an outcome).
 */
export type Scenario = 'OK' | 'FAIL_AT_SUBMIT' | 'SLOW' | 'DELIVERY_FAILS' | 'RETURNED' | 'CANCELLED' | 'REFUND_FAILS';

const BY_CODE: Record<string, Scenario> = {
  '002': 'FAIL_AT_SUBMIT',
  '003': 'SLOW',
  '004': 'DELIVERY_FAILS',
  '005': 'RETURNED',
  '006': 'CANCELLED',
  '007': 'REFUND_FAILS',
};

export function scenarioFor(identifierLast3: string, amount: bigint): Scenario {
  const byId = BY_CODE[identifierLast3];
  if (byId) return byId;
  const tail = amount % 1000n;
  if (tail >= 902n && tail <= 907n) return BY_CODE[`00${tail - 900n}`]!;
  return 'OK';
}

/** Default settlement delays per rail in milliseconds, scaled by SANDBOX_RAIL_DELAY_SCALE. */
export const RAIL_DELAYS_MS: Record<string, number> = {
  RTP: 500, FEDNOW: 500, INSTAPAY: 500, PIX: 500, SPEI: 1000, UPI: 500, FASTER_PAYMENTS: 1000, SEPA_INSTANT: 500,
  ACH: 8000, WIRE: 4000, SEPA: 4000, SWIFT: 10000, BANK_TRANSFER: 4000, MOBILE_MONEY: 2000, NEFT: 4000, RTGS: 2000,
  PAYNOW: 500, FAST: 500, PESONET: 4000, INTERNAL: 0, CRYPTO: 2000, LIGHTNING: 200,
};

/**
 * The sandbox chain's fees (issue 25), fixed so estimates are deterministic: per network, the fee in its native asset's
 * smallest unit and the same fee in micro-units of a 6-decimal stablecoin. Bitcoin-family networks charge in sats, so
 * a BTC withdrawal's fee in its own currency is the sats themselves; Lightning routes at 0.1% (at least 1 sat).
 */
export const SANDBOX_NETWORK_FEES: Record<string, { asset: string; native: bigint; stable: bigint }> = {
  SOLANA: { asset: 'SOL', native: 5_000n, stable: 750n },
  ETHEREUM: { asset: 'ETH', native: 420_000_000_000_000n, stable: 1_260_000n },
  BASE: { asset: 'ETH', native: 2_100_000_000_000n, stable: 6_300n },
  POLYGON: { asset: 'POL', native: 6_300_000_000_000_000n, stable: 3_000n },
  TRON: { asset: 'TRX', native: 1_100_000n, stable: 300_000n },
  PLASMA: { asset: 'XPL', native: 0n, stable: 0n },
  SPARK: { asset: 'BTC', native: 0n, stable: 0n },
  BITCOIN: { asset: 'BTC', native: 1_500n, stable: 1_500n },
};

export function sandboxNetworkFee(req: NetworkFeeRequest): NetworkFeeEstimate {
  if (req.network === 'LIGHTNING') {
    const sats = req.amount / 1000n > 1n ? req.amount / 1000n : 1n;
    return { networkFee: sats, networkFeeAsset: 'BTC', networkFeeInCurrency: sats };
  }
  const fee = SANDBOX_NETWORK_FEES[req.network];
  if (!fee) return { networkFee: 0n, networkFeeAsset: req.currency, networkFeeInCurrency: 0n };
  const inCurrency = req.currency === 'BTC' ? (fee.asset === 'BTC' ? fee.native : 0n) : fee.stable;
  return { networkFee: fee.native, networkFeeAsset: fee.asset, networkFeeInCurrency: inCurrency };
}

interface Stored {
  reference: string;
  scenario: Scenario;
  submittedAtMs: number;
  rail: string;
  /** RETURNED scenario: when the bank first answered COMPLETED (the return is counted from then). */
  completedAtMs: number | null;
}

export interface SandboxRailOptions {
  /** The service's database: the bank's tables live there (they are not tenant data). */
  db: PrismaClient;
  now: () => number;
  delayScale: number;
  slowMs: number;
  /** How long after completion a 005 payout is returned. */
  returnAfterMs: number;
}

export function createSandboxRail(opts: SandboxRailOptions): RailAdapter {
  const delayOf = (rail: string) => Math.round((RAIL_DELAYS_MS[rail] ?? 2000) * opts.delayScale);

  function statusOf(ref: string, s: Stored): PayoutResult {
    const elapsed = opts.now() - s.submittedAtMs;
    const delay = s.scenario === 'SLOW' ? opts.slowMs : delayOf(s.rail);
    const pending = (left: number): PayoutResult => ({ status: 'PENDING', reference: ref, pollAfterMs: Math.max(left, 10) });
    switch (s.scenario) {
      case 'FAIL_AT_SUBMIT':
        return { status: 'FAILED', reference: ref, failureReason: 'QUOTE_EXECUTION_FAILED', retryable: false };
      case 'DELIVERY_FAILS':
      case 'REFUND_FAILS':
        return elapsed < delay ? pending(delay - elapsed) : { status: 'FAILED', reference: ref, failureReason: 'ACCOUNT_CANNOT_RECEIVE', retryable: false };
      case 'CANCELLED':
        return elapsed < delay ? pending(delay - elapsed) : { status: 'FAILED', reference: ref, failureReason: 'USER_CANCELLATION', retryable: false };
      case 'RETURNED': {
        if (elapsed < delay) return pending(delay - elapsed);
        // Returned SANDBOX_RETURN_AFTER_MS after the bank first reported the payout completed, so the
        // service always sees COMPLETED first, however late it asks.
        const sinceCompleted = s.completedAtMs === null ? 0 : opts.now() - s.completedAtMs;
        if (sinceCompleted < opts.returnAfterMs) return { status: 'COMPLETED', reference: ref, pollAfterMs: Math.max(opts.returnAfterMs - sinceCompleted, 10) };
        return { status: 'RETURNED', reference: ref, failureReason: 'PAYOUT_RETURNED', retryable: false };
      }
      default:
        return elapsed < delay ? pending(delay - elapsed) : { status: 'COMPLETED', reference: ref };
    }
  }

  /** The bank's answer; the first COMPLETED of a payout that will be returned is recorded (once). */
  async function answer(s: Stored): Promise<PayoutResult> {
    const result = statusOf(s.reference, s);
    if (s.scenario === 'RETURNED' && result.status === 'COMPLETED' && s.completedAtMs === null) {
      await opts.db.sandboxBankPayout.updateMany({ where: { reference: s.reference, completedAt: null }, data: { completedAt: new Date(opts.now()) } });
      const fresh = await opts.db.sandboxBankPayout.findUniqueOrThrow({ where: { reference: s.reference } });
      return statusOf(s.reference, toStored(fresh));
    }
    return result;
  }

  return {
    id: 'sandbox',
    rails: Object.keys(RAIL_DELAYS_MS),
    expectedSettlementMs: Object.fromEntries(Object.keys(RAIL_DELAYS_MS).map((rail) => [rail, delayOf(rail)])),
    estimateNetworkFee: async (req: NetworkFeeRequest) => sandboxNetworkFee(req),
    async submitPayout(req: PayoutRequest, callOpts?: CallOptions) {
      // An aborted call sends nothing: the service repeats it with the same key.
      callOpts?.signal?.throwIfAborted();
      const ref = `sbx_${req.idempotencyKey.replace(/^Transaction:/, '')}`;
      // One statement (issue 12: the bank's side of every payment): the payout as first recorded.
      const r = await query<{ reference: string; scenario: string; submitted_at: Date; rail: string; completed_at: Date | null }>(
        poolOf(opts.db),
        `WITH ins AS (
           INSERT INTO sandbox_bank_payouts (reference, idempotency_key, rail, amount, currency, scenario, submitted_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING
           RETURNING reference, scenario, submitted_at, rail, completed_at)
         SELECT * FROM ins
         UNION ALL SELECT reference, scenario, submitted_at, rail, completed_at FROM sandbox_bank_payouts WHERE reference = $1 AND NOT EXISTS (SELECT 1 FROM ins)`,
        [ref, req.idempotencyKey, req.rail, req.amount.toString(), req.currency, scenarioFor(req.destination.identifierLast3, req.amount), new Date(opts.now())],
      );
      const row = r.rows[0];
      // Inserted meanwhile by a concurrent call (committed after this statement's snapshot): read it.
      const stored = row
        ? { reference: row.reference, scenario: row.scenario, submittedAt: row.submitted_at, rail: row.rail, completedAt: row.completed_at }
        : await opts.db.sandboxBankPayout.findUniqueOrThrow({ where: { reference: ref } });
      return answer(toStored(stored));
    },
    async submitPayouts(reqs: readonly PayoutRequest[], callOpts?: CallOptions) {
      callOpts?.signal?.throwIfAborted();
      // One statement for the lot (issue 12): each payout as first recorded, as submitPayout records it.
      const refs = reqs.map((req) => `sbx_${req.idempotencyKey.replace(/^Transaction:/, '')}`);
      const r = await query<{ reference: string; scenario: string; submitted_at: Date; rail: string; completed_at: Date | null }>(
        poolOf(opts.db),
        `WITH v AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[]) AS v(reference, idempotency_key, rail, amount, currency, scenario)),
              ins AS (
                INSERT INTO sandbox_bank_payouts (reference, idempotency_key, rail, amount, currency, scenario, submitted_at)
                SELECT reference, idempotency_key, rail, amount, currency, scenario, $7 FROM v ORDER BY reference ON CONFLICT DO NOTHING
                RETURNING reference, scenario, submitted_at, rail, completed_at)
         SELECT * FROM ins
         UNION ALL SELECT p.* FROM v
           -- Each recorded payout by its key (OFFSET 0 keeps the lookup per row: never a scan of the table).
           CROSS JOIN LATERAL (SELECT reference, scenario, submitted_at, rail, completed_at FROM sandbox_bank_payouts WHERE reference = v.reference OFFSET 0) p
          WHERE NOT EXISTS (SELECT 1 FROM ins WHERE ins.reference = v.reference)`,
        [
          refs,
          reqs.map((req) => req.idempotencyKey),
          reqs.map((req) => req.rail),
          reqs.map((req) => req.amount.toString()),
          reqs.map((req) => req.currency),
          reqs.map((req) => scenarioFor(req.destination.identifierLast3, req.amount)),
          new Date(opts.now()),
        ],
      );
      const byRef = new Map(r.rows.map((row) => [row.reference, { reference: row.reference, scenario: row.scenario, submittedAt: row.submitted_at, rail: row.rail, completedAt: row.completed_at }]));
      return Promise.all(
        refs.map(async (ref) => {
          // Inserted meanwhile by a concurrent call (committed after this statement's snapshot): read it.
          const stored = byRef.get(ref) ?? (await opts.db.sandboxBankPayout.findUniqueOrThrow({ where: { reference: ref } }));
          return answer(toStored(stored));
        }),
      );
    },
    async getPayoutStatus(reference: string, callOpts?: CallOptions) {
      callOpts?.signal?.throwIfAborted();
      const stored = await opts.db.sandboxBankPayout.findUnique({ where: { reference } });
      // Unknown to the bank: never guess an outcome.
      if (!stored) return { status: 'PENDING', reference, pollAfterMs: 1000, notFound: true };
      return answer(toStored(stored));
    },
    async getPayoutStatuses(queries: ReadonlyArray<{ reference: string; idempotencyKey: string }>, callOpts?: CallOptions) {
      callOpts?.signal?.throwIfAborted();
      // One read for the lot (issue 24: the worker's poll batches); each answer as getPayoutStatus gives it.
      const rows = await opts.db.sandboxBankPayout.findMany({ where: { reference: { in: queries.map((q) => q.reference) } } });
      const byRef = new Map(rows.map((row) => [row.reference, row]));
      return Promise.all(
        queries.map(async ({ reference }): Promise<PayoutResult> => {
          const stored = byRef.get(reference);
          if (!stored) return { status: 'PENDING', reference, pollAfterMs: 1000, notFound: true };
          return answer(toStored(stored));
        }),
      );
    },
    async refundPayout(req, callOpts?: CallOptions): Promise<RefundResult> {
      callOpts?.signal?.throwIfAborted();
      const payout = await opts.db.sandboxBankPayout.findUnique({ where: { reference: req.reference } });
      // 007 refunds fail; a payout the bank never received has nothing to return (FAILED: an operator looks).
      const status = !payout || payout.scenario === 'REFUND_FAILS' ? 'FAILED' : 'COMPLETED';
      const reference = `rfd_${req.idempotencyKey.replace(/[^A-Za-z0-9-]/g, '')}`;
      await opts.db.sandboxBankRefund.createMany({ data: [{ idempotencyKey: req.idempotencyKey, payoutReference: req.reference, reference, status }], skipDuplicates: true });
      const stored = await opts.db.sandboxBankRefund.findUniqueOrThrow({ where: { idempotencyKey: req.idempotencyKey } });
      return { status: stored.status as 'COMPLETED' | 'FAILED', reference: stored.reference };
    },
  };
}

function toStored(row: { reference: string; scenario: string; submittedAt: Date; rail: string; completedAt: Date | null }): Stored {
  return { reference: row.reference, scenario: row.scenario as Scenario, submittedAtMs: row.submittedAt.getTime(), rail: row.rail, completedAtMs: row.completedAt?.getTime() ?? null };
}
