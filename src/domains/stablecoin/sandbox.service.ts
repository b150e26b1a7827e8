import type { Ctx } from '../../deps.js';
import type { StablecoinOperation, StablecoinProviderAccount } from '../../generated/prisma/client.js';
import { ConflictError, DomainError } from '../../platform/errors.js';
import { getOperation, refreshOperation } from './operations.service.js';
import { getProviderAccount, issuerOf } from './provider-accounts.service.js';

const notSimulated = () => new DomainError(501, 'NOT_IMPLEMENTED', 'The configured stablecoin issuer has no sandbox simulation.');

/**
 * POST /sandbox/stablecoin-operations/{id}/fund: the issuer's wire (mint) or token transfer (burn) reaches
 * the provider, which then reports it as a real provider would; the operation is read again at once.
 * Errors: 404 NOT_FOUND; 409 INVALID_STATE_TRANSITION (not PENDING_FUNDING); 501 (no sandbox issuer).
 */
export async function simulateFunding(ctx: Ctx, id: string): Promise<StablecoinOperation> {
  const op = await getOperation(ctx, id);
  const issuer = issuerOf(ctx);
  if (!issuer.simulateFunding) throw notSimulated();
  if (op.status !== 'PENDING_FUNDING' || !op.providerOperationId) {
    throw new ConflictError('INVALID_STATE_TRANSITION', `The stablecoin operation cannot be funded from ${op.status}.`, { status: op.status });
  }
  await issuer.simulateFunding(op.providerOperationId);
  await refreshOperation(ctx, ctx.platformId, op.id);
  return getOperation(ctx, id);
}

/**
 * POST /sandbox/stablecoin-provider-accounts/{id}/credentials: the provider stops honouring the link's API
 * client (rotated secret: INVALID; access revoked: REVOKED). The link changes when the service next
 * verifies it (the re-verification job) or uses it. Errors: 404 STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND; 501.
 */
export async function simulateCredentialStatus(ctx: Ctx, id: string, status: 'INVALID' | 'REVOKED'): Promise<StablecoinProviderAccount> {
  const link = await getProviderAccount(ctx, id);
  const issuer = issuerOf(ctx);
  if (!issuer.simulateCredentialStatus) throw notSimulated();
  await issuer.simulateCredentialStatus(link.apiClientId, status);
  return link;
}
