import { Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { AppDeps } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { queueOf, queuePrefix } from '../../platform/queue.js';
import { reviveOverdue } from '../../platform/durable.js';
import { Prisma, type Verification } from '../../generated/prisma/client.js';
import type { KycOutcome } from '../../adapters/kyc/port.js';
import { moveCustomerStatus } from '../customers/index.js';
import { IDENTITY_DOCUMENTS, OPEN_STATUSES, rejectionErrorType, type VerificationError } from './verification.model.js';
import { moveOwners, moveVerification } from './verification.service.js';
import { currentJobData, resourceKey } from '../../platform/ids.js';

export const KYC_QUEUE = 'kyc-decisions';

export interface DecisionJob {
  platformId: string;
  verificationId: string;
}

/** BullMQ forbids ':' in custom job ids. Each decision of a case has its own id, so a re-queue of the same step is a no-op. */
const jobIdFor = (v: Pick<Verification, 'id' | 'decisionCount'>, suffix = '') => `${v.id.replace(/:/g, '_')}_d${v.decisionCount}${suffix}`;

const decisionOpts = (deps: AppDeps) => ({ attempts: deps.config.KYC_DECISION_ATTEMPTS, backoff: { type: 'exponential' as const, delay: 1_000 } });

export async function enqueueDecision(deps: AppDeps, platformId: string, v: Pick<Verification, 'id' | 'decisionCount'>, opts: { delayMs?: number; suffix?: string } = {}): Promise<void> {
  await queueOf(deps, KYC_QUEUE).add('decide', { platformId, verificationId: v.id } satisfies DecisionJob, {
    jobId: jobIdFor(v, opts.suffix),
    delay: opts.delayMs ?? 0,
    ...decisionOpts(deps),
  });
}

/** The provider has not decided yet: BullMQ retries with backoff (KYC_DECISION_ATTEMPTS), then the reconcile loop picks the case up. */
class StillPending extends Error {}

/**
 * One provider decision for one open case. The provider is asked outside any transaction; the
 * outcome is committed with compare-and-set moves, so a duplicate or late job finds the case
 * already moved and does nothing.
 */
export async function processDecision(deps: AppDeps, job: DecisionJob): Promise<string> {
  const ctx = ctxFor(deps, job.platformId);
  const v = await ctx.db.verification.findFirst({ where: { id: job.verificationId } });
  if (!v || !OPEN_STATUSES.includes(v.status as (typeof OPEN_STATUSES)[number])) return 'SKIPPED';
  const customer = await ctx.db.customer.findFirstOrThrow({ where: { id: v.customerId } });
  const owners = await ctx.db.beneficialOwner.findMany({ where: { customerId: customer.id } });
  const previousHolds = await ctx.db.statusChange.count({ where: { resourceId: resourceKey(customer.id), machine: 'customer', event: 'hold' } });
  const businessInfo = (customer.businessInfo ?? {}) as Record<string, unknown>;
  const outcome: KycOutcome = await deps.adapters.kyc.decide({
    caseId: v.id,
    customerId: customer.id,
    customerType: customer.customerType as 'INDIVIDUAL' | 'BUSINESS',
    name: customer.customerType === 'BUSINESS' ? String(businessInfo.legalName ?? '') : (customer.fullName ?? ''),
    owners: owners.map((o) => ({ id: o.id, lastName: String((o.personalInfo as Record<string, unknown>).lastName ?? '') })),
    reviewed: v.status === 'PENDING_MANUAL_REVIEW',
    previousHolds,
  });
  // A case under manual review waits for the reviewer; an undecided fresh case is asked again.
  if (outcome.status === 'PENDING' && v.status === 'PENDING_MANUAL_REVIEW') return 'AWAITING_REVIEW';
  if (outcome.status === 'PENDING') throw new StillPending(`provider has not decided ${v.id} yet`);

  let followUp: Verification | undefined;
  await ctx.db.$transaction(async (tx) => {
    const fresh = await tx.customer.findFirstOrThrow({ where: { id: customer.id } });
    const customerPending = fresh.status === 'PENDING';
    switch (outcome.status) {
      case 'APPROVED':
        await moveVerification(ctx, tx, v, 'approve');
        await moveOwners(ctx, tx, customer.id, 'approve');
        if (customerPending) await moveCustomerStatus(ctx, tx, fresh, 'approve');
        break;
      case 'REJECTED': {
        const errors: VerificationError[] = [{ resourceId: outcome.ownerId ?? customer.id, type: rejectionErrorType(outcome.errorType), reason: outcome.reason }];
        await moveVerification(ctx, tx, v, 'reject', errors);
        if (outcome.ownerId) await moveOwners(ctx, tx, customer.id, 'reject', [outcome.ownerId]);
        if (customerPending) await moveCustomerStatus(ctx, tx, fresh, 'reject');
        break;
      }
      case 'HOLD': {
        const doc = await tx.document.findFirst({ where: { customerId: customer.id, documentType: { in: IDENTITY_DOCUMENTS } }, orderBy: { id: 'desc' } });
        const errors: VerificationError[] = [{ resourceId: doc?.id ?? customer.id, type: 'POOR_QUALITY_DOCUMENT', acceptedDocumentTypes: IDENTITY_DOCUMENTS, reason: outcome.reason }];
        await moveVerification(ctx, tx, v, 'requestInformation', errors);
        if (customerPending) await moveCustomerStatus(ctx, tx, fresh, 'hold');
        break;
      }
      case 'MANUAL_REVIEW':
        followUp = await moveVerification(ctx, tx, v, 'review');
        break;
    }
  });
  // After the commit: a reviewer's decision follows (sandbox: after KYC_SANDBOX_REVIEW_DELAY_MS).
  if (followUp) await enqueueDecision(deps, job.platformId, followUp, { delayMs: deps.config.KYC_SANDBOX_REVIEW_DELAY_MS });
  return outcome.status;
}

export function startDecisionWorker(deps: AppDeps, connection: ConnectionOptions): Worker {
  return new Worker<DecisionJob>(KYC_QUEUE, async (job: Job<DecisionJob>) => processDecision(deps, currentJobData(job.data)), {
    connection,
    prefix: queuePrefix(deps.config),
    concurrency: 4,
  });
}

/**
 * Bounded sweep for open cases (the durable record of a decision owed: an open status, due
 * KYC_RECONCILE_AFTER_MS after the case last moved) whose decision job is not live — lost with
 * Redis's data, or its attempts exhausted while the provider had not decided. Same job id as the
 * first enqueue (the case and its decision count): a live job makes it a no-op; a finished one is
 * re-added, asking the provider again. Rows locked SKIP LOCKED: several workers sweep disjoint cases.
 */
export async function reconcileOpenCases(deps: AppDeps): Promise<number> {
  const open = [...OPEN_STATUSES];
  return reviveOverdue<{ id: string; platform_id: string; decision_count: number }>(
    deps,
    KYC_QUEUE,
    { table: 'verifications', columns: ['id', 'platform_id', 'decision_count'], where: Prisma.sql`status = ANY(${open})`, due: 'updated_at', graceMs: deps.config.KYC_RECONCILE_AFTER_MS, batch: deps.config.KYC_RECONCILE_BATCH },
    (v) => ['decide', { platformId: v.platform_id, verificationId: v.id } satisfies DecisionJob, { jobId: jobIdFor({ id: v.id, decisionCount: v.decision_count }), ...decisionOpts(deps) }],
  );
}
