import type { AppDeps, Ctx } from '../../deps.js';
import type { Prisma, StablecoinProviderAccount } from '../../generated/prisma/client.js';
import { IssuerError, type IssuerAccount, type StablecoinIssuer } from '../../adapters/stablecoin-issuer/port.js';
import { isUniqueViolation } from '../../platform/db.js';
import { BadRequestError, ConflictError, DomainError, NotFoundError } from '../../platform/errors.js';
import { decodeCursor, toPage, type Page } from '../../platform/http/pagination.js';
import { newId } from '../../platform/ids.js';
import { noteIdempotentResource } from '../../platform/idempotency.js';
import { statusColumn, tryTransition } from '../../platform/state-machine.js';
import { openSecret, sealSecret } from './credentials.sealing.js';
import { providerAccountLifecycle, type ProviderAccountEvent } from './issuance.model.js';
import type { LinkProviderAccountBody, ListProviderAccountsQuery } from './issuance.schemas.js';

export const providerAccountNotFound = () => new NotFoundError('STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND', 'Stablecoin provider account link not found.');
export const providerAccountInvalid = (details?: Record<string, unknown>) =>
  new BadRequestError('STABLECOIN_PROVIDER_ACCOUNT_INVALID', 'The stablecoin provider account link is not usable: the provider refuses its credentials.', details);
export const providerAccountRevoked = (details?: Record<string, unknown>) =>
  new BadRequestError('STABLECOIN_PROVIDER_ACCOUNT_REVOKED', 'The stablecoin provider account link has been revoked; link the account again.', details);
export const providerUnavailable = () => new DomainError(503, 'SERVICE_UNAVAILABLE', 'The stablecoin provider is temporarily unavailable; retry with the same Idempotency-Key.');

const linkStatus = statusColumn(providerAccountLifecycle, 'stablecoin_provider_accounts', 'status', { notFound: providerAccountNotFound });

/** The configured issuer. Errors: 503 SERVICE_UNAVAILABLE when none is configured (STABLECOIN_ISSUER_PROVIDER=none). */
export function issuerOf(deps: AppDeps): StablecoinIssuer {
  const issuer = deps.adapters.stablecoinIssuer;
  if (!issuer) throw new DomainError(503, 'SERVICE_UNAVAILABLE', 'No stablecoin issuer is configured on this server (STABLECOIN_ISSUER_PROVIDER).');
  return issuer;
}

/** REF: "the provider environment is derived from the authenticated Grid platform mode". */
export const providerEnvironmentOf = (deps: AppDeps): 'SANDBOX' | 'PRODUCTION' => (deps.config.SVC_ENV === 'production' ? 'PRODUCTION' : 'SANDBOX');

/** The link's credentials, opened for one provider call (never logged, never returned). */
export function issuerAccountOf(deps: AppDeps, link: StablecoinProviderAccount): IssuerAccount {
  return {
    apiClientId: link.apiClientId,
    apiClientSecret: openSecret(deps.config, link.platformId, link.sealedSecret),
    environment: link.providerEnvironment as IssuerAccount['environment'],
    providerAccountId: link.providerAccountId,
  };
}

/** The REF error of a link that is not ACTIVE. */
export function assertUsable(link: StablecoinProviderAccount): void {
  if (link.status === 'INVALID') throw providerAccountInvalid({ stablecoinProviderAccountId: link.id });
  if (link.status === 'REVOKED') throw providerAccountRevoked({ stablecoinProviderAccountId: link.id });
}

/**
 * A provider call's failure as the platform sees it: refused credentials move the link (INVALID or
 * REVOKED, through transition()) and answer 400 with REF's code; an unknown outcome is 503.
 */
export async function issuerFailure(ctx: Ctx, link: StablecoinProviderAccount | undefined, err: unknown): Promise<Error> {
  if (!(err instanceof IssuerError)) return err as Error;
  if (err.code === 'CREDENTIALS_INVALID' || err.code === 'CREDENTIALS_REVOKED') {
    const revoked = err.code === 'CREDENTIALS_REVOKED';
    if (link) await moveLink(ctx, link.id, revoked ? 'revoke' : 'invalidate');
    return revoked ? providerAccountRevoked(link ? { stablecoinProviderAccountId: link.id } : undefined) : providerAccountInvalid(link ? { stablecoinProviderAccountId: link.id } : undefined);
  }
  if (err.retryable) return providerUnavailable();
  return new ConflictError('CONFLICT', `The stablecoin provider refused the request: ${err.message}`);
}

async function moveLink(ctx: Ctx, id: string, event: ProviderAccountEvent, set: Prisma.StablecoinProviderAccountUpdateInput = {}): Promise<StablecoinProviderAccount | null> {
  return tryTransition(ctx.baseDb ?? ctx.db, ctx, linkStatus, event, id, { set: set as never });
}

/**
 * Which of the credentials' accounts to link. Errors: 400 STABLECOIN_PROVIDER_ACCOUNT_INVALID (not reached
 * by these credentials, or none), STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED (several, none named).
 */
function chooseAccount(accounts: string[], named: string | undefined): string {
  if (named !== undefined) {
    if (!accounts.includes(named)) throw providerAccountInvalid({ errors: [{ field: 'providerAccountId', message: 'These credentials do not reach this provider account.' }] });
    return named;
  }
  if (accounts.length === 0) throw providerAccountInvalid({ errors: [{ field: 'apiClientId', message: 'These credentials reach no provider account.' }] });
  if (accounts.length > 1) {
    throw new BadRequestError('STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED', 'These credentials reach several provider accounts; pass providerAccountId to select one.', { errors: [{ field: 'providerAccountId', message: 'Required: the credentials reach several accounts.' }] });
  }
  return accounts[0]!;
}

/**
 * POST /stablecoin-provider-accounts: verifies the credentials with the provider first (nothing is
 * written when they fail), then stores the link ACTIVE with the secret sealed.
 * Errors: 400 INVALID_INPUT, STABLECOIN_PROVIDER_ACCOUNT_INVALID|REVOKED|SELECTION_REQUIRED;
 * 409 CONFLICT (the account is already linked); 503 SERVICE_UNAVAILABLE.
 */
export async function linkProviderAccount(ctx: Ctx, body: LinkProviderAccountBody): Promise<StablecoinProviderAccount> {
  const issuer = issuerOf(ctx);
  const environment = providerEnvironmentOf(ctx);
  const check = await issuer.verifyCredentials({ apiClientId: body.apiClientId, apiClientSecret: body.apiClientSecret, environment }).catch(async (err: unknown) => {
    throw await issuerFailure(ctx, undefined, err);
  });
  if (check.status === 'INVALID') throw providerAccountInvalid();
  if (check.status === 'REVOKED') throw providerAccountRevoked();
  const providerAccountId = chooseAccount(check.status === 'VALID' ? check.accounts : [], body.providerAccountId);
  const id = newId('StablecoinProviderAccount');
  noteIdempotentResource(ctx, id);
  const now = ctx.clock.now();
  try {
    return await ctx.db.$transaction((tx) =>
      tx.stablecoinProviderAccount.create({
        data: {
          id, provider: body.provider, providerAccountId, providerEnvironment: environment, status: 'ACTIVE', apiClientId: body.apiClientId,
          sealedSecret: sealSecret(ctx.config, ctx.platformId, body.apiClientSecret), lastVerifiedAt: now,
          nextVerifyAt: new Date(now.getTime() + ctx.config.STABLECOIN_CREDENTIAL_CHECK_INTERVAL_MS), createdAt: now, updatedAt: now,
        } as never,
      }),
    );
  } catch (err) {
    if (isUniqueViolation(err, 'stablecoin_provider_accounts_link_key')) throw new ConflictError('CONFLICT', 'This provider account is already linked.', { providerAccountId });
    throw err;
  }
}

/** Errors: 404 STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND (also another platform's). */
export async function getProviderAccount(ctx: Ctx, id: string): Promise<StablecoinProviderAccount> {
  const link = await ctx.db.stablecoinProviderAccount.findFirst({ where: { id } });
  if (!link) throw providerAccountNotFound();
  return link;
}

export async function listProviderAccounts(ctx: Ctx, q: ListProviderAccountsQuery): Promise<Page<StablecoinProviderAccount> & { totalCount: number }> {
  const before = decodeCursor(q.cursor);
  const where: Prisma.StablecoinProviderAccountWhereInput = { ...(q.provider ? { provider: q.provider } : {}), ...(q.status ? { status: q.status } : {}) };
  const [rows, totalCount] = await Promise.all([
    ctx.db.stablecoinProviderAccount.findMany({ where: { ...where, ...(before ? { id: { lt: before } } : {}) }, orderBy: { id: 'desc' }, take: q.limit + 1 }),
    ctx.db.stablecoinProviderAccount.count({ where }),
  ]);
  return { ...toPage(rows, q.limit, (r) => r), totalCount };
}

/**
 * The link a registration uses (REF): the named one, else the platform's only ACTIVE link for the provider
 * in this environment. Errors: 404 STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND; 400 …_INVALID, …_REVOKED,
 * …_SELECTION_REQUIRED (several ACTIVE links, none named).
 */
export async function selectProviderAccount(ctx: Ctx, named: string | undefined): Promise<StablecoinProviderAccount> {
  if (named !== undefined) {
    const link = await getProviderAccount(ctx, named);
    assertUsable(link);
    return link;
  }
  const links = await ctx.db.stablecoinProviderAccount.findMany({ where: { providerEnvironment: providerEnvironmentOf(ctx) }, orderBy: { id: 'asc' }, take: 50 });
  const active = links.filter((l) => l.status === 'ACTIVE');
  if (active.length === 1) return active[0]!;
  if (active.length > 1) {
    throw new BadRequestError('STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED', 'Several active provider account links exist; pass stablecoinProviderAccountId to select one.', { errors: [{ field: 'stablecoinProviderAccountId', message: 'Required: several active links exist.' }] });
  }
  if (links.length > 0) assertUsable(links[links.length - 1]!);
  throw providerAccountNotFound();
}

/**
 * The re-verification job, one link: asks the provider about the stored credentials. A refusal moves the
 * link to INVALID or REVOKED; a success stamps lastVerifiedAt (and brings an INVALID link back); an
 * unknown outcome only reschedules. Returns whether the link was checked.
 */
export async function reverifyProviderAccount(deps: AppDeps, ctx: Ctx, link: StablecoinProviderAccount): Promise<boolean> {
  const now = deps.clock.now();
  const next = new Date(now.getTime() + deps.config.STABLECOIN_CREDENTIAL_CHECK_INTERVAL_MS);
  const issuer = deps.adapters.stablecoinIssuer;
  if (!issuer) return false;
  const account = issuerAccountOf(deps, link);
  let verdict: 'VALID' | 'INVALID' | 'REVOKED';
  try {
    const check = await issuer.verifyCredentials(account);
    verdict = check.status === 'VALID' && !check.accounts.includes(link.providerAccountId) ? 'INVALID' : check.status;
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message, stablecoinProviderAccountId: link.id }, 'stablecoin credential check had no answer; retried later');
    await ctx.db.stablecoinProviderAccount.updateMany({ where: { id: link.id }, data: { nextVerifyAt: new Date(now.getTime() + Math.min(60_000, deps.config.STABLECOIN_CREDENTIAL_CHECK_INTERVAL_MS)) } });
    return false;
  }
  if (verdict === 'VALID') {
    if (link.status === 'INVALID') await moveLink(ctx, link.id, 'reactivate', { lastVerifiedAt: now, nextVerifyAt: next });
    else await ctx.db.stablecoinProviderAccount.updateMany({ where: { id: link.id, status: 'ACTIVE' }, data: { lastVerifiedAt: now, nextVerifyAt: next, updatedAt: now } });
    return true;
  }
  await moveLink(ctx, link.id, verdict === 'REVOKED' ? 'revoke' : 'invalidate', { nextVerifyAt: verdict === 'REVOKED' ? null : next });
  if (verdict === 'INVALID' && link.status === 'INVALID') await ctx.db.stablecoinProviderAccount.updateMany({ where: { id: link.id }, data: { nextVerifyAt: next } });
  return true;
}
