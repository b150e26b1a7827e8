import { asCallError, type AdapterLogger, type CallOptions } from '../common.js';
import { withDeadline } from '../guard.js';
import { CollectionError, OPENING_STATUSES, type CollectionAdapter, type CollectionCredit, type OpenCoordinatesResult } from './port.js';

/**
 * Every collection call bounded by PROVIDER_TIMEOUT_MS, failures as CollectionError (retryable unless the
 * adapter said otherwise), and answers read defensively: an opening status outside our vocabulary is
 * PENDING (never guess that coordinates exist), an OPEN answer without a reference or wire instructions
 * is PENDING too, and a poll answering a malformed credit is a retryable failure (never a skipped credit).
 */
export function normalizeOpenResult(raw: unknown, adapterId: string, logger: AdapterLogger): OpenCoordinatesResult {
  const r = (raw ?? {}) as Record<string, unknown>;
  let status: OpenCoordinatesResult['status'] = 'PENDING';
  if ((OPENING_STATUSES as readonly unknown[]).includes(r.status)) status = r.status as OpenCoordinatesResult['status'];
  else logger.warn({ adapter: adapterId, status: String(r.status) }, 'unknown coordinates opening status read as PENDING');
  const out: OpenCoordinatesResult = { status };
  if (typeof r.reference === 'string' && r.reference && r.reference.length <= 200) out.reference = r.reference;
  const i = r.instructions as OpenCoordinatesResult['instructions'] | undefined;
  if (i && typeof i === 'object' && i.accountOrWalletInfo && typeof i.accountOrWalletInfo.accountType === 'string') {
    out.instructions = { ...(typeof i.instructionsNotes === 'string' ? { instructionsNotes: i.instructionsNotes } : {}), isPlatformAccount: i.isPlatformAccount === true, accountOrWalletInfo: i.accountOrWalletInfo };
  }
  if (typeof r.pollAfterMs === 'number' && Number.isFinite(r.pollAfterMs) && r.pollAfterMs >= 0) out.pollAfterMs = r.pollAfterMs;
  if (status === 'OPEN' && (!out.reference || !out.instructions)) {
    logger.warn({ adapter: adapterId }, 'OPEN coordinates without a reference or instructions read as PENDING');
    out.status = 'PENDING';
  }
  return out;
}

/** A credit is usable only whole: an id, a reference, a positive integer amount and a date. */
export function isUsableCredit(c: unknown): c is CollectionCredit {
  const x = c as CollectionCredit | undefined;
  return !!x && typeof x.creditId === 'string' && !!x.creditId && typeof x.reference === 'string' && !!x.reference && typeof x.rail === 'string' &&
    typeof x.amount === 'bigint' && x.amount > 0n && typeof x.currency === 'string' && x.receivedAt instanceof Date && !Number.isNaN(x.receivedAt.getTime());
}

export function guardCollection(inner: CollectionAdapter, timeoutMs: number, logger: AdapterLogger): CollectionAdapter {
  const id = inner.id;
  const guarded = async <T>(what: string, opts: CallOptions | undefined, call: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    try {
      opts?.signal?.throwIfAborted();
      return await withDeadline(timeoutMs, opts?.signal, call, () => new CollectionError(`collection ${id}: ${what} did not answer within ${timeoutMs} ms`, true));
    } catch (err) {
      throw asCallError(err, CollectionError, `collection ${id}`);
    }
  };
  // Own properties too (the sandbox's simulateCredit), then the guarded calls over them.
  const out: CollectionAdapter = {
    ...(inner as object),
    id,
    railsFor(currency) {
      const rails = inner.railsFor(currency);
      return Array.isArray(rails) ? rails.filter((r) => typeof r === 'string' && /^[A-Z0-9_]{2,32}$/.test(r)) : [];
    },
    openCoordinates: async (req, opts) => normalizeOpenResult(await guarded('openCoordinates', opts, (signal) => inner.openCoordinates(req, { ...opts, signal })), id, logger),
    closeCoordinates: (req, opts) => guarded('closeCoordinates', opts, (signal) => inner.closeCoordinates(req, { ...opts, signal })),
    async listCredits(req, opts) {
      const r = await guarded('listCredits', opts, (signal) => inner.listCredits(req, { ...opts, signal }));
      if (!r || !Array.isArray(r.credits) || typeof r.nextCursor !== 'string' || !r.credits.every(isUsableCredit)) {
        throw new CollectionError(`collection ${id}: listCredits answered outside the port (a malformed credit or no cursor)`, true);
      }
      return r;
    },
  };
  if (inner.handleWebhook) out.handleWebhook = inner.handleWebhook.bind(inner);
  if (inner.close) out.close = inner.close.bind(inner);
  return out;
}
