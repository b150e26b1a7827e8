import { isValidE164 } from '../../platform/phone.js';
import { createHash, randomBytes } from 'node:crypto';
import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { BadRequestError, NotFoundError, NotImplementedError, RateLimitedError, ValidationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { IllegalTransitionError, jsonValue, statusColumn, transition, tryTransition, type SetColumns } from '../../platform/state-machine.js';
import type { LivenessOutcome } from '../../adapters/liveness/port.js';
import type { ScaFactorReset } from '../../generated/prisma/client.js';
import { getScaCustomer } from './sca.customers.js';
import { revokeSessions } from './login.service.js';
import { OPEN_RESET_STATUSES, resetLifecycle, type ResetEvent, type ResetFactor, type ResetStatus } from './sca.model.js';
import { enqueueResetLivenessOutcome, RESET_JOB_OPTIONS, resetOutcomeJobId, SCA_QUEUE, type ResetLivenessOutcomeJob } from './sca.queue.js';
import { recordedOutcomes, reviveOverdue, type RecordedOutcome } from '../../platform/durable.js';
import { platformOfLookup, syncLookups } from '../../platform/tenant-lookups.js';
import { perPlatformGroup } from '../../platform/platform-groups.js';

/**
 * SCA factor reset (spec "SCA factor reset"; decisions A15, B§6.5): liveness proves the person, then
 * `complete` clears the factor. INITIATED → PENDING_REVIEW (liveness submitted) → LIVENESS_PASSED or REJECTED
 * (the provider's verdict, applied by a queued job) → COMPLETED; any open reset → EXPIRED when the window
 * closes (sweep). REJECTED, EXPIRED, COMPLETED are terminal. No webhook exists for resets (spec: poll GET).
 */

const DAY_MS = 86_400_000;
const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex');

const resetStatus = statusColumn(resetLifecycle, 'sca_factor_resets', 'status');

/** The one way a reset's status changes: transition() (compare-and-set and history row), in the caller's transaction. */
async function transitionReset(ctx: Ctx, db: TenantTx | Ctx['db'], r: ScaFactorReset, event: ResetEvent, set: SetColumns<ScaFactorReset> = {}): Promise<void> {
  await transition(db, ctx, resetStatus, event, r.id, { from: r.status, set });
}

/** Seconds until the oldest initiation of the window leaves it, when the limit is reached; else null. */
async function retryAfterSeconds(db: Ctx['db'] | TenantTx, ctx: Ctx, customerId: string): Promise<number | null> {
  const since = new Date(ctx.clock.now().getTime() - DAY_MS);
  const recent = await db.scaFactorReset.findMany({ where: { customerId, createdAt: { gt: since } }, select: { createdAt: true }, orderBy: { createdAt: 'desc' }, take: ctx.config.SCA_RESET_MAX_PER_DAY });
  if (recent.length < ctx.config.SCA_RESET_MAX_PER_DAY) return null;
  const oldest = recent[recent.length - 1]!.createdAt.getTime();
  return Math.max(1, Math.ceil((oldest + DAY_MS - ctx.clock.now().getTime()) / 1000));
}

const rateLimited = (seconds: number, max: number) => new RateLimitedError(seconds, 'RATE_LIMITED', `At most ${max} factor resets may be started per customer in 24 hours.`);

export interface ResetStart {
  resetId: string;
  livenessAccessToken: string;
  verificationLink: string;
  expiresAt: string;
}

/**
 * POST /sca/factors/reset (201). The limit (SCA_RESET_MAX_PER_DAY, spec 5 per 24 hours) counts the reset rows
 * themselves, under a lock of the customer's row, so it holds across processes and restarts.
 * Errors: 404, 409 (outside SCA), 410, 429 RATE_LIMITED with Retry-After, 501 (no liveness provider).
 */
export async function startReset(ctx: Ctx, customerId: string, input: { factor: ResetFactor; endUserIpAddress: string }): Promise<ResetStart> {
  await getScaCustomer(ctx, customerId);
  const adapter = ctx.adapters.liveness;
  if (!adapter) throw new NotImplementedError('No liveness provider is configured in this deployment; factor reset is unavailable.');
  const early = await retryAfterSeconds(ctx.db, ctx, customerId);
  if (early !== null) throw rateLimited(early, ctx.config.SCA_RESET_MAX_PER_DAY);

  const resetId = newId('ScaFactorReset');
  const token = randomBytes(32).toString('base64url');
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + ctx.config.SCA_RESET_TTL_MS);
  // The provider is called before the transaction, never inside it (house style: adapters).
  const session = await adapter.startSession({ reference: resetId, token, expiresAt });
  await ctx.db.$transaction(async (tx) => {
    // The customer's row, locked (issue 29: a row lock, not an advisory lock, stays on the platform's shard).
    await tx.$queryRaw`SELECT 1 FROM customers WHERE platform_id = ${ctx.platformId} AND id = ${customerId} FOR NO KEY UPDATE`;
    const late = await retryAfterSeconds(tx, ctx, customerId);
    if (late !== null) throw rateLimited(late, ctx.config.SCA_RESET_MAX_PER_DAY);
    const reset = await tx.scaFactorReset.create({
      data: { id: resetId, customerId, factor: input.factor, status: 'INITIATED', endUserIpAddress: input.endUserIpAddress, tokenHash: sha256Hex(token), expiresAt, createdAt: now, updatedAt: now } as any,
    });
    await syncLookups(tx, 'sca_factor_resets', null, reset);
  });
  return { resetId, livenessAccessToken: token, verificationLink: session.verificationLink, expiresAt: expiresAt.toISOString() };
}

async function findReset(ctx: Ctx, customerId: string, resetId: string): Promise<ScaFactorReset> {
  await getScaCustomer(ctx, customerId);
  const r = await ctx.db.scaFactorReset.findFirst({ where: { id: resetId } });
  if (!r || r.customerId !== customerId) throw new NotFoundError('NOT_FOUND', 'Factor reset not found.');
  return r;
}

export interface ResetView {
  resetId: string;
  status: ResetStatus;
  factor: ResetFactor;
  enrollmentStatus: 'PENDING' | 'COMPLETED' | null;
  expiresAt: string;
  completedAt: string | null;
}

/** GET /sca/factors/reset/{resetId}. `enrollmentStatus` is COMPLETED once a replacement factor was enrolled after completion. */
export async function getReset(ctx: Ctx, customerId: string, resetId: string): Promise<ResetView> {
  const r = await findReset(ctx, customerId, resetId);
  let enrollmentStatus: ResetView['enrollmentStatus'] = null;
  if (r.factor !== 'SMS_OTP') {
    const replaced = r.completedAt
      ? await ctx.db.scaFactor.findFirst({ where: { customerId, type: r.factor, status: 'ACTIVE', confirmedAt: { gt: r.completedAt } }, select: { id: true } })
      : null;
    enrollmentStatus = replaced ? 'COMPLETED' : 'PENDING';
  }
  return {
    resetId: r.id,
    status: r.status as ResetStatus,
    factor: r.factor as ResetFactor,
    enrollmentStatus,
    expiresAt: r.expiresAt.toISOString(),
    completedAt: r.completedAt?.toISOString() ?? null,
  };
}

export interface ResetCompleteInput {
  endUserIpAddress: string;
  mobile?: { countryCode: string; number: string };
}

/**
 * POST /sca/factors/reset/{resetId}/complete (204), only from LIVENESS_PASSED within the window. Clears the
 * factor (TOTP/PASSKEY: the enrolled factor is removed; SMS_OTP: the customer's phone number becomes `mobile`),
 * lifts any lockout or suspension, and ends the customer's SCA sessions.
 * Errors: 400 (liveness not passed, window closed, `mobile` missing for SMS_OTP), 404, 409 (outside SCA), 410.
 */
export async function completeReset(ctx: Ctx, customerId: string, resetId: string, input: ResetCompleteInput): Promise<void> {
  const r = await findReset(ctx, customerId, resetId);
  if (r.status !== 'LIVENESS_PASSED' || r.expiresAt.getTime() <= ctx.clock.now().getTime()) {
    const status = r.status === 'LIVENESS_PASSED' ? 'EXPIRED' : r.status;
    throw new BadRequestError('INVALID_INPUT', `Liveness has not passed for this reset (status ${status}).`, { status });
  }
  if (r.factor === 'SMS_OTP' && !input.mobile) throw new ValidationError([{ field: 'mobile', message: 'Required for an SMS_OTP reset.' }]);
  const phone = input.mobile ? `+${input.mobile.countryCode.replace(/^\+/, '')}${input.mobile.number.replace(/\D/g, '')}` : null;
  if (phone && !isValidE164(phone)) throw new ValidationError([{ field: 'mobile', constraint: { format: 'e.164' }, message: 'countryCode and number must make an E.164 number.' }]);
  const now = ctx.clock.now();
  await ctx.db.$transaction(async (tx) => {
    await transitionReset(ctx, tx, r, 'complete', { completedAt: now, ...(input.mobile ? { mobile: jsonValue(input.mobile) } : {}) });
    if (r.factor === 'SMS_OTP') await tx.customer.updateMany({ where: { id: customerId }, data: { phoneNumber: phone, updatedAt: now } });
    else await tx.scaFactor.deleteMany({ where: { customerId, type: r.factor } });
    await tx.scaLockout.deleteMany({ where: { customerId } });
  });
  await revokeSessions(ctx, customerId);
}

// ------------------------------------------------------------------------------------------ liveness

async function findOpenSession(deps: AppDeps, token: string): Promise<ScaFactorReset | null> {
  const tokenHash = sha256Hex(token);
  const platformId = await platformOfLookup(deps.prisma, 'SCA_RESET_TOKEN', tokenHash);
  const r = platformId ? await deps.prisma.scaFactorReset.findUnique({ where: { platformId_tokenHash: { platformId, tokenHash } } }) : null;
  if (!r || r.status !== 'INITIATED' || r.expiresAt.getTime() <= deps.clock.now().getTime()) return null;
  return r;
}

/** The sandbox liveness page of a reset: its expiry, or null for an unknown, used or expired token. */
export async function getResetLivenessSession(deps: AppDeps, token: string): Promise<{ expiresAt: Date } | null> {
  const r = await findOpenSession(deps, token);
  return r ? { expiresAt: r.expiresAt } : null;
}

/**
 * The liveness provider's outcome (sandbox: the page's choice). Submitting moves INITIATED → PENDING_REVIEW at
 * once; the verdict is queued and applied after SCA_RESET_REVIEW_DELAY_MS, like a provider's review.
 */
export async function receiveResetLivenessOutcome(deps: AppDeps, token: string, outcome: LivenessOutcome): Promise<'ACCEPTED' | 'UNKNOWN_SESSION'> {
  const r = await findOpenSession(deps, token);
  if (!r) return 'UNKNOWN_SESSION';
  const ctx = ctxFor(deps, r.platformId);
  // The verdict and its review time are recorded with the move (issue 11): the delayed job is the fast
  // path, and the sweeper (sweepResetReviews) queues it again if Redis lost it.
  const reviewDueAt = new Date(deps.clock.now().getTime() + deps.config.SCA_RESET_REVIEW_DELAY_MS);
  try {
    await transitionReset(ctx, ctx.db, r, 'livenessSubmitted', { livenessOutcome: outcome, reviewDueAt });
  } catch (err) {
    if (err instanceof IllegalTransitionError) return 'UNKNOWN_SESSION';
    throw err;
  }
  await enqueueResetLivenessOutcome(deps, { platformId: r.platformId, resetId: r.id, outcome });
  return 'ACCEPTED';
}

/**
 * Sweeper (issue 11): resets in PENDING_REVIEW whose review was due JOB_SWEEP_GRACE_MS ago get their
 * job again, with the recorded verdict (same job id: a no-op while it is live).
 */
export async function sweepResetReviews(deps: AppDeps): Promise<number> {
  return reviveOverdue<RecordedOutcome>(
    deps,
    SCA_QUEUE,
    recordedOutcomes(deps, 'sca_factor_resets', 'PENDING_REVIEW', 'review_due_at'),
    (r) => ['reset-liveness-outcome', { platformId: r.platform_id, resetId: r.id, outcome: r.liveness_outcome } satisfies ResetLivenessOutcomeJob, { jobId: resetOutcomeJobId(r.id), ...RESET_JOB_OPTIONS }],
  );
}

/** Worker: PENDING_REVIEW → LIVENESS_PASSED or REJECTED. Idempotent (a repeated job finds the reset moved). */
export async function applyResetLivenessOutcome(deps: AppDeps, platformId: string, resetId: string, outcome: LivenessOutcome): Promise<'DONE' | 'SKIPPED'> {
  const ctx = ctxFor(deps, platformId);
  const r = await ctx.db.scaFactorReset.findFirst({ where: { id: resetId } });
  if (!r || r.status !== 'PENDING_REVIEW') return 'SKIPPED';
  await transitionReset(ctx, ctx.db, r, outcome === 'PASSED' ? 'livenessPassed' : 'livenessFailed');
  return 'DONE';
}

/** Sweep: open resets past `expiresAt` become EXPIRED (bounded by SCA_SWEEP_BATCH). */
export async function expireResets(deps: AppDeps): Promise<number> {
  // Issue 29 (29a): per platform group, each read on one shard.
  return perPlatformGroup(deps.prisma, 'sca_factor_resets', async (platforms) => {
    const due = await deps.prisma.scaFactorReset.findMany({
      where: { platformId: { in: platforms }, status: { in: [...OPEN_RESET_STATUSES] }, expiresAt: { lt: deps.clock.now() } },
      orderBy: { expiresAt: 'asc' },
      take: deps.config.SCA_SWEEP_BATCH,
    });
    for (const r of due) {
      const ctx = ctxFor(deps, r.platformId);
      // A reset that moved meanwhile (completed, or expired by another sweeper) is simply not moved.
      await tryTransition(ctx.db, ctx, resetStatus, 'expire', r.id).catch((err) => deps.logger.warn({ err, resetId: r.id }, 'factor reset expiry failed'));
    }
    return due.length;
  });
}
