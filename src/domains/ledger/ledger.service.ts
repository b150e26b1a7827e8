import type { Ctx } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { BadRequestError, invariant } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { recordEvent } from '../../platform/outbox.js';
import { unbalancedCurrencies, type Posting } from './ledger.model.js';
import { internalAccountResource } from './internal-accounts.resource.js';

export interface JournalInput {
  /** Unique per platform: posting the same key twice applies it once (jobs retry safely). */
  key: string;
  kind: string;
  referenceId?: string;
  postings: Posting[];
}

export class InsufficientFundsError extends BadRequestError {
  constructor(accountId: string) {
    super('INSUFFICIENT_FUNDS', 'The source account does not have enough available balance.', { accountId });
  }
}

/**
 * Posts a balanced journal inside the caller's transaction and moves the cached balances of the
 * internal accounts it touches. Returns false (and changes nothing) when the key was posted
 * before. Throws InsufficientFundsError when a bucket would go negative; the caller's
 * transaction then rolls back whole. Emits INTERNAL_ACCOUNT.BALANCE_UPDATED per account changed.
 */
export async function postJournal(ctx: Ctx, tx: TenantTx, input: JournalInput): Promise<boolean> {
  const postings = input.postings.filter((p) => p.amount !== 0n);
  invariant(unbalancedCurrencies(postings).length === 0, `journal ${input.key} does not balance`);
  const journalId = newId('Journal');
  const inserted = await tx.$executeRaw`
    INSERT INTO ledger_journals (id, platform_id, idempotency_key, kind, reference_id)
    VALUES (${journalId}, ${ctx.platformId}, ${input.key}, ${input.kind}, ${input.referenceId ?? null})
    ON CONFLICT (platform_id, idempotency_key) DO NOTHING`;
  if (inserted === 0) return false;
  if (postings.length === 0) return true;
  await tx.ledgerEntry.createMany({
    data: postings.map((p) => ({ id: newId('LedgerEntry'), journalId, account: p.account, bucket: p.bucket, currency: p.currency, amount: p.amount })) as any,
  });
  const deltas = internalDeltas(postings);
  const changed: Array<{ accountId: string; available: bigint; held: bigint }> = [];
  // Read before locking: the events need the accounts' other fields, not a re-read under lock.
  const accounts = new Map((await tx.internalAccount.findMany({ where: { id: { in: [...deltas.keys()] } } })).map((a) => [a.id, a]));
  // Fixed lock order (by account id) so concurrent journals cannot deadlock.
  for (const [accountId, d] of [...deltas].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const rows = await tx.$queryRaw<Array<{ available_balance: bigint; held_balance: bigint }>>`
      UPDATE internal_accounts
         SET available_balance = available_balance + ${d.available},
             held_balance = held_balance + ${d.held},
             updated_at = now()
       WHERE id = ${accountId} AND platform_id = ${ctx.platformId} AND currency = ${d.currency}
         AND available_balance + ${d.available} >= 0 AND held_balance + ${d.held} >= 0
      RETURNING available_balance, held_balance`;
    if (rows.length === 0) {
      const exists = accounts.get(accountId);
      invariant(exists && exists.currency === d.currency, `journal ${input.key} names unknown account ${accountId} in ${d.currency}`);
      throw new InsufficientFundsError(accountId);
    }
    changed.push({ accountId, available: rows[0]!.available_balance, held: rows[0]!.held_balance });
  }
  // Events after every balance moved, from the rows the updates returned (no re-read under lock).
  for (const c of changed) {
    const account = accounts.get(c.accountId)!;
    await recordEvent(tx, 'INTERNAL_ACCOUNT.BALANCE_UPDATED', internalAccountResource({ ...account, availableBalance: c.available, heldBalance: c.held, updatedAt: ctx.clock.now() }));
  }
  return true;
}

function internalDeltas(postings: Posting[]): Map<string, { available: bigint; held: bigint; currency: string }> {
  const out = new Map<string, { available: bigint; held: bigint; currency: string }>();
  for (const p of postings) {
    if (p.bucket === 'SYSTEM') continue;
    const d = out.get(p.account) ?? { available: 0n, held: 0n, currency: p.currency };
    invariant(d.currency === p.currency, `account ${p.account} posted in two currencies`);
    if (p.bucket === 'AVAILABLE') d.available += p.amount;
    else d.held += p.amount;
    out.set(p.account, d);
  }
  return out;
}
