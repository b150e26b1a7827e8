import { asCallError, type AdapterKind, type AdapterLogger, type CallOptions } from './common.js';
import { FxRateUnavailableError } from './fx/port.js';
import { PAYOUT_STATUSES, RailError, type NetworkFeeRequest, type PayoutRequest, type PayoutResult, type RailAdapter, type RefundResult } from './rails/port.js';

/**
 * Every adapter call goes through here: bounded by PROVIDER_TIMEOUT_MS (the adapter gets the
 * AbortSignal; one that ignores it is abandoned at the deadline all the same), and a rail's answers
 * are read defensively: a status outside our vocabulary is PENDING (never guess an outcome).
 */

/** Runs `call` with a signal that fires after `timeoutMs` (or with the caller's signal). */
export async function withDeadline<T>(timeoutMs: number, outer: AbortSignal | undefined, call: (signal: AbortSignal) => Promise<T>, onTimeout: () => Error): Promise<T> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = outer ? AbortSignal.any([timeout, outer]) : timeout;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(timeout.aborted ? onTimeout() : (signal.reason ?? onTimeout()));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([call(signal), aborted]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
    // The race's loser must not surface as an unhandled rejection.
    aborted.catch(() => undefined);
  }
}

const isStatus = (s: unknown): s is PayoutResult['status'] => typeof s === 'string' && (PAYOUT_STATUSES as readonly string[]).includes(s);

/** A result from outside: the fields we rely on, checked; anything unknown reads as PENDING. */
export function normalizePayoutResult(raw: unknown, adapterId: string, logger: AdapterLogger, fallbackReference?: string): PayoutResult {
  const r = (raw ?? {}) as Record<string, unknown>;
  const reference = typeof r.reference === 'string' && r.reference.length > 0 ? r.reference : fallbackReference;
  if (!reference) throw new RailError(`rail adapter ${adapterId} answered without a reference`, true);
  let status: PayoutResult['status'] = 'PENDING';
  if (isStatus(r.status)) status = r.status;
  else logger.warn({ adapter: adapterId, status: String(r.status), reference }, 'unknown payout status read as PENDING');
  const out: PayoutResult = { status, reference };
  if (typeof r.pollAfterMs === 'number' && Number.isFinite(r.pollAfterMs) && r.pollAfterMs >= 0) out.pollAfterMs = r.pollAfterMs;
  if (status === 'PENDING' && r.notFound === true) out.notFound = true;
  if (status === 'FAILED' || status === 'RETURNED') {
    out.failureReason = typeof r.failureReason === 'string' && r.failureReason ? r.failureReason : status === 'RETURNED' ? 'PAYOUT_RETURNED' : 'QUOTE_EXECUTION_FAILED';
    out.retryable = r.retryable === true;
  }
  return out;
}

function normalizeRefundResult(raw: unknown, adapterId: string, logger: AdapterLogger, fallbackReference: string): RefundResult {
  const r = (raw ?? {}) as Record<string, unknown>;
  const status = r.status === 'COMPLETED' || r.status === 'FAILED' || r.status === 'PENDING' ? r.status : 'PENDING';
  if (status !== r.status) logger.warn({ adapter: adapterId, status: String(r.status) }, 'unknown refund status read as PENDING');
  return { status, reference: typeof r.reference === 'string' && r.reference ? r.reference : fallbackReference };
}

export function guardRail(inner: RailAdapter, timeoutMs: number, logger: AdapterLogger): RailAdapter {
  const id = inner.id;
  const timedOut = (what: string) => () => new RailError(`rail adapter ${id}: ${what} did not answer within ${timeoutMs} ms`, true);
  const guarded = async <T>(what: string, opts: CallOptions | undefined, call: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    try {
      return await withDeadline(timeoutMs, opts?.signal, call, timedOut(what));
    } catch (err) {
      throw asCallError(err, RailError, `rail adapter ${id}`);
    }
  };
  const out: RailAdapter = {
    id,
    ...(inner.rails ? { rails: inner.rails } : {}),
    statusDelivery: inner.statusDelivery === 'push' ? 'push' : 'poll',
    ...(inner.expectedSettlementMs !== undefined ? { expectedSettlementMs: inner.expectedSettlementMs } : {}),
    async submitPayout(req, opts) {
      const raw = await guarded('submitPayout', opts, (signal) => inner.submitPayout(req, { ...opts, signal }));
      return normalizePayoutResult(raw, id, logger);
    },
    ...(inner.submitPayouts
      ? {
          async submitPayouts(reqs: readonly PayoutRequest[], opts?: CallOptions) {
            const raw = await guarded('submitPayouts', opts, (signal) => inner.submitPayouts!(reqs, { ...opts, signal }));
            if (!Array.isArray(raw) || raw.length !== reqs.length) throw new RailError(`rail adapter ${id}: submitPayouts answered ${Array.isArray(raw) ? raw.length : 'no'} results for ${reqs.length} payouts`, true);
            return raw.map((r) => normalizePayoutResult(r, id, logger));
          },
        }
      : {}),
    ...(inner.getPayoutStatuses
      ? {
          async getPayoutStatuses(queries: ReadonlyArray<{ reference: string; idempotencyKey: string }>, opts?: CallOptions) {
            const raw = await guarded('getPayoutStatuses', opts, (signal) => inner.getPayoutStatuses!(queries, { ...opts, signal }));
            if (!Array.isArray(raw) || raw.length !== queries.length) throw new RailError(`rail adapter ${id}: getPayoutStatuses answered ${Array.isArray(raw) ? raw.length : 'no'} results for ${queries.length} payouts`, true);
            return raw.map((r, i) => normalizePayoutResult(r, id, logger, queries[i]!.reference));
          },
        }
      : {}),
    async getPayoutStatus(reference, opts) {
      const raw = await guarded('getPayoutStatus', opts, (signal) => inner.getPayoutStatus(reference, { ...opts, signal }));
      return normalizePayoutResult(raw, id, logger, reference);
    },
    async refundPayout(req, opts) {
      const raw = await guarded('refundPayout', opts, (signal) => inner.refundPayout(req, { ...opts, signal }));
      return normalizeRefundResult(raw, id, logger, req.idempotencyKey);
    },
    ...(inner.estimateNetworkFee
      ? {
          // Issue 25: an estimate the adapter cannot state in non-negative integers is no estimate (a retryable rail error).
          async estimateNetworkFee(req: NetworkFeeRequest, opts?: CallOptions) {
            const raw = await guarded('estimateNetworkFee', opts, (signal) => inner.estimateNetworkFee!(req, { ...opts, signal }));
            const ok = (v: unknown): v is bigint => typeof v === 'bigint' && v >= 0n;
            if (!raw || !ok(raw.networkFee) || !ok(raw.networkFeeInCurrency) || typeof raw.networkFeeAsset !== 'string' || !raw.networkFeeAsset) {
              throw new RailError(`rail adapter ${id}: estimateNetworkFee answered no usable estimate`, true);
            }
            return { networkFee: raw.networkFee, networkFeeAsset: raw.networkFeeAsset, networkFeeInCurrency: raw.networkFeeInCurrency };
          },
        }
      : {}),
  };
  if (inner.handleWebhook) out.handleWebhook = inner.handleWebhook.bind(inner);
  if (inner.close) out.close = inner.close.bind(inner);
  return out;
}

/** Method name → index of its CallOptions argument, per kind (rails are guarded by guardRail). */
const CALLS: Record<Exclude<AdapterKind, 'rail' | 'card-issuer'>, Record<string, number>> = {
  kyc: { createHostedLink: 1, decide: 1 },
  fx: { getRate: 2 },
  notifier: { sendContactCode: 1 },
  liveness: { startSession: 1 },
  storage: { put: 3, get: 1, delete: 1 },
  'beneficiary-check': { check: 1 },
  'bank-link': { createLinkToken: 1, exchangePublicToken: 1 },
  // Guarded by guardIssuer (src/adapters/stablecoin-issuer/guard.ts), which also reads answers defensively.
  'stablecoin-issuer': {},
  uma: { lookup: 1, payRequest: 1 },
  // A deposit detector's calls are local computations (instructions, match keys): nothing to bound.
  deposits: {},
  // Guarded by guardCollection (src/adapters/collection/guard.ts), which also reads answers defensively.
  collection: {},
};

/** Timeouts for the other kinds: the same object with each call bounded and given a signal. */
export function guardCalls<A extends object>(kind: Exclude<AdapterKind, 'rail' | 'card-issuer'>, inner: A, timeoutMs: number): A {
  const id = String((inner as { id?: unknown }).id);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(inner)) out[key] = (inner as Record<string, unknown>)[key];
  // Getters and prototype methods (class instances) too.
  for (const key of ['id', 'provider', 'handleWebhook', 'close']) {
    const v = (inner as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(inner) : v;
  }
  for (const [method, optsIndex] of Object.entries(CALLS[kind])) {
    const fn = (inner as Record<string, unknown>)[method];
    if (typeof fn !== 'function') continue;
    out[method] = (...args: unknown[]) => {
      const given = (args[optsIndex] ?? {}) as CallOptions;
      const onTimeout = () =>
        kind === 'fx'
          ? new FxRateUnavailableError(id, 'PROVIDER_UNAVAILABLE', true, `FX provider ${id} did not answer within ${timeoutMs} ms`)
          : Object.assign(new Error(`${kind} adapter ${id}: ${method} did not answer within ${timeoutMs} ms`), { retryable: true });
      return withDeadline(timeoutMs, given.signal, (signal) => {
        const callArgs = args.slice(0, optsIndex);
        while (callArgs.length < optsIndex) callArgs.push(undefined);
        return (fn as (...a: unknown[]) => Promise<unknown>).apply(inner, [...callArgs, { ...given, signal }]);
      }, onTimeout);
    };
  }
  return out as A;
}
