import type { Ctx } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { BadRequestError } from '../../platform/errors.js';
import { OneStatement, OneStatementRefused, runIn } from '../../platform/one-statement.js';
import type { Posting } from './ledger.model.js';
import { journalsCtes } from './ledger.sql.js';

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
 * One statement: the journal rule's one definition, journalsCtes (ledger.sql.ts), which the money
 * path's writers compose into theirs — here with `unlessPosted` (a repeated key writes nothing).
 */
export async function postJournal(ctx: Ctx, tx: TenantTx, input: JournalInput): Promise<boolean> {
  const s = new OneStatement();
  journalsCtes(s, { platformId: ctx.platformId, at: ctx.clock.now(), prefix: 'pj', after: [], unlessPosted: true, journals: [input] });
  try {
    const [r] = await runIn<{ posted: boolean }>(s, tx, 'EXISTS (SELECT 1 FROM pj_j) AS posted');
    return r!.posted;
  } catch (err) {
    if (err instanceof OneStatementRefused && err.code === 'INSUFFICIENT_FUNDS') throw new InsufficientFundsError(debitedAccount(input.postings));
    throw err;
  }
}

/** The account an INSUFFICIENT_FUNDS names: the first (by id, the lock order) internal account the journal takes from. */
function debitedAccount(postings: Posting[]): string {
  const taken = postings.filter((p) => p.bucket !== 'SYSTEM' && p.amount < 0n).map((p) => p.account).sort();
  return taken[0] ?? postings.find((p) => p.bucket !== 'SYSTEM')?.account ?? '';
}
