import type { Ctx } from '../../deps.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { hashSecret, randomToken } from '../../platform/secrets.js';
import { decodeCursor, toPage, type Page } from '../../platform/http/pagination.js';
import { forgetCredential } from '../../platform/http/auth.js';
import { normalisePermissions, type ApiToken, type Permission } from './tokens.model.js';
import type { ListTokensQuery } from './tokens.schemas.js';
import { syncLookups } from '../../platform/tenant-lookups.js';

const SELECT = { id: true, name: true, clientId: true, permissions: true, createdAt: true, updatedAt: true } as const;
type Row = { id: string; name: string; clientId: string; permissions: string[]; createdAt: Date; updatedAt: Date };
const toToken = (r: Row): ApiToken => ({ ...r, permissions: normalisePermissions(r.permissions as Permission[]) });

const notFound = () => new NotFoundError('TOKEN_NOT_FOUND', 'No API token with this id.');

/**
 * Creates a token. The secret is returned once and stored only as its scrypt hash (the same scheme
 * as the platform's first credential), so it authenticates on every process at once.
 */
export async function createToken(ctx: Ctx, input: { name: string; permissions: Permission[] }): Promise<{ token: ApiToken; clientSecret: string }> {
  const clientSecret = `sec_${randomToken(32)}`;
  const secretHash = await hashSecret(clientSecret);
  const now = ctx.clock.now();
  const row = await ctx.db.$transaction(async (tx) => {
    const created = await tx.platformCredential.create({
      data: {
        id: newId('Token'),
        platformId: ctx.platformId,
        clientId: `cli_${randomToken(12)}`,
        name: input.name,
        secretHash,
        permissions: normalisePermissions(input.permissions),
        createdAt: now,
        updatedAt: now,
      },
      select: SELECT,
    });
    await syncLookups(tx, 'platform_credentials', null, { ...created, platformId: ctx.platformId });
    return created;
  });
  return { token: toToken(row), clientSecret };
}

export async function listTokens(ctx: Ctx, q: ListTokensQuery): Promise<Page<ApiToken>> {
  const after = decodeCursor(q.cursor);
  const rows = await ctx.db.platformCredential.findMany({
    where: {
      revokedAt: null,
      ...(q.name !== undefined ? { name: q.name } : {}),
      ...(q.createdAfter || q.createdBefore ? { createdAt: { ...(q.createdAfter ? { gte: q.createdAfter } : {}), ...(q.createdBefore ? { lte: q.createdBefore } : {}) } } : {}),
      ...(q.updatedAfter || q.updatedBefore ? { updatedAt: { ...(q.updatedAfter ? { gte: q.updatedAfter } : {}), ...(q.updatedBefore ? { lte: q.updatedBefore } : {}) } } : {}),
      ...(after ? { id: { lt: after } } : {}),
    },
    orderBy: { id: 'desc' },
    take: q.limit + 1,
    select: SELECT,
  });
  return toPage(rows, q.limit, toToken);
}

export async function getToken(ctx: Ctx, tokenId: string): Promise<ApiToken> {
  const row = await ctx.db.platformCredential.findFirst({ where: { id: tokenId, revokedAt: null }, select: SELECT });
  if (!row) throw notFound();
  return toToken(row);
}

/**
 * Revokes a token: refused from then on by every process. The row is kept (revoked) for audit; the
 * token is then "not found". The platform row is locked so two concurrent deletes cannot both pass
 * the last-MANAGE check. After the commit the Redis auth cache of the client id is dropped; a
 * verification racing with the delete re-reads the row after caching (auth.ts), so no process keeps
 * accepting the secret.
 */
export async function deleteToken(ctx: Ctx, tokenId: string): Promise<void> {
  const clientId = await ctx.prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM platforms WHERE id = ${ctx.platformId} FOR UPDATE`;
    const row = await tx.platformCredential.findFirst({ where: { id: tokenId, platformId: ctx.platformId, revokedAt: null } });
    if (!row) throw notFound();
    if (row.permissions.includes('MANAGE')) {
      const otherManagers = await tx.platformCredential.count({
        where: { platformId: ctx.platformId, revokedAt: null, id: { not: tokenId }, permissions: { has: 'MANAGE' } },
      });
      if (otherManagers === 0) {
        throw new ConflictError('CONFLICT', 'This is the platform\'s last token with the MANAGE permission; create another MANAGE token before deleting it.', { tokenId });
      }
    }
    const now = ctx.clock.now();
    await tx.platformCredential.update({ where: { platformId_id: { platformId: ctx.platformId, id: tokenId } }, data: { revokedAt: now, updatedAt: now } });
    return row.clientId;
  });
  await forgetCredential({ redis: ctx.redis, redisPrefix: ctx.config.REDIS_PREFIX, bus: ctx.bus }, clientId);
}
