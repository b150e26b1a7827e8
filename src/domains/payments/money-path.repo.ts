import { ConflictError } from '../../platform/errors.js';
import type { Ctx } from '../../deps.js';
import type pg from 'pg';
import { poolOf, query } from '../../platform/db.js';
import { modelRows } from '../../platform/raw-rows.js';
import { newId } from '../../platform/ids.js';
import { merged } from '../../platform/objects.js';
import { jsonText } from '../../platform/outbox.js';
import { JsonText, OneStatement, OneStatementRefused } from '../../platform/one-statement.js';
import { transitionCtes, transitionManyCtes, type SetColumns } from '../../platform/state-machine.js';
import { Prisma } from '../../generated/prisma/client.js';
import { claimCommitted, claimInsertSql, claimTaken } from '../../platform/idempotency.js';
import type { Quote, Transaction } from '../../generated/prisma/client.js';
import { InsufficientFundsError, journalCtes, journalsCtes, type Posting } from '../ledger/index.js';
import { holdPostings } from './payment-postings.js';
import { transactionResource } from './transactions.resource.js';
import { eventPrefix, quoteStatus, transactionStatus } from './transactions.repo.js';
import { transactionTransitions } from './transactions.model.js';

/**
 * Issue 12: the money path in one statement each. A platform's prefunded payment (no SCA, no agent
 * policy, no UMA terms, no real-time funding) is started by a single chain of CTEs that Postgres runs
 * as one transaction, everything or nothing: the hold on the source balance (a guard: it moves only
 * when the available balance covers it), the quote and its transaction PROCESSING, the hold journal
 * and its entries, the status history row, the outbox events (OUTGOING_PAYMENT.PENDING when the quote
 * is new, .PROCESSING, INTERNAL_ACCOUNT.BALANCE_UPDATED with the balances the hold returned) and the
 * request's Idempotency-Key record. The rules are those of the general path (quotes.service
 * startExecution → holdAndProcess): `execute` moves PENDING → PROCESSING, postings from
 * `holdPostings`, event data from the resources.
 */

/** The PROCESSING rows of a started payment. */
export interface StartedPayment {
  quote: Quote;
  transaction: Transaction;
}

/**
 * POST /quotes with immediatelyExecute: inserts the quote and its transaction already started.
 * Errors: 400 INSUFFICIENT_FUNDS (nothing written); 409 CONFLICT (the Idempotency-Key was taken).
 */
export async function insertStartedPayment(ctx: Ctx, pending: StartedPayment): Promise<StartedPayment> {
  const started = startedRows(ctx, pending);
  const s = new OneStatement();
  s.insert('q', 'quotes', [started.quote]);
  s.insert('t', 'transactions', [started.transaction]);
  return runStart(ctx, s, started, [pending.transaction, started.transaction]);
}

/**
 * POST /quotes/{id}/execute of a PENDING quote read by the caller: the status compare-and-set (a
 * concurrent execute, an expiry or an approval request moved it: QUOTE_NOT_PENDING) and the hold.
 * Errors: 400 INSUFFICIENT_FUNDS; 409 QUOTE_NOT_PENDING, CONFLICT (Idempotency-Key taken).
 */
export async function startPendingPayment(ctx: Ctx, pending: StartedPayment): Promise<StartedPayment> {
  const started = startedRows(ctx, pending);
  const now = started.transaction.updatedAt;
  const s = new OneStatement();
  // The moves of transition() (transactions.repo.ts), as CTEs: compare-and-set and history rows.
  transitionCtes(s, ctx, transactionStatus, 'execute', pending.transaction.id, { name: 'cas', set: { updatedAt: now }, where: Prisma.sql`"pending_reason" IS NULL` });
  s.require('cas', 1, 'QUOTE_NOT_PENDING');
  transitionCtes(s, ctx, quoteStatus, 'execute', pending.quote.id, { name: 'qu', set: { updatedAt: now, executedAt: now }, where: Prisma.sql`EXISTS (SELECT 1 FROM "cas")` });
  s.require('qu', 1, 'QUOTE_NOT_PENDING');
  return runStart(ctx, s, started, [started.transaction], 'cas');
}

function startedRows(ctx: Ctx, pending: StartedPayment): StartedPayment {
  const now = ctx.clock.now();
  return {
    transaction: merged(pending.transaction, { status: 'PROCESSING' as const, updatedAt: now }),
    quote: merged(pending.quote, { status: 'PROCESSING' as const, executedAt: now, updatedAt: now }),
  };
}

/** Journal, entries, history and outbox rows of a started payment, then the statement itself. */
async function runStart(ctx: Ctx, s: OneStatement, started: StartedPayment, eventStates: Transaction[], after?: string): Promise<StartedPayment> {
  const t = started.transaction;
  const now = t.updatedAt;
  transactionEventsCte(ctx, s, eventStates);
  journalCtes(s, { platformId: ctx.platformId, key: `${t.id}:hold`, kind: 'PAYMENT_HOLD', referenceId: t.id, postings: holdPostings(t), at: now, prefix: 'hold', after });
  // A quote inserted already PROCESSING has no compare-and-set: its history rows are written as such.
  if (!after) insertedHistoryCte(ctx, s, t);
  const claim = ctx.idempotency && !ctx.idempotency.committed ? ctx.idempotency : undefined;
  if (claim) {
    claim.resourceId = started.quote.id;
    s.with('idem', claimInsertSql(claim, (v) => s.param(v), new Date())).require('idem', 1, 'IDEMPOTENCY_KEY_TAKEN');
  }
  try {
    await s.run(poolOf(ctx.prisma));
  } catch (err) {
    if (err instanceof OneStatementRefused && err.code === 'INSUFFICIENT_FUNDS') throw new InsufficientFundsError(t.sourceAccountId);
    // A concurrent execute (or the expiry sweep) won the compare-and-set.
    if (err instanceof OneStatementRefused && err.code === 'QUOTE_NOT_PENDING') throw new ConflictError('QUOTE_NOT_PENDING', 'The quote was already executed.');
    if (err instanceof OneStatementRefused && err.code === 'IDEMPOTENCY_KEY_TAKEN' && claim) claimTaken(claim);
    throw err;
  }
  if (claim) claimCommitted(claim);
  return started;
}

/** CTE `tev`: the transaction's events, one per state in `states`, in order. */
function transactionEventsCte(ctx: Ctx, s: OneStatement, states: Transaction[]): void {
  s.insert('tev', 'webhook_events', states.map((state) => ({ id: newId('Webhook'), platformId: ctx.platformId, type: `${eventPrefix(state)}.${state.status}`, data: new JsonText(jsonText(transactionResource(state))) })));
}

/**
 * CTE `h`: the status_changes rows of a payment inserted PROCESSING (its quote created and executed at
 * once), the `execute` moves of the transaction and its quote as transition() writes them elsewhere.
 */
function insertedHistoryCte(ctx: Ctx, s: OneStatement, t: Transaction): void {
  const move = transactionTransitions.execute;
  const moved = [{ machine: transactionStatus.machine, resourceId: t.id }, ...(t.quoteId ? [{ machine: quoteStatus.machine, resourceId: t.quoteId }] : [])];
  s.insert('h', 'status_changes', moved.map((m) => ({ id: newId('StatusChange'), platformId: ctx.platformId, machine: m.machine, resourceId: m.resourceId, event: 'execute', fromStatus: move.from[0], toStatus: move.to, createdAt: t.updatedAt })));
}

/** The rail's answer to a submission, stored with the settlement when it completed at once. */
export interface RailSubmission {
  reference: string;
  submittedAt: Date;
  /** When reconciliation should look at it; null: never (settled for good, no bank return to watch for). */
  reconcileAfter: Date | null;
}

/**
 * Settles a PROCESSING payment in one statement: the compare-and-set PROCESSING → COMPLETED (with
 * the rail's reference when the submission's answer was already COMPLETED; a reference stored before
 * is kept), the quote's status, the settle journal with its balance moves and events, the history
 * row and OUTGOING_PAYMENT.COMPLETED. A payment no longer PROCESSING is left alone (false).
 */
export async function settlePayment(ctx: Ctx, t: Transaction, postings: Posting[], submission?: RailSubmission): Promise<boolean> {
  return settlePayments(ctx, [{ t, postings, submission }]);
}

/** A payment settlePayments settles. */
export interface Settlement {
  t: Transaction;
  postings: Posting[];
  submission?: RailSubmission;
}

/**
 * Settles several PROCESSING payments of the calling platform in ONE statement (the payments worker's
 * batches, issue 12): each payment's compare-and-set, quote move, history rows, settle journal and
 * COMPLETED event as settlePayment writes them, and the balances moved once per account for the lot
 * (journalsCtes): a shared balance — a platform's hot account — is locked and updated once, with one
 * BALANCE_UPDATED from its balance after all of them. All or nothing: a payment no longer PROCESSING
 * (a cancel that won the race) refuses the whole statement (false) and nothing is written; the
 * caller then settles them one by one, where each refusal is handled on its own.
 */
export async function settlePayments(ctx: Ctx, list: Settlement[]): Promise<boolean> {
  try {
    await settleStatement(ctx, list).run(poolOf(ctx.prisma));
    return true;
  } catch (err) {
    if (err instanceof OneStatementRefused && err.code === 'NOT_PROCESSING') return false;
    throw err;
  }
}

/**
 * settlePayment's (and settlePayments') statement, set-based: one compare-and-set for the lot, one move
 * of their quotes, one insert of each kind — the same text for any number of payments, so a batch is
 * one prepared statement, planned once (a chain of CTEs per payment cost more to plan than to run).
 * The rail's answers ride along as arrays parallel to the payments' ids (`ref` null: no answer to
 * store), each row picking its own by its id's position: plain expressions, where a recordset read by
 * subqueries made every row cost as much as scanning it, so the planner estimated its generic plan
 * dearer than a fresh one and planned the statement on every batch.
 */
function settleStatement(ctx: Ctx, list: Settlement[]): OneStatement {
  const now = ctx.clock.now();
  const s = new OneStatement();
  const settled: Transaction[] = [];
  const answers = { id: [] as string[], ref: [] as Array<string | null>, submitted_at: [] as Array<string | null>, reconcile_after: [] as Array<string | null> };
  for (const { t, submission } of list) {
    const fresh = submission && !t.railReference ? submission : undefined;
    settled.push(
      merged(t, {
        status: 'COMPLETED' as const,
        settledAt: now,
        updatedAt: now,
        pendingReason: null,
        railReference: fresh ? fresh.reference : t.railReference,
        submittedAt: fresh ? fresh.submittedAt : t.submittedAt,
        reconcileAfter: fresh ? fresh.reconcileAfter : t.reconcileAfter,
      }),
    );
    answers.id.push(t.id);
    answers.ref.push(submission?.reference ?? null);
    answers.submitted_at.push(submission?.submittedAt.toISOString() ?? null);
    answers.reconcile_after.push(submission?.reconcileAfter?.toISOString() ?? null);
  }
  const ids = s.param(answers.id);
  const arrays = { ref: `${s.param(answers.ref)}::text[]`, submitted_at: `${s.param(answers.submitted_at)}::timestamptz[]`, reconcile_after: `${s.param(answers.reconcile_after)}::timestamptz[]` };
  // The row's own answer (NULL when it has none) and whether it carries one at all.
  const answer = (column: keyof typeof arrays) => Prisma.raw(`(${arrays[column]})[array_position(${ids}::text[], "transactions"."id")]`);
  const answered = Prisma.sql`(${answer('ref')} IS NOT NULL)`;
  // A reference stored before (an earlier submission's) is kept, with its submission time and watch.
  const sub: SetColumns<Transaction> = {
    railReference: Prisma.sql`COALESCE("rail_reference", ${answer('ref')})`,
    submittedAt: Prisma.sql`CASE WHEN "rail_reference" IS NULL AND ${answered} THEN ${answer('submitted_at')} ELSE "submitted_at" END`,
    // An answer without a watch (settled for good) clears it; no answer leaves it.
    reconcileAfter: Prisma.sql`CASE WHEN NOT ${answered} THEN "reconcile_after" WHEN ${answer('reconcile_after')} IS NULL THEN NULL WHEN "rail_reference" IS NULL THEN ${answer('reconcile_after')} ELSE "reconcile_after" END`,
  };
  // The moves of transition() (transactions.repo.ts), as CTEs: compare-and-set and history rows.
  transitionManyCtes(s, ctx, transactionStatus, 'complete', list.map(({ t }) => t.id), { name: 'cas', set: { settledAt: now, updatedAt: now, pendingReason: null, ...sub } });
  s.require('cas', list.length, 'NOT_PROCESSING');
  const quotes = list.flatMap(({ t }) => (t.quoteId ? [t.quoteId] : []));
  if (quotes.length > 0) {
    transitionManyCtes(s, ctx, quoteStatus, 'complete', quotes, { name: 'qu', set: { updatedAt: now } });
    // The quote makes its transaction's moves; one that cannot is a broken invariant, not a lost race.
    s.require('qu', quotes.length, 'QUOTE_OUT_OF_STEP');
  }
  // Events in the general path's order: the balances moved, then the payments COMPLETED.
  journalsCtes(s, {
    platformId: ctx.platformId,
    at: now,
    prefix: 'settle',
    after: ['cas'],
    journals: list.map(({ t, postings }) => ({ key: `${t.id}:settle`, kind: 'PAYMENT_SETTLE', referenceId: t.id, postings })),
  });
  transactionEventsCte(ctx, s, settled);
  return s;
}

/**
 * The batched submission's claim (issue 12): marks `submitted_at` on each listed payment still
 * PROCESSING, paid out to an external account, not yet submitted (no rail reference) and not claimed
 * before, and returns those rows — the claim submitPayment takes one payment at a time, for many
 * in one statement. A payment not returned is left to submitPayment's own path. Rows are found by key
 * only (the rest wrapped in `IS TRUE`, as transitionManyCtes does): never a scan of the unsubmitted ones.
 * The keys go through svc_keys (migration 20261127000000) so the statement is planned once per
 * connection, not on every call; each row's platform is the one listed at its id's position.
 */
export async function claimSubmissions(pool: pg.Pool, items: ReadonlyArray<{ platformId: string; transactionId: string }>, now: Date): Promise<Transaction[]> {
  const r = await query(
    pool,
    `UPDATE transactions t SET submitted_at = $1
      WHERE t.id = ANY(svc_keys($3::text[]))
        AND (t.platform_id = ($2::text[])[array_position($3::text[], t.id)] AND t.status = 'PROCESSING' AND t.destination_kind = 'EXTERNAL' AND t.rail_reference IS NULL AND t.submitted_at IS NULL) IS TRUE
      RETURNING t.*`,
    [now, items.map((i) => i.platformId), items.map((i) => i.transactionId)],
  );
  return modelRows<Transaction>(r);
}
