import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import type { CollectionCredit as CreditRow, InternalAccount } from '../../generated/prisma/client.js';
import { newId } from '../../platform/ids.js';
import type { CollectionCredit, CreditReceipt } from '../../adapters/collection/port.js';
import { systemAccount, type Posting } from '../ledger/index.js';
import { creditIncomingPayment, recordFailedIncoming } from '../payments/index.js';
import { heldReasonFor, type HeldReason } from './collection.model.js';
import { platformOfLookup } from '../../platform/tenant-lookups.js';

/**
 * A credit on pay-in coordinates (issue 26 item 1), however it arrives — the provider's verified push, the
 * reconciliation poll, the sandbox call — enters here and is taken exactly once per (adapter, provider
 * credit id): the collection_credits row is claimed first (unique index) with the transaction id its
 * credit will have, so a repeat, a concurrent report or a retry after a crash writes the same transaction
 * or nothing (the transaction's primary key and its journal's idempotency key refuse a second one).
 *   ACTIVE account, same currency  → an INCOMING transaction COMPLETED and its ledger credit, written by the
 *                                    payments domain's incoming writer (INCOMING_PAYMENT.COMPLETED,
 *                                    INTERNAL_ACCOUNT.BALANCE_UPDATED)
 *   FROZEN / CLOSED / other status,
 *   another currency               → HELD, with an INCOMING transaction FAILED (COLLECTION_FAILED,
 *                                    INCOMING_PAYMENT.FAILED): reported, never lost
 *   no coordinates match           → HELD (UNMATCHED): no platform to tell; the operator's list shows it
 */
export async function receiveCollectionCredit(deps: AppDeps, adapterId: string, credit: CollectionCredit): Promise<CreditReceipt> {
  const { row, inserted } = await claimCredit(deps, adapterId, credit);
  if (row.status !== 'RECEIVED') return 'DUPLICATE';
  const receipt = await applyClaimed(deps, row);
  return inserted ? receipt : 'DUPLICATE';
}

async function claimCredit(deps: AppDeps, adapterId: string, c: CollectionCredit): Promise<{ row: CreditRow; inserted: boolean }> {
  const key = { adapterId_providerCreditId: { adapterId, providerCreditId: c.creditId } };
  const existing = await deps.prisma.collectionCredit.findUnique({ where: key });
  if (existing) return { row: existing, inserted: false };
  // The reference is the provider's, found before the platform is known: through tenant_lookups (issue 29).
  const platformId = await platformOfLookup(deps.prisma, 'COLLECTION_REFERENCE', adapterId, c.reference);
  const coordinates = platformId
    ? await deps.prisma.collectionCoordinates.findUnique({ where: { platformId_adapterId_reference: { platformId, adapterId, reference: c.reference } } })
    : null;
  const now = deps.clock.now();
  const { count } = await deps.prisma.collectionCredit.createMany({
    data: [{
      id: newId('CollectionCredit'), adapterId, providerCreditId: c.creditId, platformId: coordinates?.platformId ?? null,
      internalAccountId: coordinates?.internalAccountId ?? null, coordinatesId: coordinates?.id ?? null, transactionId: newId('Transaction'),
      reference: c.reference, rail: c.rail, amount: c.amount, currency: c.currency, sender: c.sender ?? undefined, status: 'RECEIVED',
      receivedAt: c.receivedAt, createdAt: now, updatedAt: now,
    }],
    skipDuplicates: true,
  });
  return { row: await deps.prisma.collectionCredit.findUniqueOrThrow({ where: key }), inserted: count === 1 };
}

/** Applies (or holds) a RECEIVED credit; also the reconcile sweep's step for a credit left RECEIVED by a crash. */
async function applyClaimed(deps: AppDeps, row: CreditRow): Promise<CreditReceipt> {
  if (!row.platformId || !row.internalAccountId) {
    deps.logger.warn({ creditId: row.id, adapter: row.adapterId, rail: row.rail }, 'a collection credit matches no coordinates: held (UNMATCHED)');
    await markCredit(deps, row, 'HELD', 'UNMATCHED');
    return 'HELD';
  }
  const ctx = ctxFor(deps, row.platformId);
  const account = await ctx.db.internalAccount.findFirstOrThrow({ where: { id: row.internalAccountId } });
  const reason: HeldReason | undefined = account.currency !== row.currency ? 'CURRENCY_MISMATCH' : heldReasonFor(account.status);
  if (reason) {
    await holdCredit(ctx, row, account, reason);
    return 'HELD';
  }
  await creditAccount(ctx, row, account);
  await markCredit(deps, row, 'APPLIED', null);
  return 'APPLIED';
}

async function markCredit(deps: AppDeps, row: CreditRow, status: 'APPLIED' | 'HELD', heldReason: HeldReason | null): Promise<void> {
  await deps.prisma.collectionCredit.updateMany({ where: { id: row.id, status: 'RECEIVED' }, data: { status, heldReason, updatedAt: deps.clock.now() } });
}

function senderFields(sender: unknown): Record<string, string> {
  const s = (sender ?? {}) as { name?: string; accountLast4?: string; bankName?: string };
  return {
    ...(s.name ? { accountHolderName: s.name } : {}),
    ...(s.accountLast4 ? { accountIdentifier: `****${s.accountLast4}` } : {}),
    ...(s.bankName ? { bankName: s.bankName } : {}),
  };
}

/** The fields of the credit's INCOMING transaction (its id fixed when the credit was claimed). */
function incomingFields(row: CreditRow, account: InternalAccount, platformCustomerId: string | null) {
  return {
    id: row.transactionId,
    customerId: account.customerId,
    platformCustomerId,
    sourceAccountId: systemAccount('DEPOSITS', row.currency, row.rail),
    // REF's payer fields of a funding deposit (PaymentSource REALTIME_FUNDING): the rail and the sender as reported.
    source: { sourceType: 'REALTIME_FUNDING', currency: row.currency, paymentRail: row.rail, ...senderFields(row.sender) },
    destinationAccountId: account.id,
    destination: { destinationType: 'ACCOUNT', accountId: account.id, currency: account.currency },
    paymentRail: row.rail,
    identifierLast3: null,
    sentAmount: row.amount,
    sendingCurrency: row.currency,
    receivedAmount: row.amount,
    receivingCurrency: row.currency,
    createdAt: row.receivedAt,
    description: `Pay-in on ${row.rail} coordinates`,
  };
}

async function platformCustomerIdOf(ctx: Ctx, customerId: string | null): Promise<string | null> {
  if (!customerId) return null;
  return (await ctx.db.customer.findFirst({ where: { id: customerId }, select: { platformCustomerId: true } }))?.platformCustomerId ?? null;
}

/**
 * The credit through the payments domain's one incoming writer. A retry of a credit whose transaction was
 * already written (a worker killed after the write, before the mark) meets the transaction's primary key:
 * the credit is applied, nothing else is written.
 */
async function creditAccount(ctx: Ctx, row: CreditRow, account: InternalAccount): Promise<void> {
  const fields = incomingFields(row, account, await platformCustomerIdOf(ctx, account.customerId));
  const postings: Posting[] = [
    { account: fields.sourceAccountId, bucket: 'SYSTEM', currency: row.currency, amount: -row.amount },
    { account: account.id, bucket: 'AVAILABLE', currency: row.currency, amount: row.amount },
  ];
  // The credit's time is when the service wrote it; receivedAt stays on the collection credit.
  const at = ctx.clock.now();
  try {
    await creditIncomingPayment(ctx, { ...fields, createdAt: at }, { key: `collection:${row.id}`, kind: 'COLLECTION', postings });
  } catch (err) {
    if (await ctx.db.transaction.findFirst({ where: { id: row.transactionId }, select: { id: true } })) return;
    throw err;
  }
}

/** HELD with its FAILED transaction (COLLECTION_FAILED) in one database transaction; a repeat writes nothing. */
async function holdCredit(ctx: Ctx, row: CreditRow, account: InternalAccount, reason: HeldReason): Promise<void> {
  const fields = incomingFields(row, account, await platformCustomerIdOf(ctx, account.customerId));
  await ctx.db.$transaction(async (tx) => {
    const marked = await tx.$executeRaw`
      UPDATE collection_credits SET status = 'HELD', held_reason = ${reason}, updated_at = ${ctx.clock.now()} WHERE id = ${row.id} AND status = 'RECEIVED'`;
    if (marked !== 1) return;
    await recordFailedIncoming(ctx, tx, { ...fields, createdAt: ctx.clock.now() }, 'COLLECTION_FAILED');
  });
}

/**
 * The reconcile sweep's second half: credits left RECEIVED (a worker killed between the claim and the mark)
 * for longer than a lease are applied again — the same transaction id, so at most one credit.
 */
export async function finishReceivedCredits(deps: AppDeps): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - 2 * deps.config.PROVIDER_TIMEOUT_MS);
  const stuck = await deps.prisma.collectionCredit.findMany({ where: { status: 'RECEIVED', createdAt: { lte: before } }, orderBy: { createdAt: 'asc' }, take: deps.config.COLLECTION_SWEEP_BATCH });
  for (const row of stuck) {
    try {
      await applyClaimed(deps, row);
    } catch (err) {
      deps.logger.warn({ err, creditId: row.id }, 'collection credit could not be applied; retried by the next sweep');
    }
  }
  return stuck.length;
}
