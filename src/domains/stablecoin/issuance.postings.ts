import type { Ctx } from '../../deps.js';
import type { StablecoinOperation } from '../../generated/prisma/client.js';
import type { TenantTx } from '../../platform/db.js';
import { invariant } from '../../platform/errors.js';
import { postJournal, systemAccount, type Posting } from '../ledger/index.js';

/*
 * The money of a stablecoin operation with an internal-account side (docs/decisions.md anchor 26c), the one
 * definition of what each step posts; written only through postJournal, keyed by the operation id, so a
 * step repeated (a webhook and the reconciliation job racing, a retried sweep) posts once.
 *   hold     (created)    the source account AVAILABLE −X, HELD +X   (mint: the fiat; burn: the tokens)
 *   settle   (COMPLETED)  the source HELD −X to system:STABLECOIN_ISSUER (paid to the provider / burned there)
 *   release  (FAILED, EXPIRED)  the source HELD −X, AVAILABLE +X
 *   credit   (COMPLETED mint to an InternalAccount)  system:STABLECOIN_ISSUER −A, the account AVAILABLE +A
 * X is the fiat amount (base currency minor units) for a mint funded from an internal account, the token
 * amount for a burn from one; A is the minted token amount (the account is in the token's Grid currency).
 */

const INTERNAL = 'InternalAccount:';
interface Side { accountId: string; amount: bigint }

/** The internal account an operation takes money from, and how much: a mint's GRID_INTERNAL_ACCOUNT funding or a burn's source. */
export function sourceSide(op: Pick<StablecoinOperation, 'source' | 'operationType' | 'amount' | 'fiatAmount'>): Side | null {
  const s = op.source as { type?: string; accountId?: string };
  if (s.type !== 'GRID_INTERNAL_ACCOUNT' || !s.accountId) return null;
  return { accountId: s.accountId, amount: op.operationType === 'MINT' ? op.fiatAmount : op.amount };
}

/** The internal account a mint credits with the minted tokens. */
export function destinationSide(op: Pick<StablecoinOperation, 'destination' | 'operationType' | 'amount'>): Side | null {
  const d = op.destination as { accountId?: string };
  return op.operationType === 'MINT' && d.accountId?.startsWith(INTERNAL) ? { accountId: d.accountId, amount: op.amount } : null;
}

const issuer = (currency: string): Pick<Posting, 'account' | 'bucket' | 'currency'> => ({ account: systemAccount('STABLECOIN_ISSUER', currency), bucket: 'SYSTEM', currency });

export function holdPostings(s: Side, currency: string): Posting[] {
  return [
    { account: s.accountId, bucket: 'AVAILABLE', currency, amount: -s.amount },
    { account: s.accountId, bucket: 'HELD', currency, amount: s.amount },
  ];
}
export function settlePostings(s: Side, currency: string): Posting[] {
  return [{ account: s.accountId, bucket: 'HELD', currency, amount: -s.amount }, { ...issuer(currency), amount: s.amount }];
}
export function releasePostings(s: Side, currency: string): Posting[] {
  return [
    { account: s.accountId, bucket: 'HELD', currency, amount: -s.amount },
    { account: s.accountId, bucket: 'AVAILABLE', currency, amount: s.amount },
  ];
}
export function creditPostings(d: Side, currency: string): Posting[] {
  return [{ ...issuer(currency), amount: -d.amount }, { account: d.accountId, bucket: 'AVAILABLE', currency, amount: d.amount }];
}

async function currencyOfAccount(tx: TenantTx, accountId: string): Promise<string> {
  const a = await tx.internalAccount.findFirst({ where: { id: accountId }, select: { currency: true } });
  invariant(a, `stablecoin operation names unknown internal account ${accountId}`);
  return a.currency;
}

/**
 * At creation, in the operation's insert transaction: holds the source account's amount. Throws
 * InsufficientFundsError (400 INSUFFICIENT_FUNDS) when it does not cover it: the transaction, operation
 * included, rolls back.
 */
export async function holdOperationFunds(ctx: Ctx, tx: TenantTx, op: StablecoinOperation): Promise<void> {
  const s = sourceSide(op);
  if (!s) return;
  await postJournal(ctx, tx, { key: `${op.id}:hold`, kind: 'STABLECOIN_HOLD', referenceId: op.id, postings: holdPostings(s, await currencyOfAccount(tx, s.accountId)) });
}

/** After a move to a final status, in the move's transaction: settle and credit (COMPLETED) or release (FAILED, EXPIRED). */
export async function finishOperationMoney(ctx: Ctx, tx: TenantTx, op: StablecoinOperation): Promise<void> {
  const s = sourceSide(op);
  const d = destinationSide(op);
  if (op.status === 'COMPLETED') {
    if (s) await postJournal(ctx, tx, { key: `${op.id}:settle`, kind: 'STABLECOIN_SETTLE', referenceId: op.id, postings: settlePostings(s, await currencyOfAccount(tx, s.accountId)) });
    if (d) await postJournal(ctx, tx, { key: `${op.id}:credit`, kind: 'STABLECOIN_MINT_CREDIT', referenceId: op.id, postings: creditPostings(d, await currencyOfAccount(tx, d.accountId)) });
  } else if ((op.status === 'FAILED' || op.status === 'EXPIRED') && s) {
    await postJournal(ctx, tx, { key: `${op.id}:release`, kind: 'STABLECOIN_RELEASE', referenceId: op.id, postings: releasePostings(s, await currencyOfAccount(tx, s.accountId)) });
  }
}
