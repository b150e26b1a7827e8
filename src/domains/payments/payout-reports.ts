import { createHash } from 'node:crypto';
import type { AppDeps } from '../../deps.js';
import type { PayoutReport, PayoutReportReceipt, PayoutResult } from '../../adapters/rails/port.js';
import { enqueuePayoutReport } from './transactions.jobs.js';

/**
 * An outcome a rail adapter pushed (RailAdapterContext.reportPayoutStatus, often from its webhook
 * route). Finds the payment — by our transaction id when the report names it, else by the rail's
 * reference — checks that the reporting adapter is the one serving the payment's rail, and queues
 * the report; the payments worker applies it with applyPayoutResult, as it applies a poll's answer.
 */
export async function receivePayoutReport(deps: AppDeps, report: PayoutReport, serves: (rail: string | null) => boolean): Promise<PayoutReportReceipt> {
  const where = report.idempotencyKey ? { id: report.idempotencyKey } : { railReference: report.reference };
  const t = await deps.prisma.transaction.findFirst({ where, select: { id: true, platformId: true, paymentRail: true, railReference: true, destinationKind: true } });
  if (!t || t.destinationKind === 'INTERNAL' || !serves(t.paymentRail)) return 'UNKNOWN_PAYOUT';
  if (t.railReference && t.railReference !== report.reference) return 'UNKNOWN_PAYOUT';
  // "Still pending" changes nothing; only outcomes are queued.
  if (report.status === 'PENDING') return 'ACCEPTED';
  const result: PayoutResult = { status: report.status, reference: report.reference };
  if (report.failureReason !== undefined) result.failureReason = report.failureReason;
  if (report.retryable !== undefined) result.retryable = report.retryable;
  if (report.pollAfterMs !== undefined) result.pollAfterMs = report.pollAfterMs;
  // Identical reports share a job id, so a provider's redelivery queues nothing new.
  const fingerprint = createHash('sha256').update(JSON.stringify(result)).digest('hex').slice(0, 16);
  await enqueuePayoutReport(deps, { platformId: t.platformId, transactionId: t.id, result }, fingerprint);
  return 'ACCEPTED';
}
