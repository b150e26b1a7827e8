import type { Ctx } from '../../deps.js';
import type { TenantDb, TenantTx } from '../../platform/db.js';
import { NotFoundError } from '../../platform/errors.js';
import { visibleToCaller } from '../../platform/agent-scope.js';
import type { AuthCredential, AuthSession, EmbeddedWallet, InternalAccount } from '../../generated/prisma/client.js';
import { credentialSetHash, EMBEDDED_WALLET, type EmbeddedWalletConfig } from './wallet.model.js';

/** The embedded wallet's tables; every read scoped to the calling platform (ctx.db). */

type Db = TenantDb | TenantTx;

export interface WalletAccount {
  account: InternalAccount;
  wallet: EmbeddedWallet;
}

/** Errors: 404 NOT_FOUND (missing, another platform's, or not an EMBEDDED_WALLET account). */
export async function getWalletAccount(ctx: Ctx, accountId: string): Promise<WalletAccount> {
  const [account, wallet] = await Promise.all([
    ctx.db.internalAccount.findFirst({ where: { id: accountId } }),
    ctx.db.embeddedWallet.findFirst({ where: { id: accountId } }),
  ]);
  if (!account || !wallet || account.type !== EMBEDDED_WALLET || !visibleToCaller(ctx, account.customerId)) {
    throw new NotFoundError('NOT_FOUND', 'Embedded wallet internal account not found.');
  }
  return { account, wallet };
}

/** Errors: 404 NOT_FOUND. */
export async function getCredential(ctx: Ctx, id: string): Promise<AuthCredential> {
  const c = await ctx.db.authCredential.findFirst({ where: { id } });
  if (!c || c.revokedAt || !visibleToCaller(ctx, c.customerId)) throw new NotFoundError('NOT_FOUND', 'Authentication credential not found.');
  return c;
}

export const liveCredentials = (db: Db, accountId: string) =>
  db.authCredential.findMany({ where: { accountId, revokedAt: null }, orderBy: { createdAt: 'asc' } });

export async function credentialSetHashOf(db: Db, accountId: string): Promise<string> {
  const rows = await db.authCredential.findMany({ where: { accountId, revokedAt: null }, select: { id: true } });
  return credentialSetHash(rows.map((r) => r.id));
}

/** Sessions that may sign now. Postgres is the record: revocation shows on every process at once. */
export const liveSessions = (db: Db, accountId: string, now: Date): Promise<AuthSession[]> =>
  db.authSession.findMany({ where: { accountId, revokedAt: null, expiresAt: { gt: now } }, orderBy: { createdAt: 'desc' } });

export async function walletConfigOf(ctx: Ctx): Promise<EmbeddedWalletConfig | null> {
  const row = await ctx.db.embeddedWalletConfig.findUnique({ where: { platformId: ctx.platformId } });
  return (row?.config as EmbeddedWalletConfig | undefined) ?? null;
}
