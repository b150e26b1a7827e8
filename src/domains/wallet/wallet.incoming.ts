import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { custodyFor } from '../../adapters/custody/index.js';
import { BadRequestError, NotImplementedError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { withoutClaim } from '../../platform/idempotency.js';
import { systemAccount, type Posting } from '../ledger/index.js';
import type { WalletIncomingCredit } from '../../generated/prisma/client.js';
import { getWalletAccount, type WalletAccount } from './wallet.repo.js';
import { perPlatformGroup } from '../../platform/platform-groups.js';

/**
 * Incoming funds, credited passively (issue 28, anchor 28b; REF: "incoming funds arrive passively"). The
 * custody provider reports the on-chain credits it saw on a wallet; each is recorded once per provider
 * reference in `wallet_incoming_credits` under the id of the INCOMING transaction it becomes, then booked
 * through the payments domain's one writer of a credited incoming payment (`creditIncomingPayment`:
 * INCOMING_PAYMENT.COMPLETED and INTERNAL_ACCOUNT.BALANCE_UPDATED). The transaction's primary key makes
 * the booking happen once however often the credit is reported, retried, or raced; the worker's sweep
 * books what a killed process left unbooked.
 */

/** The payments domain's writer (bound in src/modules.ts: payments sits above wallet, wallet cannot import it). */
type CreditWriter = (ctx: Ctx, f: {
  id: string; customerId: string | null; platformCustomerId: string | null; sourceAccountId: string; source: object;
  destinationAccountId: string; destination: object; paymentRail: string | null; identifierLast3: string | null;
  sentAmount: bigint; sendingCurrency: string; receivedAmount: bigint; receivingCurrency: string; createdAt: Date;
  description?: string | null; counterpartyInformation?: never;
}, journal: { key: string; kind: string; postings: Posting[] }) => Promise<unknown>;
let creditWriter: CreditWriter | undefined;
export function bindWalletCreditWriter(writer: CreditWriter): void {
  creditWriter = writer;
}

/** The network an embedded wallet receives on (REF: a Spark wallet). */
const NETWORK = 'SPARK';

/**
 * A report that credits arrived on a wallet (the sandbox call below; an operator's bridge hook): the
 * provider's newest credits recorded (once per reference), then this wallet's unbooked ones booked.
 * Returns how many are booked now.
 */
export async function syncWalletCredits(ctx: Ctx, w: WalletAccount): Promise<number> {
  const credits = await custodyFor(ctx).listCredits({ scope: { platformId: ctx.platformId }, custodyRef: w.wallet.custodyRef, limit: ctx.config.WALLET_CREDITS_PAGE });
  const now = ctx.clock.now();
  const own = credits.filter((c) => c.currency === w.account.currency && c.amount > 0n);
  if (own.length < credits.length) ctx.logger.warn({ accountId: w.account.id, ignored: credits.length - own.length }, 'custody reported credits in another currency than the wallet holds: not booked');
  const db = withoutClaim(ctx).db;
  await db.walletIncomingCredit.createMany({
    data: own.map((c) => ({ id: newId('Transaction'), accountId: w.account.id, providerRef: c.reference, amount: c.amount, currency: c.currency, senderAddress: c.senderAddress ?? null, dueAt: now, createdAt: now })) as never,
    skipDuplicates: true,
  });
  const due = await db.walletIncomingCredit.findMany({ where: { accountId: w.account.id, creditedAt: null }, orderBy: { createdAt: 'asc' }, take: ctx.config.WALLET_SWEEP_BATCH });
  for (const row of due) await bookCredit(ctx, w, row);
  return due.length;
}

/**
 * POST /sandbox/internal-accounts/{id}/receive: an on-chain credit arrives at the sandbox custody provider
 * (same `reference`: the same credit), which reports it. Errors: 400; 404; 501 (a provider without simulation).
 */
export async function simulateWalletCredit(ctx: Ctx, accountId: string, body: { amount: number; reference?: string; senderAddress?: string }) {
  const w = await getWalletAccount(ctx, accountId);
  const custody = custodyFor(ctx);
  if (!custody.simulateCredit) throw new NotImplementedError('The configured custody provider cannot simulate an incoming credit.');
  if (!Number.isSafeInteger(body.amount) || body.amount <= 0) throw new BadRequestError('INVALID_INPUT', 'amount must be a positive integer of minor units.', { errors: [{ field: 'amount', message: 'Must be a positive integer.' }] });
  const reference = body.reference ?? newId('Transaction').slice('Transaction:'.length);
  await custody.simulateCredit({ scope: { platformId: ctx.platformId }, custodyRef: w.wallet.custodyRef, reference, amount: BigInt(body.amount), currency: w.account.currency, ...(body.senderAddress ? { senderAddress: body.senderAddress } : {}) });
  await syncWalletCredits(ctx, w);
  const row = await ctx.db.walletIncomingCredit.findFirst({ where: { accountId, providerRef: reference } });
  return { reference, transactionId: row?.id ?? null, credited: row?.creditedAt != null };
}

/** Books one recorded credit (once: the transaction id is the row's), then marks the row. */
async function bookCredit(ctx: Ctx, w: WalletAccount, row: WalletIncomingCredit): Promise<void> {
  if (!creditWriter) throw new Error('wallet credit writer not bound (src/modules.ts)');
  const c = withoutClaim(ctx);
  const clearing = systemAccount('DEPOSITS', row.currency, NETWORK);
  const customer = w.account.customerId ? await c.db.customer.findFirst({ where: { id: w.account.customerId }, select: { platformCustomerId: true } }) : null;
  try {
    await creditWriter(c, {
      id: row.id, customerId: w.account.customerId, platformCustomerId: customer?.platformCustomerId ?? null,
      sourceAccountId: clearing, // REF's RealtimeFundingTransactionSource: money from outside, the sender's address as its identifier.
      source: { sourceType: 'REALTIME_FUNDING', currency: row.currency, ...(row.senderAddress ? { accountIdentifier: row.senderAddress } : {}) },
      destinationAccountId: w.account.id, destination: { destinationType: 'ACCOUNT', accountId: w.account.id, currency: row.currency },
      paymentRail: NETWORK, identifierLast3: null, sentAmount: row.amount, sendingCurrency: row.currency, receivedAmount: row.amount, receivingCurrency: row.currency,
      createdAt: c.clock.now(), description: null,
    }, {
      key: `${row.id}:wallet-credit`, kind: 'WALLET_INCOMING',
      postings: [{ account: clearing, bucket: 'SYSTEM', currency: row.currency, amount: -row.amount }, { account: w.account.id, bucket: 'AVAILABLE', currency: row.currency, amount: row.amount }],
    });
  } catch (err) {
    // Booked before (a retry after a lost answer, or a concurrent report): the transaction's key says so.
    if (!(await c.db.transaction.findFirst({ where: { id: row.id }, select: { id: true } }))) throw err;
  }
  await c.db.walletIncomingCredit.updateMany({ where: { id: row.id, creditedAt: null }, data: { creditedAt: c.clock.now() } });
}

/**
 * The worker's pass over credits recorded but not booked (a process killed between the two): claims up to
 * `batch` due rows with a lease (WALLET_SWEEP_LEASE_MS) and books each. Returns how many it claimed.
 */
export async function sweepWalletCredits(deps: AppDeps, batch = deps.config.WALLET_SWEEP_BATCH): Promise<number> {
  const now = deps.clock.now();
  // Issue 29 (29a): one claim per platform group, each on one shard.
  return perPlatformGroup(deps.prisma, 'wallet_incoming_credits', async (platforms) => {
    const claimed = await deps.prisma.$queryRaw<Array<{ id: string; platform_id: string; account_id: string }>>`
      UPDATE "wallet_incoming_credits" SET "due_at" = ${new Date(now.getTime() + deps.config.WALLET_SWEEP_LEASE_MS)}, "attempts" = "attempts" + 1
       WHERE "platform_id" = ANY(${platforms}) AND ("platform_id", "id") IN (SELECT "platform_id", "id" FROM "wallet_incoming_credits" WHERE "platform_id" = ANY(${platforms}) AND "credited_at" IS NULL AND "due_at" <= ${now} ORDER BY "due_at" LIMIT ${batch} FOR UPDATE SKIP LOCKED)
      RETURNING "id", "platform_id", "account_id"`;
    for (const r of claimed) {
      const ctx = ctxFor(deps, r.platform_id);
      try {
        const row = await ctx.db.walletIncomingCredit.findFirstOrThrow({ where: { id: r.id } });
        await bookCredit(ctx, await getWalletAccount(ctx, r.account_id), row);
      } catch (err) {
        ctx.logger.warn({ err, creditId: r.id }, 'wallet credit not booked; due again after the lease');
      }
    }
    return claimed.length;
  });
}

/** The poll interval in force: the setting, else 60 s with the http custody, off (0) with the sandbox's. */
export const creditPollIntervalMs = (c: AppDeps['config']): number => c.WALLET_CREDIT_POLL_INTERVAL_MS ?? (c.WALLET_CUSTODY === 'http' ? 60_000 : 0);

/**
 * One pass of the credit poll (a provider behind the http bridge reports nothing by itself): claims up to
 * WALLET_CREDIT_POLL_BATCH wallets not asked within the interval (never asked first), marks them asked,
 * and asks the provider about each (`syncWalletCredits`: recorded once per reference, booked once).
 * Returns how many wallets it asked about; 0 when the poll is off.
 */
export async function pollWalletCredits(deps: AppDeps, batch = deps.config.WALLET_CREDIT_POLL_BATCH): Promise<number> {
  const interval = creditPollIntervalMs(deps.config);
  if (interval === 0) return 0;
  const now = deps.clock.now();
  return perPlatformGroup(deps.prisma, 'embedded_wallets', async (platforms) => {
    const claimed = await deps.prisma.$queryRaw<Array<{ id: string; platform_id: string }>>`
      UPDATE "embedded_wallets" SET "credits_polled_at" = ${now}
       WHERE "platform_id" = ANY(${platforms}) AND ("platform_id", "id") IN (SELECT "platform_id", "id" FROM "embedded_wallets"
                      WHERE "platform_id" = ANY(${platforms}) AND ("credits_polled_at" IS NULL OR "credits_polled_at" <= ${new Date(now.getTime() - interval)})
                      ORDER BY "credits_polled_at" ASC NULLS FIRST LIMIT ${batch} FOR UPDATE SKIP LOCKED)
      RETURNING "id", "platform_id"`;
    for (const r of claimed) {
      const ctx = ctxFor(deps, r.platform_id);
      try {
        await syncWalletCredits(ctx, await getWalletAccount(ctx, r.id));
      } catch (err) {
        ctx.logger.warn({ err, accountId: r.id }, 'wallet credit poll failed; asked again after the interval');
      }
    }
    return claimed.length;
  });
}
