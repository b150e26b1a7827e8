import type { AppDeps, Ctx } from '../../deps.js';
import { BadRequestError, DomainError, NotFoundError, NotImplementedError, ValidationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { statusColumn, tryTransition } from '../../platform/state-machine.js';
import type { BankLink, Customer } from '../../generated/prisma/client.js';
import { BankLinkError, type LinkedBankAccount } from '../../adapters/bank-link/port.js';
import { getActiveCustomer } from '../customers/index.js';
import { createExternalAccount, deleteExternalAccount, getExternalAccount, type ExternalAccountRecord } from '../external-accounts/index.js';
import { bankLinkLifecycle } from './plaid.model.js';
import { platformOfLookup, syncLookups } from '../../platform/tenant-lookups.js';

const bankLinkStatus = statusColumn(bankLinkLifecycle, 'bank_links', 'status');

const linkNotFound = () => new NotFoundError('NOT_FOUND', 'Link token not found.');

function bankLinkOf(ctx: Ctx) {
  const adapter = ctx.adapters.bankLink;
  if (!adapter) throw new NotImplementedError('No bank-link provider is configured (BANK_LINK_PROVIDER).');
  return adapter;
}

/** A refusal of the provider as the spec's error body. */
function providerError(err: unknown): never {
  if (!(err instanceof BankLinkError)) throw err;
  if (err.code === 'INVALID_PUBLIC_TOKEN') throw new ValidationError([{ field: 'publicToken', message: err.message }]);
  if (err.code === 'ACCOUNT_NOT_FOUND' || err.code === 'NO_ELIGIBLE_ACCOUNT') throw new ValidationError([{ field: 'accountId', message: err.message }]);
  if (err.retryable) throw new DomainError(503, 'SERVICE_UNAVAILABLE', 'The bank-link provider is unavailable; retry shortly.');
  throw new DomainError(424, 'BANK_LINK_PROVIDER_ERROR', err.message);
}

function customerName(c: Customer): string | null {
  if (c.customerType === 'BUSINESS') return ((c.businessInfo as { legalName?: string } | null)?.legalName ?? null) || null;
  return c.fullName;
}

export const callbackUrlOf = (deps: AppDeps, linkToken: string) =>
  `${deps.config.PUBLIC_BASE_URL.replace(/\/+$/, '')}${deps.config.API_BASE_PATH}/plaid/callback/${encodeURIComponent(linkToken)}`;

/**
 * POST /plaid/link-tokens: a link session for the customer with the configured provider; the
 * platform opens the provider's link UI with `linkToken` and POSTs the resulting public token to
 * `callbackUrl`. Errors: 404 USER_NOT_FOUND; 501 NOT_IMPLEMENTED (no provider); 503, 424 (provider).
 */
export async function createLinkToken(ctx: Ctx, customerId: string): Promise<{ link: BankLink; linkUrl?: string; requestId?: string }> {
  const adapter = bankLinkOf(ctx);
  const customer = await getActiveCustomer(ctx, customerId);
  const id = newId('BankLink');
  // The provider is called outside any database transaction; the row records what it issued.
  const token = await adapter.createLinkToken({ reference: id, customerId: customer.id, customerName: customerName(customer) }).catch(providerError);
  const now = ctx.clock.now();
  const link = await ctx.db.$transaction(async (tx) => {
    const created = await tx.bankLink.create({
      data: { id, customerId: customer.id, provider: adapter.id, linkToken: token.linkToken, status: 'PENDING', expiresAt: token.expiresAt, createdAt: now, updatedAt: now } as never,
    });
    await syncLookups(tx, 'bank_links', null, created);
    return created;
  });
  return { link, ...(token.linkUrl ? { linkUrl: token.linkUrl } : {}), ...(token.requestId ? { requestId: token.requestId } : {}) };
}

/** The customer as the account's beneficiary: the bank verified that the customer holds it. */
function beneficiaryOf(c: Customer): Record<string, unknown> {
  const address = (c.address as Record<string, unknown> | null) ?? undefined;
  if (c.customerType === 'BUSINESS') return { beneficiaryType: 'BUSINESS', legalName: customerName(c), ...(address ? { address } : {}) };
  return {
    beneficiaryType: 'INDIVIDUAL',
    fullName: c.fullName,
    ...(c.birthDate ? { birthDate: c.birthDate.toISOString().slice(0, 10) } : {}),
    ...(c.nationality ? { nationality: c.nationality } : {}),
    ...(address ? { address } : {}),
  };
}

function accountBody(customer: Customer, a: LinkedBankAccount) {
  return {
    currency: a.currency,
    customerId: customer.id,
    ownershipType: 'FIRST_PARTY',
    accountInfo: {
      accountType: 'USD_ACCOUNT',
      accountNumber: a.accountNumber,
      routingNumber: a.routingNumber,
      bankAccountType: a.bankAccountType,
      ...(a.bankName ? { bankName: a.bankName.slice(0, 255) } : {}),
      beneficiary: beneficiaryOf(customer),
    },
  };
}

/**
 * POST /plaid/callback/{linkToken}: exchanges the public token with the provider and registers the
 * verified account as the customer's external account (then checked and activated as any other,
 * EXTERNAL_ACCOUNT.STATUS_UPDATED). A link completes once; submitting to a completed link answers
 * its account again. Errors: 400 INVALID_INPUT (public token, account, or the customer's data the
 * account needs), LINK_TOKEN_EXPIRED; 404 NOT_FOUND; 424, 503 (provider); 501.
 */
export async function submitPublicToken(ctx: Ctx, linkToken: string, body: { publicToken: string; accountId?: string }): Promise<ExternalAccountRecord> {
  const adapter = bankLinkOf(ctx);
  const link = await ctx.db.bankLink.findUnique({ where: { platformId_linkToken: { platformId: ctx.platformId, linkToken } } });
  if (!link) throw linkNotFound();
  if (link.status === 'COMPLETED' && link.externalAccountId) return getExternalAccount(ctx, 'customers', link.externalAccountId);
  if (link.expiresAt <= ctx.clock.now()) throw new BadRequestError('LINK_TOKEN_EXPIRED', 'The link token expired; create a new one.', { expiresAt: link.expiresAt.toISOString() });
  const customer = await getActiveCustomer(ctx, link.customerId);
  const linked = await adapter.exchangePublicToken({ linkToken, publicToken: body.publicToken, ...(body.accountId ? { accountId: body.accountId } : {}) }).catch(providerError);
  const account = await createExternalAccount(ctx, 'customers', accountBody(customer, linked));
  const now = ctx.clock.now();
  const won = await tryTransition(ctx.db, ctx, bankLinkStatus, 'complete', link.id, { set: { externalAccountId: account.id, updatedAt: now } });
  if (won) return account;
  // A concurrent submission completed the link first: keep its account only.
  await deleteExternalAccount(ctx, 'customers', account.id);
  const winner = await ctx.db.bankLink.findFirstOrThrow({ where: { id: link.id } });
  return getExternalAccount(ctx, 'customers', winner.externalAccountId!);
}

/** The sandbox link page's check: a PENDING, unexpired link of any platform (the token is the proof). */
export async function pendingSandboxLink(deps: AppDeps, linkToken: string): Promise<BankLink | undefined> {
  const platformId = await platformOfLookup(deps.prisma, 'BANK_LINK_TOKEN', linkToken);
  const link = platformId ? await deps.prisma.bankLink.findUnique({ where: { platformId_linkToken: { platformId, linkToken } } }) : null;
  if (!link || link.provider !== 'sandbox' || link.status !== 'PENDING' || link.expiresAt <= deps.clock.now()) return undefined;
  return link;
}
