import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { visibleToCaller } from '../../platform/agent-scope.js';
import { isUniqueViolation } from '../../platform/db.js';
import { BadRequestError, ConflictError, type FieldError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { noteIdempotentResource } from '../../platform/idempotency.js';
import { toFieldErrors } from '../../platform/http/validate.js';
import type { Page } from '../../platform/http/pagination.js';
import { validateAccountInfo, type ValidatedAccountInfo } from './account-info.validate.js';
import { isWalletType } from './account-types.js';
import { getCustomerFacts, type CustomerFacts } from './external-accounts.customers.js';
import {
  identityOf, initialStatus, signatureFamilyOf, type ExternalAccountEvent, type ExternalAccountStatus, type OwnershipType,
} from './external-accounts.model.js';
import { beneficiaryCheckJobId, enqueueBeneficiaryCheck, EXTERNAL_ACCOUNTS_QUEUE, JOB_OPTIONS, type BeneficiaryCheckJob } from './external-accounts.queue.js';
import { ensureJob, sweepDue } from '../../platform/durable.js';
import { queueOf } from '../../platform/queue.js';
import {
  abandonChallenges, accountNotFound, ANY_CUSTOMER, clearDefaultUmaDeposit, findAnyAccount, findAnyAccounts, findLiveAccount, readLiveAccount, insertAccount, listAccounts, markDeleted,
  recordBeneficiaryResult, transitionAccount,
} from './external-accounts.repo.js';
import { createExternalAccountBody, type ExternalAccountRecord } from './external-accounts.schemas.js';
import { beneficiaryRulesOf } from './beneficiary.schemas.js'; // hook:25c
import { platformOfLookup } from '../../platform/tenant-lookups.js';

/**
 * External account use cases (issue 4). `scope` is the path family the call came through: `/customers/...`
 * sees every account of the platform (a create there without customerId makes a platform account, B§5.9);
 * `/platform/...` sees only the platform's own accounts, so a customer's account id there is 404.
 */
export type AccountScope = 'customers' | 'platform';

/** Errors: 404 NOT_FOUND (unknown, deleted, another platform's, or outside the scope). */
export async function getExternalAccount(ctx: Ctx, scope: AccountScope, id: string): Promise<ExternalAccountRecord> {
  const a = await findLiveAccount(ctx, ctx.db, id);
  if (!a || (scope === 'platform' && a.customerId !== null) || !visibleToCaller(ctx, a.customerId)) throw accountNotFound();
  return a;
}

/**
 * POST /customers/external-accounts and POST /platform/external-accounts. Returns the new account (201).
 * Errors: 400 INVALID_INPUT (every bad field at once), 400 INVALID_BANK_ACCOUNT (checksums), 404 USER_NOT_FOUND,
 * 409 CONFLICT (same owner, currency and identifying fields as a live account).
 */
export async function createExternalAccount(ctx: Ctx, scope: AccountScope, input: unknown): Promise<ExternalAccountRecord> {
  const parsed = createExternalAccountBody.safeParse(input ?? {});
  if (!parsed.success) {
    // Report top-level problems together with accountInfo's, in one answer.
    throw new ValidationError(mergeErrors(toFieldErrors(parsed.error), accountInfoErrors(input)));
  }
  const body = parsed.data;
  const customerId = body.customerId ?? null;
  if (scope === 'platform' && customerId) {
    throw new ValidationError([{ field: 'customerId', message: 'Platform accounts have no customer; use POST /customers/external-accounts.' }]);
  }
  const customer = customerId ? await getCustomerFacts(ctx, customerId) : undefined;
  const platform = await ctx.db.platform.findFirstOrThrow({});
  const validated = validateAccountInfo({ currency: body.currency, accountInfo: body.accountInfo, isBusinessSender: customer?.customerType === 'BUSINESS', beneficiaryRules: beneficiaryRulesOf(ctx.config, platform) }); // hook:25c
  const ownershipType = (body.ownershipType ?? null) as OwnershipType | null;
  checkCounterpartyRules(validated, ownershipType, platform.counterpartyRules);
  if (body.defaultUmaDepositAccount && !customerId) {
    throw new ValidationError([{ field: 'defaultUmaDepositAccount', message: 'Only a customer\'s account can receive its UMA payments.' }]);
  }
  const id = newId('ExternalAccount');
  noteIdempotentResource(ctx, id);
  const created = await insertWithRetry(ctx, {
    id,
    customerId,
    status: initialStatus({ accountType: validated.accountType, ownershipType, vaspName: validated.accountInfo.vaspName }, platform.counterpartyRules),
    platformAccountId: body.platformAccountId ?? null,
    ownershipType,
    currency: body.currency,
    accountType: validated.accountType,
    accountInfo: validated.accountInfo,
    paymentRails: validated.paymentRails,
    identifierLast3: validated.identifierLast3,
    identityHash: identityOf(validated.accountType, validated.accountInfo),
    defaultUmaDepositAccount: body.defaultUmaDepositAccount === true,
  });
  await enqueueAfterCommit(ctx, created.id);
  return created;
}

function accountInfoErrors(input: unknown): FieldError[] {
  const raw = input && typeof input === 'object' ? (input as Record<string, unknown>) : {};
  try {
    validateAccountInfo({ currency: typeof raw.currency === 'string' ? raw.currency : '', accountInfo: raw.accountInfo });
    return [];
  } catch (err) {
    return err instanceof ValidationError ? (((err.details?.errors as FieldError[]) ?? []).filter((e) => e.field !== 'currency')) : [];
  }
}

function mergeErrors(first: FieldError[], second: FieldError[]): FieldError[] {
  const seen = new Set(first.map((e) => e.field));
  return [...first, ...second.filter((e) => !seen.has(e.field))];
}

/**
 * Counterparty rules (spec ownershipType; B§5.9): a self-custody wallet must say whose it is, and a THIRD_PARTY
 * one must name its beneficiary.
 */
function checkCounterpartyRules(v: ValidatedAccountInfo, ownershipType: OwnershipType | null, counterpartyRules: boolean): void {
  if (!counterpartyRules || !isWalletType(v.accountType)) return;
  const selfCustody = signatureFamilyOf(v.accountType) !== undefined && v.accountInfo.vaspName === undefined;
  const errors: FieldError[] = [];
  if (selfCustody && !ownershipType) {
    errors.push({ field: 'ownershipType', message: 'Required for self-custody wallets on this platform (counterparty rules).', constraint: { enum: ['FIRST_PARTY', 'THIRD_PARTY'] } });
  }
  if (ownershipType === 'THIRD_PARTY' && v.accountInfo.beneficiary === undefined) {
    errors.push({ field: 'accountInfo.beneficiary', message: 'Required for THIRD_PARTY wallets on this platform (counterparty rules).' });
  }
  if (errors.length > 0) throw new ValidationError(errors);
}

type NewAccountInput = Parameters<typeof insertAccount>[2];

/**
 * Insert, moving the customer's UMA default in the same transaction. "Make me the default" creations of one
 * customer are serialised by a lock of the customer's row; the partial unique index
 * (external_accounts_default_uma_key) is the database's second guard, and a loser of that race runs again.
 */
async function insertWithRetry(ctx: Ctx, a: NewAccountInput): Promise<ExternalAccountRecord> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.$transaction(async (tx) => {
        if (a.defaultUmaDepositAccount && a.customerId) {
          // The customer's row, locked (issue 29: a row lock, not an advisory lock, stays on the platform's shard).
          await tx.$queryRaw`SELECT 1 FROM customers WHERE platform_id = ${ctx.platformId} AND id = ${a.customerId} FOR NO KEY UPDATE`;
          await clearDefaultUmaDeposit(tx, a.customerId);
        }
        return insertAccount(ctx, tx, a);
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      if (isUniqueViolation(err, 'default_uma') && attempt < 3) continue;
      if (isUniqueViolation(err, 'default_uma')) throw new ConflictError('CONFLICT', 'The default UMA deposit account changed concurrently; retry.');
      const existing = await ctx.db.externalAccount.findFirst({
        where: { ownerKey: a.customerId ?? 'PLATFORM', currency: a.currency, identityHash: a.identityHash, isDeleted: false },
        select: { id: true },
      });
      throw new ConflictError('CONFLICT', 'This external account already exists for this owner and currency.', existing ? { externalAccountId: existing.id } : undefined);
    }
  }
}

/** The check is queued after the commit; if Redis is down now, the PENDING sweep queues it later. */
async function enqueueAfterCommit(ctx: Ctx, accountId: string): Promise<void> {
  try {
    await enqueueBeneficiaryCheck(ctx, { platformId: ctx.platformId, accountId });
  } catch (err) {
    ctx.logger.warn({ err, accountId }, 'beneficiary check not queued; the sweep will retry');
  }
}

export interface ListQuery {
  customerId?: string;
  currency?: string;
  limit: number;
  cursor?: string;
}

/** GET /customers/external-accounts: customers' accounts only. Errors: 404 USER_NOT_FOUND for an unknown customerId. */
export async function listCustomerExternalAccounts(ctx: Ctx, q: ListQuery): Promise<Page<ExternalAccountRecord>> {
  if (q.customerId) await getCustomerFacts(ctx, q.customerId);
  return listAccounts(ctx, { customerId: q.customerId ?? ANY_CUSTOMER, currency: q.currency, limit: q.limit, cursor: q.cursor });
}

export async function listPlatformExternalAccounts(ctx: Ctx, q: Omit<ListQuery, 'customerId'>): Promise<Page<ExternalAccountRecord>> {
  return listAccounts(ctx, { customerId: null, currency: q.currency, limit: q.limit, cursor: q.cursor });
}

/**
 * DELETE: soft delete (204). Outstanding challenges are abandoned and the UMA default cleared.
 * Errors: 404; 409 BENEFICIARY_TRUSTED while the account is a trusted beneficiary (untrust and confirm first).
 */
export async function deleteExternalAccount(ctx: Ctx, scope: AccountScope, id: string): Promise<void> {
  const a = await getExternalAccount(ctx, scope, id);
  const trusted = () => new ConflictError('BENEFICIARY_TRUSTED', 'A trusted beneficiary cannot be deleted; untrust it and confirm first.');
  if (a.trustedAt) throw trusted();
  await ctx.db.$transaction(async (tx) => {
    if (!(await markDeleted(ctx, tx, id))) {
      // Lost a race: deleted meanwhile (404) or trusted meanwhile (409).
      const now = await findLiveAccount(ctx, tx, id);
      throw now ? trusted() : accountNotFound();
    }
    await abandonChallenges(ctx, tx, id, 'OWNERSHIP');
    await abandonChallenges(ctx, tx, id, 'TRUST');
  });
}

/** What money movement needs to pay into an external account. */
export interface PayableExternalAccount {
  id: string;
  customerId: string | null;
  currency: string;
  /** Canonical type (LIGHTNING_ACCOUNT reported as LIGHTNING). */
  accountType: string;
  paymentRails: string[];
  status: ExternalAccountStatus;
  /** Sandbox outcome selector (decision A9). */
  identifierLast3: string;
  /** Unsealed account info, beneficiary included. */
  accountInfo: Record<string, unknown>;
  /** A trusted beneficiary (SCA whitelisting, B§6.1). */
  trusted: boolean;
}

/**
 * The one check that an external account may receive a payment (spec: only ACTIVE accounts receive
 * payments; issue 4 item 7). For quotes and payouts.
 *
 * `allowPendingOwnership`: the spec lets transfers under regulatory thresholds reach a wallet still in
 * PENDING_OWNERSHIP_VERIFICATION; the caller, which knows the amount and the threshold, opts in.
 *
 * Errors: 404 NOT_FOUND (unknown, deleted, another platform's); 400 EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED when
 * the account is not ACTIVE (`details.status` says where it stands).
 */
export async function getPayableExternalAccount(ctx: Ctx, id: string, opts: { allowPendingOwnership?: boolean } = {}): Promise<PayableExternalAccount> {
  const a = await readLiveAccount(ctx, id);
  if (!a) throw accountNotFound();
  const allowed = a.status === 'ACTIVE' || (opts.allowPendingOwnership === true && a.status === 'PENDING_OWNERSHIP_VERIFICATION');
  if (!allowed) {
    throw new BadRequestError('EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED', `The external account is ${a.status}; only ACTIVE accounts receive payments.`, { externalAccountId: a.id, status: a.status });
  }
  return { ...payableView(a), status: a.status };
}

/** What payments need to know of an account (identifiers in clear). */
function payableView(a: NonNullable<Awaited<ReturnType<typeof findAnyAccount>>>) {
  return {
    id: a.id,
    customerId: a.customerId,
    currency: a.currency,
    accountType: a.accountType,
    paymentRails: [...a.paymentRails],
    identifierLast3: a.identifierLast3,
    accountInfo: a.accountInfo,
    trusted: a.trustedAt !== null,
  };
}

/**
 * The destination details of a payment already under way (settlement, payout submission): like
 * getPayableExternalAccount's answer but without the status check and found even after a delete.
 * Undefined when the id names no account of this platform.
 */
export async function getPayoutDestination(ctx: Ctx, id: string): Promise<Omit<PayableExternalAccount, 'status'> & { status: ExternalAccountStatus; isDeleted: boolean } | undefined> {
  const a = await findAnyAccount(ctx, id);
  if (!a) return undefined;
  return { ...payableView(a), status: a.status, isDeleted: a.isDeleted };
}

/** getPayoutDestination for many ids at once, by id (missing ids are absent). */
export async function getPayoutDestinations(ctx: Ctx, ids: string[]): Promise<Map<string, NonNullable<Awaited<ReturnType<typeof getPayoutDestination>>>>> {
  const found = ids.length ? await findAnyAccounts(ctx, [...new Set(ids)]) : [];
  return new Map(found.map((a) => [a.id, { ...payableView(a), status: a.status, isDeleted: a.isDeleted }]));
}

// ------------------------------------------------------------------------------------------ worker side

/** Thrown so BullMQ retries later: the provider has no answer yet (never guess one). */
export class RetryLater extends Error {}

/**
 * The queued beneficiary check (A11): ask the adapter outside any transaction, then record the answer and move
 * PENDING → ACTIVE (or UNDER_REVIEW) with EXTERNAL_ACCOUNT.STATUS_UPDATED. Idempotent: a second run finds the
 * result recorded and does nothing.
 */
export async function runBeneficiaryCheck(deps: AppDeps, platformId: string, accountId: string): Promise<'DONE' | 'SKIPPED'> {
  const ctx = ctxFor(deps, platformId);
  const a = await findLiveAccount(ctx, ctx.db, accountId);
  if (!a || a.beneficiaryVerificationStatus !== 'PENDING') return 'SKIPPED';
  const customer = a.customerId ? await getCustomerFacts(ctx, a.customerId).catch(() => undefined) : undefined;
  const result = await deps.adapters.beneficiaryCheck.check({
    reference: a.id,
    accountType: a.accountType,
    currency: a.currency,
    accountInfo: a.accountInfo,
    beneficiaryName: beneficiaryNameOf(a.accountInfo),
    customerName: customer?.name ?? null,
    ownershipType: (a.ownershipType as OwnershipType | null) ?? null,
    identifierLast3: a.identifierLast3,
  });
  if (result.status === 'PENDING') throw new RetryLater(`beneficiary check of ${a.id} has no answer yet`);
  await ctx.db.$transaction(async (tx) => {
    if (!(await recordBeneficiaryResult(ctx, tx, a.id, result.status, result.holderName))) return;
    const current = await findLiveAccount(ctx, tx, a.id);
    // Wallets awaiting an ownership proof keep their status: the check only informs.
    if (current?.status === 'PENDING') await transitionAccount(ctx, tx, a.id, result.requiresReview ? 'beneficiaryCheckNeedsReview' : 'beneficiaryCheckPassed');
  });
  return 'DONE';
}

function beneficiaryNameOf(info: Record<string, unknown>): string | null {
  const b = info.beneficiary as Record<string, unknown> | undefined;
  const name = b?.fullName ?? b?.legalName;
  return typeof name === 'string' ? name : null;
}

/**
 * Re-queues checks of accounts still PENDING after a grace period (a lost enqueue, an exhausted retry).
 * Cross-platform by nature, so it reads through the raw client; the job itself runs tenant-scoped.
 */
export async function sweepPendingChecks(deps: AppDeps): Promise<number> {
  const graceMs = Math.max(5_000, deps.config.EXTERNAL_ACCOUNT_SWEEP_INTERVAL_MS);
  const cutoff = new Date(deps.clock.now().getTime() - graceMs);
  const q = queueOf(deps, EXTERNAL_ACCOUNTS_QUEUE);
  // Issue 11: the same job id as the first enqueue — a live check makes this a no-op, a lost or finished one is re-added.
  return sweepDue(
    deps,
    EXTERNAL_ACCOUNTS_QUEUE,
    'external_accounts',
    (tx, platforms) => tx.$queryRaw<Array<{ id: string; platform_id: string }>>`
      SELECT id, platform_id FROM external_accounts
       WHERE platform_id = ANY(${platforms}) AND beneficiary_verification_status = 'PENDING' AND is_deleted = false AND updated_at < ${cutoff}
       ORDER BY updated_at LIMIT ${deps.config.EXTERNAL_ACCOUNT_SWEEP_BATCH} FOR UPDATE SKIP LOCKED`,
    (r) => ensureJob(q, 'beneficiary-check', { platformId: r.platform_id, accountId: r.id } satisfies BeneficiaryCheckJob, { jobId: beneficiaryCheckJobId(r.id), ...JOB_OPTIONS }),
  );
}

/** Operator moves (A11: INACTIVE is set by the operator; reviews are approved by the operator). */
export async function operatorTransition(deps: AppDeps, accountId: string, event: Extract<ExternalAccountEvent, 'deactivate' | 'reactivate' | 'reviewApproved'>): Promise<ExternalAccountRecord> {
  // Issue 29 (29a): the account's platform from tenant_lookups, then the account under it.
  const platformId = await platformOfLookup(deps.prisma, 'EXTERNAL_ACCOUNT', accountId);
  if (!platformId) throw new NotFoundError('NOT_FOUND', 'External account not found.');
  const ctx = ctxFor(deps, platformId);
  return ctx.db.$transaction((tx) => transitionAccount(ctx, tx, accountId, event));
}


/**
 * The customer's `defaultUmaDepositAccount` when it can receive a payment in `currency` (live, ACTIVE,
 * same currency), for incoming UMA payments (spec ExternalAccount); undefined otherwise.
 */
export async function getDefaultUmaDepositAccount(ctx: Ctx, customerId: string, currency: string): Promise<PayableExternalAccount | undefined> {
  const row = await ctx.db.externalAccount.findFirst({ where: { customerId, defaultUmaDepositAccount: true, isDeleted: false }, select: { id: true } });
  if (!row) return undefined;
  const a = await getPayableExternalAccount(ctx, row.id).catch(() => undefined);
  return a && a.currency === currency ? a : undefined;
}
