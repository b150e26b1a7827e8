import { createHash } from 'node:crypto';
import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { Prisma, type InternalAccount, type Stablecoin, type StablecoinOperation, type StablecoinProviderAccount } from '../../generated/prisma/client.js';
import type { IssuerBankAccount, IssuerOperationRequest, IssuerOperationResult } from '../../adapters/stablecoin-issuer/port.js';
import { currencyOf, isKnownCurrency } from '../../platform/currencies.js';
import { isUniqueViolation, type TenantTx } from '../../platform/db.js';
import { ConflictError, ValidationError } from '../../platform/errors.js';
import { decodeCursor, toPage, type Page } from '../../platform/http/pagination.js';
import { newId } from '../../platform/ids.js';
import { noteIdempotentResource } from '../../platform/idempotency.js';
import { getExternalAccount, type ExternalAccountRecord } from '../external-accounts/index.js';
import { assertAccountsCanMove, getInternalAccount, InsufficientFundsError } from '../ledger/index.js';
import { finishOperationMoney, holdOperationFunds } from './issuance.postings.js';
import { fiatAmountOf, operationEventFor, PAYOUT_TIMING, type OperationStatus } from './issuance.model.js';
import { insertOperation, moveOperation, operationNotFound } from './issuance.repo.js';
import type { CreateBurnBody, CreateMintBody, ListOperationsQuery } from './issuance.schemas.js';
import { assertUsable, getProviderAccount, issuerAccountOf, issuerFailure, issuerOf } from './provider-accounts.service.js';
import { getStablecoin } from './stablecoins.service.js';
import { platformOfLookup } from '../../platform/tenant-lookups.js';


/** What a mint or burn needs before the provider is asked: the token, its link, the fiat amount. */
interface Prepared {
  token: Stablecoin;
  link: StablecoinProviderAccount;
  fiatAmount: bigint;
}

/** Errors: 404 NOT_FOUND (token); 400 STABLECOIN_PROVIDER_ACCOUNT_INVALID|REVOKED, INVALID_INPUT (amount); 409 CONFLICT (not provisioned). */
async function prepare(ctx: Ctx, stablecoinId: string, amount: string): Promise<Prepared> {
  const token = await getStablecoin(ctx, stablecoinId);
  const link = await getProviderAccount(ctx, token.stablecoinProviderAccountId);
  assertUsable(link);
  if (token.issuanceStatus !== 'PROVISIONED') throw new ConflictError('CONFLICT', `The stablecoin's issuance status is ${token.issuanceStatus}; mints and burns need PROVISIONED.`, { issuanceStatus: token.issuanceStatus });
  const fiatAmount = fiatAmountOf(BigInt(amount), token.decimals, currencyOf(token.baseCurrency).decimals);
  if (fiatAmount === undefined || fiatAmount <= 0n) {
    throw new ValidationError([{ field: 'amount', message: `Must convert exactly to a whole ${token.baseCurrency} minor unit: a multiple of ${10n ** BigInt(token.decimals - currencyOf(token.baseCurrency).decimals)} for ${token.decimals} decimals.` }]);
  }
  return { token, link, fiatAmount };
}

/** An ACTIVE external account of the platform, as the provider needs it. Errors: 404 NOT_FOUND; 400 INVALID_INPUT. */
async function usableAccount(ctx: Ctx, id: string, field: string, check: (a: ExternalAccountRecord) => string | undefined): Promise<ExternalAccountRecord> {
  const a = await getExternalAccount(ctx, 'customers', id);
  const problem = a.status !== 'ACTIVE' ? `The external account is ${a.status}; it must be ACTIVE.` : check(a);
  if (problem) throw new ValidationError([{ field, message: problem }]);
  return a;
}

const bankOf = (a: ExternalAccountRecord): IssuerBankAccount => ({ externalAccountId: a.id, accountType: a.accountType, accountInfo: a.accountInfo });

/** The internal-account variants (REF "reserved", served here: 26c) need the token in Grid operations: its Grid `currency` exists only while ENABLED. Errors: 409 CONFLICT. */
function assertGridEnabled(token: Stablecoin): void {
  if (token.gridOperationsStatus !== 'ENABLED' || !token.currency) {
    throw new ConflictError('CONFLICT', `The stablecoin's Grid operations status is ${token.gridOperationsStatus}; internal-account mints and burns need ENABLED.`, { gridOperationsStatus: token.gridOperationsStatus });
  }
}

/**
 * An ACTIVE internal account of the platform in `currency` that covers `amount` now (checked again, under
 * lock, by the hold's journal). Errors: 404 NOT_FOUND; 400 INVALID_INPUT (currency, a token outside the
 * currency catalog), 400 INTERNAL_ACCOUNT_* (not ACTIVE, as every money path), 400 INSUFFICIENT_FUNDS.
 */
async function usableInternal(ctx: Ctx, id: string, field: string, currency: string, decimals: number, amount: bigint): Promise<InternalAccount> {
  if (!id.startsWith('InternalAccount:')) throw new ValidationError([{ field, message: 'Must be an InternalAccount id.' }]);
  const a = await getInternalAccount(ctx, id);
  if (!isKnownCurrency(currency) || currencyOf(currency).decimals !== decimals) {
    throw new ValidationError([{ field, message: `The token's currency ${currency} is not a currency this server's internal accounts can hold with ${decimals} decimals.` }]);
  }
  if (a.currency !== currency) throw new ValidationError([{ field, message: `Must be an internal account in ${currency}; this one is in ${a.currency}.` }]);
  await assertAccountsCanMove(ctx, [{ accountId: a.id, field }]);
  if (a.availableBalance < amount) throw new InsufficientFundsError(a.id);
  return a;
}

/**
 * The provider's idempotency key: the platform and the request's Idempotency-Key, so a retry after a
 * crash between the provider's answer and our commit reaches the same provider operation.
 */
function providerKeyOf(ctx: Ctx, fallback: string): string {
  const key = ctx.idempotency?.key;
  return key ? `sop_${createHash('sha256').update(`${ctx.platformId}\n${key}`).digest('hex').slice(0, 40)}` : fallback;
}

/**
 * POST /stablecoins/{id}/mints (REF createStablecoinMint): the provider is asked first; nothing is written
 * when it cannot answer (503) or refuses. Errors: 400 INVALID_INPUT, STABLECOIN_PROVIDER_ACCOUNT_INVALID|REVOKED;
 * 404 NOT_FOUND; 409 CONFLICT; 503 SERVICE_UNAVAILABLE.
 */
export async function createMint(ctx: Ctx, stablecoinId: string, body: CreateMintBody): Promise<StablecoinOperation> {
  const p = await prepare(ctx, stablecoinId, body.amount);
  const f = body.fundingSource;
  const toInternal = body.destination.accountId.startsWith('InternalAccount:');
  // Both internal sides need the token in Grid operations (26c); checked before any account is read.
  if (f.type === 'GRID_INTERNAL_ACCOUNT' || toInternal) assertGridEnabled(p.token);
  const wallet = toInternal
    ? undefined
    : await usableAccount(ctx, body.destination.accountId, 'destination.accountId', (a) => (a.accountType === 'SPARK_WALLET' ? undefined : 'Must be a SPARK_WALLET external account (the token lives on SPARK).'));
  if (toInternal) await usableInternal(ctx, body.destination.accountId, 'destination.accountId', p.token.currency!, p.token.decimals, 0n);
  const debited = f.type === 'ACH_DEBIT' || f.type === 'SAME_DAY_ACH_DEBIT'
    ? await usableAccount(ctx, f.externalAccountId, 'fundingSource.externalAccountId', (a) => (a.currency === p.token.baseCurrency && a.accountType === 'USD_ACCOUNT' ? undefined : `Must be a ${p.token.baseCurrency} bank account.`))
    : undefined;
  if (f.type === 'GRID_INTERNAL_ACCOUNT') await usableInternal(ctx, f.accountId, 'fundingSource.accountId', p.token.baseCurrency, currencyOf(p.token.baseCurrency).decimals, p.fiatAmount);
  const req = {
    operationType: 'MINT' as const,
    funding: {
      rail: f.type,
      ...(debited ? { fundedBy: bankOf(debited) } : {}),
      ...(f.type === 'PROVIDER_INTERNAL_BALANCE' ? { providerBalance: { sourceTokenIdentifier: f.sourceTokenIdentifier, cryptoNetwork: f.cryptoNetwork } } : {}),
    },
    mintTo: wallet ? { address: String(wallet.accountInfo.address) } : ({ gridCustody: true } as const),
  };
  const { type, ...fields } = f;
  const source = { type, ...fields };
  return submit(ctx, p, body.amount, req, { source, destination: { accountId: wallet?.id ?? body.destination.accountId }, description: body.description });
}

/**
 * POST /stablecoins/{id}/burns (REF createStablecoinBurn): as createMint; the fiat goes to a bank account of
 * the token's base currency. Errors: as createMint.
 */
export async function createBurn(ctx: Ctx, stablecoinId: string, body: CreateBurnBody): Promise<StablecoinOperation> {
  const p = await prepare(ctx, stablecoinId, body.amount);
  const fromInternal = body.source.type === 'GRID_INTERNAL_ACCOUNT' ? body.source.accountId : undefined;
  if (fromInternal) {
    assertGridEnabled(p.token);
    await usableInternal(ctx, fromInternal, 'source.accountId', p.token.currency!, p.token.decimals, BigInt(body.amount));
  }
  const bank = await usableAccount(ctx, body.destination.externalAccountId, 'destination.externalAccountId', (a) => (a.currency === p.token.baseCurrency && a.accountType === 'USD_ACCOUNT' ? undefined : `Must be a ${p.token.baseCurrency} bank account.`));
  const req = { operationType: 'BURN' as const, burnSource: body.source.type, payout: { rail: body.destination.rail, to: bankOf(bank) } };
  const extra = {
    source: { type: body.source.type, ...(fromInternal ? { accountId: fromInternal } : {}) },
    destination: { accountId: bank.id, rail: body.destination.rail },
    estimatedDelivery: { rail: body.destination.rail, amount: p.fiatAmount.toString(), currency: p.token.baseCurrency, timing: PAYOUT_TIMING[body.destination.rail]! },
    description: body.description,
  };
  return submit(ctx, p, body.amount, req, extra);
}

type OperationShape = Pick<IssuerOperationRequest, 'operationType' | 'funding' | 'mintTo' | 'burnSource' | 'payout'>;
interface Stored {
  source: Record<string, unknown>;
  destination: Record<string, unknown>;
  estimatedDelivery?: Record<string, unknown>;
  description: string | undefined;
}

/** Asks the provider (outside any transaction), then writes the operation CREATED and moves it to what the provider said, in one transaction. */
async function submit(ctx: Ctx, p: Prepared, amount: string, shape: OperationShape, stored: Stored): Promise<StablecoinOperation> {
  const issuer = issuerOf(ctx);
  const id = newId('StablecoinOperation');
  const req: IssuerOperationRequest = {
    ...shape, idempotencyKey: providerKeyOf(ctx, id), providerTokenIdentifier: p.token.providerTokenIdentifier, networkTokenIdentifier: p.token.networkTokenIdentifier,
    amount: BigInt(amount), fiatAmount: p.fiatAmount, baseCurrency: p.token.baseCurrency,
  };
  const result = await issuer.createOperation(issuerAccountOf(ctx, p.link), req).catch(async (err: unknown) => {
    throw await issuerFailure(ctx, p.link, err);
  });
  noteIdempotentResource(ctx, id);
  const now = ctx.clock.now();
  const row = {
    id, stablecoinId: p.token.id, operationType: shape.operationType, status: 'CREATED', amount: BigInt(amount), fiatAmount: p.fiatAmount, provider: p.token.provider,
    providerEnvironment: p.link.providerEnvironment, stablecoinProviderAccountId: p.link.id, source: stored.source, destination: stored.destination,
    estimatedDelivery: stored.estimatedDelivery ?? null, description: stored.description ?? null, providerOperationId: result.reference,
    fundingInstructions: result.fundingInstructions ?? null,
    expiresAt: result.status === 'AWAITING_FUNDS' ? new Date(now.getTime() + ctx.config.STABLECOIN_FUNDING_EXPIRY_MS) : null,
    createdAt: now, updatedAt: now,
  };
  try {
    return await ctx.db.$transaction(async (tx) => {
      const created = await insertOperation(tx, row);
      await holdOperationFunds(ctx, tx, created);
      return (await applyResult(ctx, tx, created, result)) ?? created;
    });
  } catch (err) {
    if (isUniqueViolation(err, 'stablecoin_operations_provider_ref_key')) throw new ConflictError('CONFLICT', 'A request with this Idempotency-Key already created this operation; retry to get it.');
    throw err;
  }
}

/**
 * THE way an operation follows its provider: maps the issuer's answer onto the lifecycle and moves the
 * row through transition() (compare-and-set, history), recording providerStatus, failureReason and when to
 * ask again. Returns the moved row, or null when the answer is no move (same, older, unknown).
 */
export async function applyResult(ctx: Ctx, tx: TenantTx, op: StablecoinOperation, result: IssuerOperationResult): Promise<StablecoinOperation | null> {
  const event = operationEventFor(op.status as OperationStatus, result.status, result.notFound);
  const nextCheckAt = (final: boolean) => (final ? null : new Date(ctx.clock.now().getTime() + ctx.config.STABLECOIN_RECONCILE_INTERVAL_MS));
  if (!event) {
    await tx.stablecoinOperation.updateMany({ where: { id: op.id, status: op.status }, data: { nextCheckAt: nextCheckAt(false), checkAttempts: { increment: 1 }, ...(result.providerStatus ? { providerStatus: result.providerStatus } : {}) } });
    return null;
  }
  const final = event === 'complete' || event === 'fail';
  const moved = await moveOperation(ctx, tx, op, event, {
    providerStatus: result.providerStatus ?? op.providerStatus,
    nextCheckAt: nextCheckAt(final),
    ...(event === 'fail' ? { failureReason: result.failureReason ?? 'PROVIDER_OPERATION_FAILED' } : {}),
    ...(event === 'awaitFunding' && !op.expiresAt ? { expiresAt: new Date(ctx.clock.now().getTime() + ctx.config.STABLECOIN_FUNDING_EXPIRY_MS) } : {}),
    ...(result.fundingInstructions && !op.fundingInstructions ? { fundingInstructions: Prisma.sql`${JSON.stringify(result.fundingInstructions)}::jsonb` } : {}),
  });
  if (moved && final) await finishOperationMoney(ctx, tx, moved);
  return moved;
}

/** Errors: 404 NOT_FOUND (also another platform's). */
export async function getOperation(ctx: Ctx, id: string): Promise<StablecoinOperation> {
  const op = await ctx.db.stablecoinOperation.findFirst({ where: { id } });
  if (!op) throw operationNotFound();
  return op;
}

/** GET /stablecoins/{id}/operations: newest first. Errors: 404 NOT_FOUND (token). */
export async function listOperations(ctx: Ctx, stablecoinId: string, q: ListOperationsQuery): Promise<Page<StablecoinOperation> & { totalCount: number }> {
  await getStablecoin(ctx, stablecoinId);
  const before = decodeCursor(q.cursor);
  const where: Prisma.StablecoinOperationWhereInput = { stablecoinId, ...(q.operationType ? { operationType: q.operationType } : {}) };
  const [rows, totalCount] = await Promise.all([
    ctx.db.stablecoinOperation.findMany({ where: { ...where, ...(before ? { id: { lt: before } } : {}) }, orderBy: { id: 'desc' }, take: q.limit + 1 }),
    ctx.db.stablecoinOperation.count({ where }),
  ]);
  return { ...toPage(rows, q.limit, (r) => r), totalCount };
}

/**
 * Reads one operation again from the provider and applies the answer (the reconciliation job, a verified
 * webhook, the sandbox fund call). An operation past its expiresAt while still waiting for funds expires
 * instead: the service owns expiry. Returns whether it moved.
 */
export async function refreshOperation(deps: AppDeps, platformId: string, opId: string): Promise<boolean> {
  const ctx = ctxFor(deps, platformId);
  const op = await ctx.db.stablecoinOperation.findFirst({ where: { id: opId } });
  if (!op || !op.providerOperationId || ['COMPLETED', 'FAILED', 'EXPIRED'].includes(op.status)) return false;
  if (op.status === 'PENDING_FUNDING' && op.expiresAt && op.expiresAt <= deps.clock.now()) {
    return ctx.db.$transaction(async (tx) => {
      const expired = await moveOperation(ctx, tx, op, 'expire', { nextCheckAt: null }, true);
      if (expired) await finishOperationMoney(ctx, tx, expired);
      return expired !== null;
    });
  }
  const link = await ctx.db.stablecoinProviderAccount.findFirst({ where: { id: op.stablecoinProviderAccountId } });
  if (!link || !deps.adapters.stablecoinIssuer) return false;
  let result: IssuerOperationResult;
  try {
    result = await deps.adapters.stablecoinIssuer.getOperation(issuerAccountOf(deps, link), op.providerOperationId);
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message, stablecoinOperationId: op.id }, 'stablecoin operation status unknown; asked again later');
    await ctx.db.stablecoinOperation.updateMany({ where: { id: op.id, status: op.status }, data: { nextCheckAt: new Date(deps.clock.now().getTime() + deps.config.STABLECOIN_RECONCILE_INTERVAL_MS), checkAttempts: { increment: 1 } } });
    return false;
  }
  return (await ctx.db.$transaction((tx) => applyResult(ctx, tx, op, result))) !== null;
}

/**
 * A provider's push (a verified webhook through the adapter's context): finds the operation by the
 * provider's id, whichever platform it belongs to, and reads it again like the reconciliation job does.
 */
export async function receiveIssuerReport(deps: AppDeps, provider: string, reference: string): Promise<'ACCEPTED' | 'UNKNOWN_OPERATION'> {
  const platformId = await platformOfLookup(deps.prisma, 'STABLECOIN_PROVIDER_OPERATION', provider, reference);
  const op = platformId ? await deps.prisma.stablecoinOperation.findUnique({ where: { platformId_provider_providerOperationId: { platformId, provider, providerOperationId: reference } }, select: { id: true, platformId: true } }) : null;
  if (!op) return 'UNKNOWN_OPERATION';
  await refreshOperation(deps, op.platformId, op.id);
  return 'ACCEPTED';
}
