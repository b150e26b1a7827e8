import { asCallError, type AdapterLogger, type CallOptions } from '../common.js';
import { withDeadline } from '../guard.js';
import { CardIssuerError, PROVISIONING_STATUSES, type CardIssuerAdapter, type ProvisionResult } from './port.js';

/**
 * Every card-issuer call bounded by PROVIDER_TIMEOUT_MS, failures as CardIssuerError (retryable unless
 * the adapter said otherwise), and provisioning answers read defensively: a status outside our
 * vocabulary is PENDING (never guess that a card was issued or refused), a result without a reference
 * is no answer.
 */
export function normalizeProvisionResult(raw: unknown, adapterId: string, logger: AdapterLogger, fallbackRef?: string): ProvisionResult {
  const r = (raw ?? {}) as Record<string, unknown>;
  const processorRef = typeof r.processorRef === 'string' && r.processorRef ? r.processorRef : fallbackRef;
  if (!processorRef) throw new CardIssuerError(`card issuer ${adapterId} answered without a processorRef`, true);
  let status: ProvisionResult['status'] = 'PENDING';
  if ((PROVISIONING_STATUSES as readonly unknown[]).includes(r.status)) status = r.status as ProvisionResult['status'];
  else logger.warn({ adapter: adapterId, status: String(r.status), processorRef }, 'unknown provisioning status read as PENDING');
  const out: ProvisionResult = { status, processorRef };
  if (typeof r.issuerRef === 'string') out.issuerRef = r.issuerRef;
  if (r.brand === 'VISA' || r.brand === 'MASTERCARD') out.brand = r.brand;
  if (typeof r.last4 === 'string' && /^\d{4}$/.test(r.last4)) out.last4 = r.last4;
  if (Number.isInteger(r.expMonth) && (r.expMonth as number) >= 1 && (r.expMonth as number) <= 12) out.expMonth = r.expMonth as number;
  if (Number.isInteger(r.expYear) && (r.expYear as number) >= 2000 && (r.expYear as number) <= 2200) out.expYear = r.expYear as number;
  if (typeof r.pollAfterMs === 'number' && Number.isFinite(r.pollAfterMs) && r.pollAfterMs >= 0) out.pollAfterMs = r.pollAfterMs;
  // An ACTIVE answer without the card's details cannot be shown to the platform: ask again.
  if (status === 'ACTIVE' && (!out.last4 || !out.expMonth || !out.expYear)) {
    logger.warn({ adapter: adapterId, processorRef }, 'ACTIVE provisioning without last4/expiry read as PENDING');
    out.status = 'PENDING';
  }
  return out;
}

export function guardCardIssuer(inner: CardIssuerAdapter, timeoutMs: number, logger: AdapterLogger): CardIssuerAdapter {
  const id = inner.id;
  const guarded = async <T>(what: string, opts: CallOptions | undefined, call: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    try {
      opts?.signal?.throwIfAborted();
      return await withDeadline(timeoutMs, opts?.signal, call, () => new CardIssuerError(`card issuer ${id}: ${what} did not answer within ${timeoutMs} ms`, true));
    } catch (err) {
      throw asCallError(err, CardIssuerError, `card issuer ${id}`);
    }
  };
  // Own properties too (the sandbox's simulate()), then the guarded calls over them.
  const out: CardIssuerAdapter = {
    ...(inner as object),
    id,
    supports3dsPassword: inner.supports3dsPassword === true,
    provision: async (req, opts) => normalizeProvisionResult(await guarded('provision', opts, (signal) => inner.provision(req, { ...opts, signal })), id, logger),
    getProvisioning: async (ref, opts) => normalizeProvisionResult(await guarded('getProvisioning', opts, (signal) => inner.getProvisioning(ref, { ...opts, signal })), id, logger, ref),
    setState: (req, opts) => guarded('setState', opts, (signal) => inner.setState(req, { ...opts, signal })),
    set3dsPassword: (req, opts) => guarded('set3dsPassword', opts, (signal) => inner.set3dsPassword(req, { ...opts, signal })),
    async reveal(req, opts) {
      const r = await guarded('reveal', opts, (signal) => inner.reveal(req, { ...opts, signal }));
      if (!r || typeof r.url !== 'string' || !/^https?:\/\//.test(r.url) || !(r.expiresAt instanceof Date)) throw new CardIssuerError(`card issuer ${id}: reveal answered no URL`, true);
      return r;
    },
  };
  if (inner.handleWebhook) out.handleWebhook = inner.handleWebhook.bind(inner);
  if (inner.close) out.close = inner.close.bind(inner);
  return out;
}
