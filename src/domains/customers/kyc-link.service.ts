import { createHash } from 'node:crypto';
import type { Ctx } from '../../deps.js';
import { ConflictError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { randomToken } from '../../platform/secrets.js';
import { unverifiedChannels } from './contact.service.js';
import { getActiveCustomer } from './customers.service.js';
import { syncLookups } from '../../platform/tenant-lookups.js';

export interface KycLinkResult {
  kycUrl: string;
  expiresAt: Date;
  provider: string;
  token?: string;
}

export const hashLinkToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Statuses from which a hosted flow can start (customer machine's `submit`). */
const LINKABLE = new Set(['UNVERIFIED', 'HOLD']);

/**
 * POST /customers/{id}/kyc-link: a fresh single-use link on every call (earlier ones stay valid
 * until used or expired; spec). Does not change the customer's status. Errors: 404, 410, 409
 * CONFLICT while a present contact channel is PENDING, or when the customer has nothing to verify
 * (already PENDING, APPROVED or REJECTED).
 */
export async function createKycLink(ctx: Ctx, customerId: string, redirectUri: string | undefined): Promise<KycLinkResult> {
  const c = await getActiveCustomer(ctx, customerId);
  const pending = unverifiedChannels(c);
  if (pending.length) {
    throw new ConflictError('CONFLICT', `Verify the customer's ${pending.join(' and ')} first (POST /customers/{id}/verify-${pending[0]}).`, { unverifiedChannels: pending });
  }
  if (!LINKABLE.has(c.status)) {
    throw new ConflictError('CONFLICT', `The customer's verification status is ${c.status}; a hosted flow starts only from UNVERIFIED or HOLD.`);
  }
  const provider = ctx.adapters.kyc;
  const token = randomToken(32);
  const id = newId('KycLink');
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + ctx.config.KYC_LINK_TTL_SECONDS * 1000);
  await ctx.db.$transaction(async (tx) => {
    const row = await tx.kycLink.create({
      data: { id, customerId, tokenHash: hashLinkToken(token), redirectUri: redirectUri ?? null, expiresAt, createdAt: now } as any,
    });
    await syncLookups(tx, 'kyc_links', null, row);
  });
  const link = await provider.createHostedLink({ linkId: id, customerId, token, expiresAt, redirectUri });
  return { kycUrl: link.kycUrl, expiresAt, provider: provider.provider, ...(link.token ? { token: link.token } : {}) };
}
