import type { Ctx } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { NotFoundError } from '../../platform/errors.js';
import { visibleToCaller } from '../../platform/agent-scope.js';
import { newId } from '../../platform/ids.js';
import { decodeCursor, toPage, type Page } from '../../platform/http/pagination.js';
import type { InternalAccount, Prisma } from '../../generated/prisma/client.js';
import { internalAccountType, systemAccount } from './ledger.model.js';
import { postJournal } from './ledger.service.js';
import { assertAccountsCanMove } from './internal-accounts.status.js';

/**
 * Opens one internal account per currency for a customer (customerId) or for the platform
 * (customerId null), skipping currencies it already has. Call inside the transaction that
 * creates or updates the owner.
 */
export async function openInternalAccounts(tx: Pick<TenantTx, 'internalAccount'> | Pick<Prisma.TransactionClient, 'internalAccount'>, platformId: string, customerId: string | null, currencies: string[]): Promise<void> {
  const unique = [...new Set(currencies)];
  if (unique.length === 0) return;
  await (tx as Pick<Prisma.TransactionClient, 'internalAccount'>).internalAccount.createMany({
    data: unique.map((currency) => ({
      id: newId('InternalAccount'),
      platformId,
      customerId,
      ownerKey: customerId ?? 'PLATFORM',
      currency,
      type: internalAccountType(currency),
    })),
    skipDuplicates: true,
  });
}

/** Errors: 404 NOT_FOUND (also another platform's account). */
export async function getInternalAccount(ctx: Ctx, id: string): Promise<InternalAccount> {
  const a = await ctx.db.internalAccount.findFirst({ where: { id } });
  if (!a || !visibleToCaller(ctx, a.customerId)) throw new NotFoundError('NOT_FOUND', 'Internal account not found.');
  return a;
}

export interface ListInternalAccountsQuery {
  customerId?: string;
  currency?: string;
  type?: string;
  limit: number;
  cursor?: string;
}

export async function listCustomerInternalAccounts(ctx: Ctx, q: ListInternalAccountsQuery): Promise<Page<InternalAccount>> {
  const before = decodeCursor(q.cursor);
  const rows = await ctx.db.internalAccount.findMany({
    where: {
      customerId: q.customerId ?? { not: null },
      ...(q.currency ? { currency: q.currency } : {}),
      ...(q.type ? { type: q.type } : {}),
      ...(before ? { id: { lt: before } } : {}),
    },
    orderBy: { id: 'desc' },
    take: q.limit + 1,
  });
  return toPage(rows, q.limit, (r) => r);
}

export async function listPlatformInternalAccounts(ctx: Ctx, q: { currency?: string; type?: string }): Promise<InternalAccount[]> {
  return ctx.db.internalAccount.findMany({
    where: { customerId: null, ...(q.currency ? { currency: q.currency } : {}), ...(q.type ? { type: q.type } : {}) },
    orderBy: { currency: 'asc' },
  });
}

/** POST /sandbox/internal-accounts/{id}/fund: test money from the sandbox funding account. */
export async function fundSandboxAccount(ctx: Ctx, id: string, amount: bigint): Promise<InternalAccount> {
  const account = await getInternalAccount(ctx, id);
  await assertAccountsCanMove(ctx, [{ accountId: account.id, field: 'accountId' }]); // hook:25b
  await ctx.db.$transaction(async (tx) => {
    await postJournal(ctx, tx, {
      key: newId('LedgerEntry'),
      kind: 'SANDBOX_FUNDING',
      referenceId: account.id,
      postings: [
        { account: systemAccount('SANDBOX_FUNDING', account.currency), bucket: 'SYSTEM', currency: account.currency, amount: -amount },
        { account: account.id, bucket: 'AVAILABLE', currency: account.currency, amount },
      ],
    });
  });
  return getInternalAccount(ctx, id);
}
