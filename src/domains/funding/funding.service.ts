import type { Ctx } from '../../deps.js';
import { BadRequestError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { noteIdempotentResource } from '../../platform/idempotency.js';
import { isUniqueViolation } from '../../platform/db.js';
import type { Deposit } from '../../generated/prisma/client.js';
import { systemAccount, postJournal } from '../ledger/index.js';
import { beginExecution, type ExecutionStart } from '../payments/index.js';
import { agentActorOf, toPolicyAmount } from '../agents/index.js';
import type { DomainError } from '../../platform/errors.js';
import { recordOriginator, type Originator } from './originator.js';

export interface DetectedDeposit {
  /** The detector's id of the deposit (transaction hash, bank trace number): a repeat is recorded once. */
  depositId?: string;
  reference?: string;
  address?: string;
  invoice?: string;
  network?: string;
  amount: bigint;
  currency: string;
  /** REF's originator fields, as far as the rail or chain tells them (issue 25). */
  originator?: Originator;
}

export type DepositOutcome = 'EXECUTED' | 'AWAITING_APPROVAL' | 'LIMIT_EXCEEDED' | 'AMOUNT_MISMATCH' | 'LATE' | 'QUOTE_NOT_PENDING';

/**
 * A deposit the detector saw (spec flow 3, "Quote and transaction": deposit detected → executes
 * automatically). It is matched to its quote by reference, address or invoice and always credited to
 * the quote's funding account (the customer's, or the platform's, internal account in that currency:
 * INTERNAL_ACCOUNT.BALANCE_UPDATED). Exactly `totalSendingAmount`, before `expiresAt`, on a quote still
 * waiting: the quote executes in the same database transaction (hold, PROCESSING, OUTGOING_PAYMENT.*).
 * Any other amount, a late deposit, or a quote no longer waiting: the money stays on the balance and
 * the quote is not executed. Recording is idempotent per `depositId`.
 * Errors: 400 INVALID_INPUT, INVALID_CURRENCY; 404 REFERENCE_NOT_FOUND.
 */
export async function receiveDeposit(ctx: Ctx, d: DetectedDeposit): Promise<Deposit> {
  const matchKey = ctx.adapters.deposits.matchKeyOf(d);
  if (!matchKey) throw new ValidationError([{ field: 'reference', message: 'Give the reference, the invoice, or the address with its network.' }]);
  const instruction = await ctx.db.fundingInstruction.findUnique({ where: { platformId_matchKey: { platformId: ctx.platformId, matchKey } } });
  if (!instruction) throw new NotFoundError('REFERENCE_NOT_FOUND', 'No payment instruction of this platform matches the deposit.');
  if (d.currency !== instruction.asset) {
    throw new BadRequestError('INVALID_CURRENCY', `The instruction takes ${instruction.asset}, not ${d.currency}.`, { errors: [{ field: 'currency', constraint: { enum: [instruction.asset] } }] });
  }
  const externalId = d.depositId ?? newId('Deposit');
  const existing = await ctx.db.deposit.findUnique({ where: { platformId_externalId: { platformId: ctx.platformId, externalId } } });
  if (existing) return existing;
  const quote = await ctx.db.quote.findFirstOrThrow({ where: { id: instruction.quoteId } });
  // A quote an agent created executes under its policy (A17): daily limit, approval threshold.
  const agent = quote.agentId ? await agentActorOf(ctx, quote.agentId) : undefined;
  const agentAmount = agent ? await toPolicyAmount(ctx, agent, quote.totalSendingAmount, quote.sendingCurrency) : undefined;
  try {
    const result = await ctx.db.$transaction(async (tx) => {
      const now = ctx.clock.now();
      const id = newId('Deposit');
      noteIdempotentResource(ctx, id);
      await postJournal(ctx, tx, {
        key: `deposit:${externalId}`,
        kind: 'DEPOSIT',
        referenceId: id,
        postings: [
          { account: systemAccount('DEPOSITS', d.currency, instruction.network.split(',')[0]), bucket: 'SYSTEM', currency: d.currency, amount: -d.amount },
          { account: quote.sourceAccountId, bucket: 'AVAILABLE', currency: d.currency, amount: d.amount },
        ],
      });
      let t = await tx.transaction.findFirstOrThrow({ where: { id: quote.transactionId } });
      let outcome: DepositOutcome =
        t.status !== 'PENDING' || t.pendingReason ? 'QUOTE_NOT_PENDING' : quote.expiresAt <= now ? 'LATE' : d.amount !== quote.totalSendingAmount ? 'AMOUNT_MISMATCH' : 'EXECUTED';
      let execution: ExecutionStart | undefined;
      if (outcome === 'EXECUTED') {
        t = await recordOriginator(tx, t, d); // hook:25a REF's originator fields on the funded source.
        // A refused daily limit changes nothing in the database (a conditional upsert that matched no
        // row), so the credit above still commits and the money stays on the balance.
        execution = await beginExecution(ctx, tx, t, { by: 'FUNDING', agent, agentAmount }).catch((err: DomainError) => {
          if (err?.code === 'VELOCITY_LIMIT_EXCEEDED') return undefined;
          throw err;
        });
        outcome = !execution ? 'LIMIT_EXCEEDED' : execution.status === 'PROCESSING' ? 'EXECUTED' : execution.status;
      }
      const deposit = await tx.deposit.create({
        data: { id, externalId, quoteId: quote.id, instructionId: instruction.id, network: instruction.network, currency: d.currency, amount: d.amount, creditedAccountId: quote.sourceAccountId, outcome, createdAt: now } as never,
      });
      return { deposit, execution };
    });
    await result.execution?.afterCommit();
    return result.deposit;
  } catch (err) {
    // The same deposit reported twice at once: the first recording stands.
    if (isUniqueViolation(err)) return ctx.db.deposit.findUniqueOrThrow({ where: { platformId_externalId: { platformId: ctx.platformId, externalId } } });
    throw err;
  }
}

/** Errors: 404 NOT_FOUND. */
export async function getDeposit(ctx: Ctx, id: string): Promise<Deposit> {
  const d = await ctx.db.deposit.findFirst({ where: { id } });
  if (!d) throw new NotFoundError('NOT_FOUND', 'Deposit not found.');
  return d;
}

export function depositResource(d: Deposit) {
  return {
    id: d.id,
    depositId: d.externalId,
    quoteId: d.quoteId,
    network: d.network,
    amount: Number(d.amount),
    currency: d.currency,
    creditedAccountId: d.creditedAccountId,
    outcome: d.outcome,
    createdAt: d.createdAt.toISOString(),
  };
}
