import { createHash, randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { ConflictError, NotFoundError, NotImplementedError, ValidationError } from '../../platform/errors.js';
import type { LivenessOutcome } from '../../adapters/liveness/port.js';
import type { CanonicalAccountType } from './account-types.js';
import { isOwnershipProvable, signatureFamilyOf, type OwnershipType } from './external-accounts.model.js';
import { enqueueLivenessOutcome, EXTERNAL_ACCOUNTS_QUEUE, JOB_OPTIONS, livenessOutcomeJobId, type LivenessOutcomeJob } from './external-accounts.queue.js';
import { recordedOutcomes, reviveOverdue, type RecordedOutcome } from '../../platform/durable.js';
import { platformOfLookup } from '../../platform/tenant-lookups.js';
import { abandonChallenges, findOutstandingChallenge, insertChallenge, resolveChallenge, transitionAccount } from './external-accounts.repo.js';
import type { ExternalAccountRecord } from './external-accounts.schemas.js';
import { getExternalAccount, type AccountScope } from './external-accounts.service.js';
import { verifyWalletSignature, type BitcoinSignatureScheme } from './wallet-signatures.js';

/** Wallet ownership: POST .../{id}/challenge and POST .../{id}/verify (spec; decisions B§6.4). */

/** Decision A2: accepted as a valid signature in sandbox only. */
export const SANDBOX_VALID_SIGNATURE = 'sandbox-valid-signature';

export type ChallengeResponse =
  | { method: 'WALLET_SIGNATURE'; messageToSign: string; expiresAt: string }
  | { method: 'LIVENESS'; verificationLink: string; token: string; expiresAt: string };

const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Starts an ownership challenge (201). Abandons any in-flight one and moves UNVERIFIED →
 * PENDING_OWNERSHIP_VERIFICATION.
 * Errors: 404; 409 CONFLICT when the account is not a FIRST_PARTY self-custody wallet or is not awaiting
 * verification (already verified); 501 NOT_IMPLEMENTED for LIVENESS where no liveness provider is configured.
 */
export async function startOwnershipChallenge(ctx: Ctx, scope: AccountScope, id: string, method: 'WALLET_SIGNATURE' | 'LIVENESS'): Promise<ChallengeResponse> {
  const a = await getExternalAccount(ctx, scope, id);
  assertProvable(a);
  if (a.status !== 'PENDING_OWNERSHIP_VERIFICATION' && a.status !== 'UNVERIFIED') {
    throw new ConflictError('CONFLICT', `The wallet's ownership is not awaiting verification (status ${a.status}).`);
  }
  const challengeId = uuidv7();
  const expiresAt = new Date(ctx.clock.now().getTime() + ctx.config.EXTERNAL_ACCOUNT_CHALLENGE_TTL_MS);
  let response: ChallengeResponse;
  let secretHash: string | undefined;
  let messageToSign: string | undefined;
  if (method === 'WALLET_SIGNATURE') {
    messageToSign = ownershipMessage(a, randomBytes(16).toString('hex'), expiresAt);
    response = { method, messageToSign, expiresAt: expiresAt.toISOString() };
  } else {
    const adapter = ctx.adapters.liveness;
    if (!adapter) throw new NotImplementedError('No liveness provider is configured in this deployment.');
    const token = randomBytes(32).toString('base64url');
    secretHash = sha256Hex(token);
    // The provider is called before the transaction, never inside it (house style: adapters).
    const session = await adapter.startSession({ reference: challengeId, token, expiresAt });
    response = { method, verificationLink: session.verificationLink, token, expiresAt: expiresAt.toISOString() };
  }
  await ctx.db.$transaction(async (tx) => {
    await abandonChallenges(ctx, tx, a.id, 'OWNERSHIP');
    if (a.status === 'UNVERIFIED') await transitionAccount(ctx, tx, a.id, 'challengeRestarted');
    await insertChallenge(ctx, tx, { id: challengeId, externalAccountId: a.id, purpose: 'OWNERSHIP', method, messageToSign, secretHash, expiresAt });
  });
  return response;
}

function assertProvable(a: ExternalAccountRecord): void {
  const facts = { accountType: a.accountType as CanonicalAccountType, ownershipType: a.ownershipType as OwnershipType | null, vaspName: a.accountInfo.vaspName };
  if (!isOwnershipProvable(facts)) {
    throw new ConflictError('CONFLICT', 'Ownership challenges apply only to FIRST_PARTY self-custody wallet accounts.');
  }
}

/** The text the wallet signs: names what is proven, for whom, and until when; the nonce makes it single-use. */
function ownershipMessage(a: ExternalAccountRecord, nonce: string, expiresAt: Date): string {
  return [
    'I confirm that I own and control this wallet.',
    '',
    `Address: ${String(a.accountInfo.address)}`,
    `Network: ${a.accountType.replace(/_WALLET$/, '')}`,
    `Account: ${a.id}`,
    `Nonce: ${nonce}`,
    `Expires: ${expiresAt.toISOString()}`,
  ].join('\n');
}

/**
 * Checks a signature over the outstanding WALLET_SIGNATURE challenge's exact message. Valid and on time: 200
 * and ACTIVE. Invalid or late: the challenge is consumed, the account becomes UNVERIFIED, then 400.
 * Errors: 404; 409 CONFLICT when no WALLET_SIGNATURE challenge is outstanding; 400 INVALID_INPUT.
 */
export async function verifyOwnershipSignature(ctx: Ctx, scope: AccountScope, id: string, body: { signature: string; signatureScheme?: BitcoinSignatureScheme }): Promise<ExternalAccountRecord> {
  const a = await getExternalAccount(ctx, scope, id);
  const challenge = await findOutstandingChallenge(ctx.db, a.id, 'OWNERSHIP');
  if (!challenge || challenge.method !== 'WALLET_SIGNATURE' || a.status !== 'PENDING_OWNERSHIP_VERIFICATION') {
    throw new ConflictError('CONFLICT', 'No WALLET_SIGNATURE challenge is outstanding for this account; start one with POST .../challenge.');
  }
  const late = ctx.clock.now().getTime() > challenge.expiresAt.getTime();
  const valid = !late && (await signatureIsValid(ctx, a, challenge.messageToSign ?? '', body));
  const outcome = await ctx.db.$transaction(async (tx) => {
    if (!(await resolveChallenge(ctx, tx, challenge.id, valid ? 'SUCCEEDED' : 'FAILED'))) return undefined;
    return transitionAccount(ctx, tx, a.id, valid ? 'signatureVerified' : 'signatureRejected');
  });
  if (!outcome) throw new ConflictError('CONFLICT', 'The challenge was resolved by a concurrent request.');
  if (!valid) {
    const message = late ? `The challenge expired at ${challenge.expiresAt.toISOString()}; start a new one.` : 'The signature does not verify against the wallet address for the challenge message; start a new challenge.';
    throw new ValidationError([{ field: 'signature', message }], late ? 'The challenge has expired.' : 'The signature is invalid.');
  }
  return outcome;
}

async function signatureIsValid(ctx: Ctx, a: ExternalAccountRecord, message: string, body: { signature: string; signatureScheme?: BitcoinSignatureScheme }): Promise<boolean> {
  if (body.signature === SANDBOX_VALID_SIGNATURE) return ctx.config.SVC_ENV === 'sandbox';
  const family = signatureFamilyOf(a.accountType as CanonicalAccountType);
  if (!family) return false;
  return verifyWalletSignature({ family, address: String(a.accountInfo.address), message, signature: body.signature, scheme: body.signatureScheme });
}

// ------------------------------------------------------------------------------------------ liveness

async function findLivenessChallenge(deps: AppDeps, token: string) {
  // Issue 29 (29a): the token's platform first (tenant_lookups), then the challenge under it.
  const secretHash = sha256Hex(token);
  const platformId = await platformOfLookup(deps.prisma, 'LIVENESS_TOKEN', secretHash);
  const c = platformId ? await deps.prisma.externalAccountChallenge.findFirst({ where: { platformId, secretHash, method: 'LIVENESS' } }) : null;
  if (!c || c.status !== 'OUTSTANDING' || c.expiresAt.getTime() < deps.clock.now().getTime()) {
    throw new NotFoundError('NOT_FOUND', 'No open liveness session for this link (unknown, used or expired).');
  }
  return c;
}

/** The sandbox page needs the session's expiry. Errors: 404 for an unknown, used or expired token. */
export async function getLivenessSession(deps: AppDeps, token: string): Promise<{ expiresAt: Date }> {
  const c = await findLivenessChallenge(deps, token);
  return { expiresAt: c.expiresAt };
}

/**
 * The provider's callback (sandbox: the link's page). Only queues the outcome: it is applied asynchronously,
 * like a real provider's, and announced by EXTERNAL_ACCOUNT.STATUS_UPDATED.
 */
export async function receiveLivenessOutcome(deps: AppDeps, token: string, outcome: LivenessOutcome): Promise<void> {
  const c = await findLivenessChallenge(deps, token);
  // Recorded first (issue 11): the first outcome reported wins, and a job lost with Redis's data is re-added by the sweeper.
  await deps.prisma.externalAccountChallenge.updateMany({ where: { platformId: c.platformId, id: c.id, status: 'OUTSTANDING', livenessOutcome: null }, data: { livenessOutcome: outcome, outcomeReceivedAt: deps.clock.now() } });
  const recorded = await deps.prisma.externalAccountChallenge.findUniqueOrThrow({ where: { platformId_id: { platformId: c.platformId, id: c.id } }, select: { livenessOutcome: true } });
  await enqueueLivenessOutcome(deps, { platformId: c.platformId, challengeId: c.id, outcome: (recorded.livenessOutcome ?? outcome) as LivenessOutcome });
}

/**
 * Sweeper (issue 11): liveness outcomes recorded on an OUTSTANDING challenge JOB_SWEEP_GRACE_MS ago and
 * still not applied get their job again (same id: a no-op while it is live).
 */
export async function sweepLivenessOutcomes(deps: AppDeps): Promise<number> {
  return reviveOverdue<RecordedOutcome>(
    deps,
    EXTERNAL_ACCOUNTS_QUEUE,
    recordedOutcomes(deps, 'external_account_challenges', 'OUTSTANDING', 'outcome_received_at'),
    (c) => ['liveness-outcome', { platformId: c.platform_id, challengeId: c.id, outcome: c.liveness_outcome } satisfies LivenessOutcomeJob, { jobId: livenessOutcomeJobId(c.id), ...JOB_OPTIONS }],
  );
}

/** Worker: PENDING_OWNERSHIP_VERIFICATION → ACTIVE (passed) or UNVERIFIED (failed). Idempotent. */
export async function applyLivenessOutcome(deps: AppDeps, platformId: string, challengeId: string, outcome: LivenessOutcome): Promise<'DONE' | 'SKIPPED'> {
  const ctx = ctxFor(deps, platformId);
  return ctx.db.$transaction(async (tx) => {
    const c = await tx.externalAccountChallenge.findFirst({ where: { id: challengeId } });
    if (!c || !(await resolveChallenge(ctx, tx, c.id, outcome === 'PASSED' ? 'SUCCEEDED' : 'FAILED'))) return 'SKIPPED';
    const a = await tx.externalAccount.findFirst({ where: { id: c.externalAccountId } });
    if (!a || a.isDeleted || a.status !== 'PENDING_OWNERSHIP_VERIFICATION') return 'SKIPPED';
    await transitionAccount(ctx, tx, a.id, outcome === 'PASSED' ? 'livenessPassed' : 'livenessFailed');
    return 'DONE';
  });
}
