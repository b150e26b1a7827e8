import type { Ctx } from '../../deps.js';
import { poolOf, type TenantDb, type TenantTx } from '../../platform/db.js';
import { rowById, rowsByIds } from '../../platform/raw-rows.js';
import { NotFoundError } from '../../platform/errors.js';
import { statusColumn, transition, transitionWhere, tryTransition } from '../../platform/state-machine.js';
import { toJson } from '../../platform/outbox.js';
import { decodeCursor, toPage, type Page } from '../../platform/http/pagination.js';
import { Prisma, type ExternalAccount as Row } from '../../generated/prisma/client.js';
import { openAccountInfo, sealAccountInfo } from './account-info.sealing.js';
import { accountChallengeLifecycle, externalAccountLifecycle, type ExternalAccountEvent, type ExternalAccountStatus } from './external-accounts.model.js';
import { externalAccountResource, type ExternalAccountRecord } from './external-accounts.schemas.js';
import { syncLookups } from '../../platform/tenant-lookups.js';

/** Prisma access for external accounts. Returns ExternalAccountRecord (identifiers unsealed), never rows. */

type Db = TenantDb | TenantTx;

export const STATUS_UPDATED_EVENT = 'EXTERNAL_ACCOUNT.STATUS_UPDATED';

export function accountNotFound(): NotFoundError {
  return new NotFoundError('NOT_FOUND', 'External account not found.');
}

function toRecord(row: Row, key: string | undefined): ExternalAccountRecord {
  return {
    id: row.id,
    customerId: row.customerId,
    status: row.status as ExternalAccountStatus,
    platformAccountId: row.platformAccountId,
    ownershipType: row.ownershipType,
    currency: row.currency,
    accountType: row.accountType,
    accountInfo: openAccountInfo(row.accountInfo as Record<string, unknown>, key),
    paymentRails: row.paymentRails,
    identifierLast3: row.identifierLast3,
    defaultUmaDepositAccount: row.defaultUmaDepositAccount,
    beneficiaryVerificationStatus: row.beneficiaryVerificationStatus,
    beneficiaryVerifiedData: row.beneficiaryVerifiedData,
    trustedAt: row.trustedAt,
    isDeleted: row.isDeleted,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** A live (not deleted) account of the calling platform, or undefined. */
export async function findLiveAccount(ctx: Ctx, db: Db, id: string): Promise<ExternalAccountRecord | undefined> {
  const row = await db.externalAccount.findFirst({ where: { id } });
  return row && !row.isDeleted ? toRecord(row, ctx.config.EXTERNAL_ACCOUNT_ENCRYPTION_KEY) : undefined;
}

/** findLiveAccount outside a transaction, as a prepared raw read (issue 12: the money path's destination). */
export async function readLiveAccount(ctx: Ctx, id: string): Promise<ExternalAccountRecord | undefined> {
  const row = await rowById<Row>(poolOf(ctx.prisma), 'external_accounts', ctx.platformId, id);
  return row && !row.isDeleted ? toRecord(row, ctx.config.EXTERNAL_ACCOUNT_ENCRYPTION_KEY) : undefined;
}

/** Any account of the calling platform, deleted ones included (money already sent to it must stay traceable). */
export async function findAnyAccount(ctx: Ctx, id: string): Promise<ExternalAccountRecord | undefined> {
  const row = await ctx.db.externalAccount.findFirst({ where: { id } });
  return row ? toRecord(row, ctx.config.EXTERNAL_ACCOUNT_ENCRYPTION_KEY) : undefined;
}

/**
 * findAnyAccount for many ids at once (one read): the batched payout submission's destinations. A
 * prepared raw statement (issue 12): the payments worker reads it for every batch.
 */
export async function findAnyAccounts(ctx: Ctx, ids: string[]): Promise<ExternalAccountRecord[]> {
  const rows = await rowsByIds<Row>(poolOf(ctx.prisma), 'external_accounts', ctx.platformId, ids);
  return rows.map((row) => toRecord(row, ctx.config.EXTERNAL_ACCOUNT_ENCRYPTION_KEY));
}

/** What creating an account sets: the record's own fields, and the identity hash that finds duplicates. */
export type NewAccount = Pick<
  ExternalAccountRecord,
  'id' | 'customerId' | 'status' | 'platformAccountId' | 'ownershipType' | 'currency' | 'accountType' | 'accountInfo' | 'paymentRails' | 'identifierLast3' | 'defaultUmaDepositAccount'
> & { identityHash: string };

export async function insertAccount(ctx: Ctx, tx: TenantTx, a: NewAccount): Promise<ExternalAccountRecord> {
  const now = ctx.clock.now();
  const row = await tx.externalAccount.create({
    data: {
      ...a,
      ownerKey: a.customerId ?? 'PLATFORM',
      accountInfo: toJson(sealAccountInfo(a.accountInfo, ctx.config.EXTERNAL_ACCOUNT_ENCRYPTION_KEY)),
      beneficiaryVerificationStatus: 'PENDING',
      createdAt: now,
      updatedAt: now,
    } as Prisma.ExternalAccountUncheckedCreateInput,
  });
  await syncLookups(tx, 'external_accounts', null, row);
  return toRecord(row, ctx.config.EXTERNAL_ACCOUNT_ENCRYPTION_KEY);
}

/** Clears the customer's current UMA deposit default (the caller then sets the new one, same transaction). */
export async function clearDefaultUmaDeposit(tx: TenantTx, customerId: string): Promise<void> {
  await tx.externalAccount.updateMany({ where: { customerId, defaultUmaDepositAccount: true }, data: { defaultUmaDepositAccount: false } });
}

export interface ListFilter {
  /** A customer id, `ANY_CUSTOMER` (every customer's accounts) or null (the platform's own). */
  customerId: string | null | typeof ANY_CUSTOMER;
  currency?: string;
  limit: number;
  cursor?: string;
}
export const ANY_CUSTOMER = Symbol('any customer');

export async function listAccounts(ctx: Ctx, f: ListFilter): Promise<Page<ExternalAccountRecord>> {
  const before = decodeCursor(f.cursor);
  const rows = await ctx.db.externalAccount.findMany({
    where: {
      isDeleted: false,
      customerId: f.customerId === ANY_CUSTOMER ? { not: null } : f.customerId,
      ...(f.currency ? { currency: f.currency } : {}),
      ...(before ? { id: { lt: before } } : {}),
    },
    orderBy: { id: 'desc' },
    take: f.limit + 1,
  });
  return toPage(rows, f.limit, (r) => toRecord(r, ctx.config.EXTERNAL_ACCOUNT_ENCRYPTION_KEY));
}

/** Soft delete: the row stays for the money already sent to it; lists, reads and payments no longer see it. */
export async function markDeleted(ctx: Ctx, tx: TenantTx, id: string): Promise<boolean> {
  const now = ctx.clock.now();
  // trustedAt: null in the filter is the compare-and-set against a concurrent trust confirmation.
  const res = await tx.externalAccount.updateMany({
    where: { id, isDeleted: false, trustedAt: null },
    data: { isDeleted: true, deletedAt: now, defaultUmaDepositAccount: false, updatedAt: now },
  });
  return res.count === 1;
}

export async function setTrusted(ctx: Ctx, tx: TenantTx, id: string, trusted: boolean): Promise<boolean> {
  const now = ctx.clock.now();
  const res = await tx.externalAccount.updateMany({ where: { id, isDeleted: false }, data: { trustedAt: trusted ? now : null, updatedAt: now } });
  return res.count === 1;
}

/** Records the beneficiary check's answer once: only while it is still PENDING. */
export async function recordBeneficiaryResult(ctx: Ctx, tx: TenantTx, id: string, status: string, holderName?: string): Promise<boolean> {
  const res = await tx.externalAccount.updateMany({
    where: { id, beneficiaryVerificationStatus: 'PENDING' },
    data: {
      beneficiaryVerificationStatus: status,
      ...(holderName ? { beneficiaryVerifiedData: { fullName: holderName } } : {}),
      updatedAt: ctx.clock.now(),
    },
  });
  return res.count === 1;
}

const accountStatus = statusColumn(externalAccountLifecycle, 'external_accounts', 'status', { notFound: accountNotFound });
const challengeStatus = statusColumn(accountChallengeLifecycle, 'external_account_challenges', 'status');

/**
 * The one way an external account's status changes: transition() — compare-and-set on a live account, its
 * history row and the EXTERNAL_ACCOUNT.STATUS_UPDATED event carrying the full account (as GET returns it),
 * in the caller's transaction. Errors: 404 NOT_FOUND (missing or deleted); 409 CONFLICT for an illegal move
 * and for a lost race alike.
 */
export async function transitionAccount(ctx: Ctx, tx: TenantTx, id: string, event: ExternalAccountEvent): Promise<ExternalAccountRecord> {
  let record: ExternalAccountRecord | undefined;
  await transition(tx, ctx, accountStatus, event, id, {
    where: Prisma.sql`"is_deleted" = false`,
    onMiss: (current) => (current?.isDeleted ? accountNotFound() : undefined),
    events: (moved) => {
      record = toRecord(moved, ctx.config.EXTERNAL_ACCOUNT_ENCRYPTION_KEY);
      return { type: STATUS_UPDATED_EVENT, data: externalAccountResource(record) };
    },
  });
  return record!;
}

// ------------------------------------------------------------------------------------------ challenges

export type ChallengePurpose = 'OWNERSHIP' | 'TRUST';

export interface NewChallenge {
  id: string;
  externalAccountId: string;
  purpose: ChallengePurpose;
  method: 'WALLET_SIGNATURE' | 'LIVENESS' | 'SMS_OTP';
  action?: 'TRUST' | 'UNTRUST';
  messageToSign?: string;
  secretHash?: string;
  expiresAt: Date;
}

/** Abandons the outstanding challenge of this purpose (B§6.4: a new challenge replaces the old one). */
export async function abandonChallenges(ctx: Ctx, tx: TenantTx, externalAccountId: string, purpose: ChallengePurpose): Promise<void> {
  await transitionWhere(tx, ctx, challengeStatus, 'abandon', Prisma.sql`"external_account_id" = ${externalAccountId} AND "purpose" = ${purpose}`, {
    set: { resolvedAt: ctx.clock.now() },
  });
}

export async function insertChallenge(ctx: Ctx, tx: TenantTx, c: NewChallenge) {
  const row = await tx.externalAccountChallenge.create({
    data: { ...c, action: c.action ?? null, status: 'OUTSTANDING', createdAt: ctx.clock.now() } as Prisma.ExternalAccountChallengeUncheckedCreateInput,
  });
  await syncLookups(tx, 'external_account_challenges', null, row);
  return row;
}

export async function findOutstandingChallenge(db: Db, externalAccountId: string, purpose: ChallengePurpose) {
  return db.externalAccountChallenge.findFirst({ where: { externalAccountId, purpose, status: 'OUTSTANDING' } });
}

/** Compare-and-set OUTSTANDING → outcome; false when someone else resolved it first. */
export async function resolveChallenge(ctx: Ctx, tx: TenantTx, id: string, outcome: 'SUCCEEDED' | 'FAILED'): Promise<boolean> {
  const moved = await tryTransition(tx, ctx, challengeStatus, outcome === 'SUCCEEDED' ? 'succeed' : 'fail', id, { set: { resolvedAt: ctx.clock.now() } });
  return moved !== null;
}
