import type { Ctx } from '../../deps.js';
import type { CollectionCredit, Prisma } from '../../generated/prisma/client.js';
import { DomainError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { decodeCursor, toPage, type Page } from '../../platform/http/pagination.js';
import type { SandboxCollection } from '../../adapters/collection/sandbox/index.js';
import { getInternalAccount } from '../ledger/index.js';
import type { ListCreditsQuery, SimulateCreditBody } from './collection.schemas.js';

/**
 * GET /collection-credits: the platform's credits on pay-in coordinates, newest first — above all the HELD
 * ones (a frozen or closed account, another currency), which wait for the operator. Credits that matched no
 * coordinates belong to no platform: the operator lists them (npm run collection:held).
 */
export async function listCollectionCredits(ctx: Ctx, q: ListCreditsQuery): Promise<Page<CollectionCredit>> {
  const before = decodeCursor(q.cursor);
  const where: Prisma.CollectionCreditWhereInput = {
    platformId: ctx.platformId,
    ...(q.status ? { status: q.status } : {}),
    ...(q.internalAccountId ? { internalAccountId: q.internalAccountId } : {}),
    ...(q.heldReason ? { heldReason: q.heldReason } : {}),
    ...(before ? { id: { lt: before } } : {}),
  };
  // CollectionCredit is not scoped by the tenant client (an unmatched credit has no platform): `where` names the platform.
  const rows = await ctx.prisma.collectionCredit.findMany({ where, orderBy: { id: 'desc' }, take: q.limit + 1 });
  return toPage(rows, q.limit, (r) => r);
}

/**
 * POST /sandbox/internal-accounts/{id}/credits: money arrives on the account's coordinates at the sandbox
 * bank, which reports it as a provider does (its signed webhook; with `push: false` only its poll). The
 * answer is the credit as the service took it. Errors: 404 NOT_FOUND; 400 INVALID_INPUT (no OPEN coordinates
 * on that rail); 501 NOT_IMPLEMENTED (the collection provider is not the sandbox bank).
 */
export async function simulateCredit(ctx: Ctx, accountId: string, body: SimulateCreditBody): Promise<CollectionCredit> {
  const account = await getInternalAccount(ctx, accountId);
  const bank = ctx.adapters.collection as SandboxCollection | undefined;
  if (!bank?.simulateCredit) throw new DomainError(501, 'NOT_IMPLEMENTED', 'The collection provider of this deployment is not the sandbox bank (COLLECTION_PROVIDER).');
  const open = await ctx.db.collectionCoordinates.findMany({ where: { internalAccountId: account.id, status: { in: ['OPEN', 'CLOSING', 'CLOSED'] }, reference: { not: null }, ...(body.rail ? { rail: body.rail } : {}) }, orderBy: [{ status: 'desc' }, { rail: 'asc' }] });
  // A payer may still send to coordinates the account's closing withdrew (the provider's close lags): OPEN first, then those.
  const coordinates = open[0];
  if (!coordinates) {
    throw new ValidationError([{ field: body.rail ? 'rail' : 'accountId', message: body.rail ? `The account has no coordinates on ${body.rail}.` : 'The account has no OPEN coordinates yet (they open asynchronously; see fundingPaymentInstructions).' }]);
  }
  const reference = body.scenario === 'UNMATCHED' ? `${coordinates.rail}:UNMATCHED-${accountId.slice(-12)}` : coordinates.reference!;
  const { credit } = await bank.simulateCredit(
    { reference, rail: coordinates.rail, amount: BigInt(body.amount), currency: body.currency ?? account.currency, ...(body.creditId ? { creditId: body.creditId } : {}), ...(body.sender ? { sender: body.sender } : {}) },
    { push: body.push },
  );
  const row = await ctx.prisma.collectionCredit.findUnique({ where: { adapterId_providerCreditId: { adapterId: bank.id, providerCreditId: credit.creditId } } });
  if (!row) {
    // Not pushed (push: false): the bank has it; the reconciliation poll brings it.
    return { id: '', adapterId: bank.id, providerCreditId: credit.creditId, platformId: null, internalAccountId: null, coordinatesId: null, transactionId: '', reference, rail: credit.rail, amount: credit.amount, currency: credit.currency, sender: null, status: 'RECEIVED', heldReason: null, receivedAt: credit.receivedAt, createdAt: credit.receivedAt, updatedAt: credit.receivedAt };
  }
  if (row.platformId && row.platformId !== ctx.platformId) throw new NotFoundError('NOT_FOUND', 'Internal account not found.');
  return row;
}
