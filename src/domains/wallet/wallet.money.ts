import type { Ctx } from '../../deps.js';
import { custodyFor } from '../../adapters/custody/index.js';
import { CustodyError } from '../../adapters/custody/port.js';
import { BadRequestError, DomainError } from '../../platform/errors.js';
import { consumeSignedChallenge, issueSignedChallenge, verifySignedRetry, parseWalletStamp, type SignatureHeaders } from '../signing/index.js';
import { liveSessions } from './wallet.repo.js';
import { EMBEDDED_WALLET } from './wallet.model.js';
import { walletSigners } from './wallet.service.js';

/**
 * Money out of an embedded wallet (issue 28): the quote carries a `payloadToSign` for the customer's
 * session key, and execute checks the stamp, twice (here and at the custody provider), before the one
 * money writer holds anything. Called from the payments domain at `// hook:28` lines.
 */

const EXECUTE = 'POST /quotes/{quoteId}/execute';

/**
 * REF's PaymentEmbeddedWalletInfo for a quote whose source is an EMBEDDED_WALLET account: a challenge bound
 * to the quote (id, amount, currency) the customer stamps. Other sources: nothing. An embedded wallet
 * cannot `immediatelyExecute` (there is nothing signed yet): 400 INVALID_INPUT.
 */
export async function walletExecutionInstructions(
  ctx: Ctx, source: { id: string; type: string; customerId: string | null }, q: { quoteId: string; amount: bigint; currency: string; immediatelyExecute?: boolean | null },
): Promise<Array<Record<string, unknown>>> {
  if (source.type !== EMBEDDED_WALLET || !source.customerId) return [];
  if (q.immediatelyExecute) throw new BadRequestError('INVALID_INPUT', 'A quote from an EMBEDDED_WALLET source must be executed with the customer\'s Grid-Wallet-Signature; immediatelyExecute is not possible.', { errors: [{ field: 'immediatelyExecute', message: 'Not allowed with an EMBEDDED_WALLET source.' }] });
  const challenge = await issueSignedChallenge(ctx, {
    customerId: source.customerId, resourceId: q.quoteId, action: EXECUTE, body: {}, signers: walletSigners(ctx, source.id),
    payloadExtra: { sourceAccountId: source.id, amount: q.amount.toString(), currency: q.currency },
  });
  return [{ accountOrWalletInfo: { accountType: EMBEDDED_WALLET, payloadToSign: challenge.payloadToSign }, requestId: challenge.requestId, expiresAt: challenge.expiresAt }];
}

/**
 * Before execute moves money from an EMBEDDED_WALLET source: the stamp over the quote's payloadToSign by a
 * live session key (401 WALLET_SIGNATURE_* with `details.reason`), re-checked by the custody provider,
 * and the challenge consumed so a replay moves nothing. `Request-Id` is optional here (REF): the quote
 * names its challenge. No-op for other sources.
 */
/** True for a quote whose instructions carry an embedded wallet's payloadToSign (no I/O: the quote row says it). */
export function isWalletQuote(quote: { paymentInstructions: unknown }): boolean {
  return Array.isArray(quote.paymentInstructions) && quote.paymentInstructions.some((i: any) => i?.accountOrWalletInfo?.accountType === EMBEDDED_WALLET);
}

export async function requireWalletStamp(ctx: Ctx, quote: { id: string; sourceAccountId: string | null; customerId: string | null; totalSendingAmount: bigint; sendingCurrency: string; paymentInstructions: unknown }, headers: SignatureHeaders): Promise<void> {
  if (!isWalletQuote(quote) || !quote.sourceAccountId || !quote.customerId) return;
  const quoteId = quote.id;
  const account = { id: quote.sourceAccountId };
  const challenge = await ctx.db.signedRequest.findFirst({ where: { resourceId: quoteId, action: EXECUTE }, orderBy: { createdAt: 'desc' }, select: { id: true } });
  const requestId = headers.requestId ?? challenge?.id;
  const target = { customerId: quote.customerId, resourceId: quoteId, action: EXECUTE, body: {}, signers: walletSigners(ctx, account.id) };
  const verified = await verifySignedRetry(ctx, target, { ...headers, ...(requestId ? { requestId } : {}) });
  const stamp = parseWalletStamp(headers.signature!, ctx.config.SVC_ENV === 'sandbox');
  const wallet = await ctx.db.embeddedWallet.findFirstOrThrow({ where: { id: account.id } });
  const row = await ctx.db.signedRequest.findFirstOrThrow({ where: { id: verified } });
  try {
    await custodyFor(ctx).signTransfer({
      scope: { platformId: ctx.platformId }, custodyRef: wallet.custodyRef, payload: row.payloadToSign, stamp,
      allowedPublicKeys: (await liveSessions(ctx.db, account.id, ctx.clock.now())).map((s) => s.publicKey),
      transfer: { idempotencyKey: quoteId, amount: quote.totalSendingAmount, currency: quote.sendingCurrency, destination: quoteId },
    });
  } catch (err) {
    if (err instanceof CustodyError && err.reason === 'STAMP_INVALID') throw new DomainError(401, 'WALLET_SIGNATURE_INVALID', 'The custody provider refused the stamp.', { reason: 'CUSTODY_REFUSED' });
    throw err;
  }
  await ctx.db.$transaction((tx) => consumeSignedChallenge(ctx, tx, verified));
}
