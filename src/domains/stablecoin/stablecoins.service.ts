import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import type { Prisma, Stablecoin } from '../../generated/prisma/client.js';
import { isUniqueViolation } from '../../platform/db.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { decodeCursor, toPage, type Page } from '../../platform/http/pagination.js';
import { newId } from '../../platform/ids.js';
import { noteIdempotentResource } from '../../platform/idempotency.js';
import { statusColumn, transition } from '../../platform/state-machine.js';
import { GRID_OPERATIONS_EVENT_FOR, gridOperationsLifecycle, type GridOperationsTarget } from './issuance.model.js';
import type { ListStablecoinsQuery, RegisterStablecoinBody } from './issuance.schemas.js';
import { issuerAccountOf, issuerFailure, issuerOf, selectProviderAccount } from './provider-accounts.service.js';

export const stablecoinNotFound = () => new NotFoundError('NOT_FOUND', 'Stablecoin not found.');
const gridStatus = statusColumn(gridOperationsLifecycle, 'stablecoins', 'grid_operations_status', { notFound: stablecoinNotFound });

/**
 * POST /stablecoins: registers a token the provider already created (REF: it does not create it). The
 * provider is asked first (nothing is written if it does not know the token); the token starts
 * NOT_ENABLED for Grid operations. Errors: 400 INVALID_INPUT (unknown token, or its network identifier
 * differs from the provider's), STABLECOIN_PROVIDER_ACCOUNT_INVALID|REVOKED|SELECTION_REQUIRED;
 * 404 STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND; 409 CONFLICT (already registered); 503 SERVICE_UNAVAILABLE.
 */
export async function registerStablecoin(ctx: Ctx, body: RegisterStablecoinBody): Promise<Stablecoin> {
  const issuer = issuerOf(ctx);
  const link = await selectProviderAccount(ctx, body.stablecoinProviderAccountId);
  const query = { providerTokenIdentifier: body.providerTokenIdentifier, network: body.network, networkTokenIdentifier: body.networkTokenIdentifier };
  const token = await issuer.resolveToken(issuerAccountOf(ctx, link), query).catch(async (err: unknown) => {
    throw await issuerFailure(ctx, link, err);
  });
  if (!token) throw new ValidationError([{ field: 'providerTokenIdentifier', message: 'The provider account has no such token.' }]);
  if (token.networkTokenIdentifier !== body.networkTokenIdentifier) {
    throw new ValidationError([{ field: 'networkTokenIdentifier', message: `The provider knows this token on ${body.network} as ${token.networkTokenIdentifier}.` }]);
  }
  const id = newId('Stablecoin');
  noteIdempotentResource(ctx, id);
  const now = ctx.clock.now();
  try {
    return await ctx.db.$transaction((tx) =>
      tx.stablecoin.create({
        data: {
          id, name: token.name, symbol: token.symbol, baseCurrency: token.baseCurrency, network: body.network, decimals: token.decimals,
          issuanceStatus: token.issuanceStatus, gridOperationsStatus: 'NOT_ENABLED', networkTokenIdentifier: body.networkTokenIdentifier,
          provider: link.provider, stablecoinProviderAccountId: link.id, providerEnvironment: link.providerEnvironment,
          providerTokenIdentifier: body.providerTokenIdentifier, createdAt: now, updatedAt: now,
        } as never,
      }),
    );
  } catch (err) {
    if (isUniqueViolation(err, 'stablecoins_')) throw new ConflictError('CONFLICT', 'This stablecoin is already registered.', { networkTokenIdentifier: body.networkTokenIdentifier });
    throw err;
  }
}

/** Errors: 404 NOT_FOUND (also another platform's). */
export async function getStablecoin(ctx: Ctx, id: string): Promise<Stablecoin> {
  const s = await ctx.db.stablecoin.findFirst({ where: { id } });
  if (!s) throw stablecoinNotFound();
  return s;
}

export async function listStablecoins(ctx: Ctx, q: ListStablecoinsQuery): Promise<Page<Stablecoin> & { totalCount: number }> {
  const before = decodeCursor(q.cursor);
  const where: Prisma.StablecoinWhereInput = {
    ...(q.issuanceStatus ? { issuanceStatus: q.issuanceStatus } : {}),
    ...(q.gridOperationsStatus ? { gridOperationsStatus: q.gridOperationsStatus } : {}),
    ...(q.provider ? { provider: q.provider } : {}),
  };
  const [rows, totalCount] = await Promise.all([
    ctx.db.stablecoin.findMany({ where: { ...where, ...(before ? { id: { lt: before } } : {}) }, orderBy: { id: 'desc' }, take: q.limit + 1 }),
    ctx.db.stablecoin.count({ where }),
  ]);
  return { ...toPage(rows, q.limit, (r) => r), totalCount };
}

/**
 * The operator's move of one token's operations status (`npm run stablecoin:token-status`), through
 * transition(). ENABLED gives the token its Grid `currency` (its symbol); leaving ENABLED takes it away.
 * Errors: 404 NOT_FOUND; 409 INVALID_STATE_TRANSITION.
 */
export async function operatorSetTokenStatus(deps: AppDeps, platformId: string, stablecoinId: string, target: GridOperationsTarget): Promise<Stablecoin> {
  const ctx = ctxFor(deps, platformId);
  const token = await getStablecoin(ctx, stablecoinId);
  return transition(ctx.db, ctx, gridStatus, GRID_OPERATIONS_EVENT_FOR[target], token.id, {
    from: token.gridOperationsStatus,
    set: { currency: target === 'ENABLED' ? token.symbol : null },
    reason: 'operator',
  });
}
