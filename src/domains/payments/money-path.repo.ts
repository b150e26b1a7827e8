import { ConflictError, invariant } from '../../platform/errors.js';
import { coalescer, type Coalescer } from '../../platform/coalesce.js';
import type { Ctx } from '../../deps.js';
import type pg from 'pg';
import { poolOf, query } from '../../platform/db.js';
import { modelRows } from '../../platform/raw-rows.js';
import { checkedAfterKeyLookup, plannedForAnyValue } from '../../platform/sql/planner.js';
import { OneStatement, OneStatementRefused, runIn, type RawRunner, type StatementPart } from '../../platform/one-statement.js';
import { IllegalTransitionError, transitionCtes, transitionManyCtes, type SetColumns } from '../../platform/state-machine.js';
import { Prisma } from '../../generated/prisma/client.js';
import { claimCommitted, claimsInsertSql, takenError, type IdempotencyClaim } from '../../platform/idempotency.js';
import type { Quote, Transaction } from '../../generated/prisma/client.js';
import { InsufficientFundsError, journalsCtes, type Posting } from '../ledger/index.js';
import { holdJournal, settleJournal, type PaymentJournal } from './payment-postings.js';
import { insertedMovesCte, quoteStatus, refundStatus, transactionEventsCte, transactionStatus, type PaymentEvents } from './transactions.repo.js';
import { transactionLifecycle, type TransactionEvent } from './transactions.model.js';

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
 * POST /quotes with immediatelyExecute: inserts quotes and their transactions already started, one result
 * (the started rows, or the payment's error) per item. The payments a process starts in one turn of its
 * event loop (concurrent requests) are written by ONE statement per platform (coalescer, src/platform/
 * coalesce.ts): one transaction, one commit and one plan for the lot instead of one each. A refused batch
 * (one payment short of funds, a key taken) wrote nothing, and its payments are then written one by one,
 * each refusal its own request's error. The request's Idempotency-Key record is written with its payment:
 * a request carrying one starts one payment.
 * Errors per item: 400 INSUFFICIENT_FUNDS (nothing written); 409 CONFLICT (the Idempotency-Key was taken).
 */
export async function startPayments(ctx: Ctx, items: readonly StartedPayment[]): Promise<Array<StartedPayment | Error>> {
  const claim = ctx.idempotency && !ctx.idempotency.committed ? ctx.idempotency : undefined;
  invariant(!claim || items.length === 1, 'a request with an Idempotency-Key starts one payment');
  const starts = startsOn(poolOf(ctx.prisma));
  return Promise.all(items.map((pending) => starts.load(startItem(ctx, pending, claim)).catch((err: Error) => err)));
}

/** startPayments for one payment. */
export async function insertStartedPayment(ctx: Ctx, pending: StartedPayment): Promise<StartedPayment> {
  return throwIfError((await startPayments(ctx, [pending]))[0]!);
}

const throwIfError = <T>(r: T | Error): T => {
  if (r instanceof Error) throw r;
  return r;
};

/** A payment startPayments writes, with its request's Idempotency-Key claim. */
interface InsertedStart {
  ctx: Ctx;
  pending: StartedPayment;
  started: StartedPayment;
  claim?: IdempotencyClaim;
}

function startItem(ctx: Ctx, pending: StartedPayment, claim: IdempotencyClaim | undefined): InsertedStart {
  const started = startedRows(ctx, pending);
  if (claim) claim.resourceId = started.quote.id;
  return { ctx, pending, started, claim };
}

/** The starts of a pool, coalesced per platform (a statement's rows are one platform's), at most STARTS_PER_STATEMENT a statement. */
const coalescedStarts = new WeakMap<pg.Pool, Coalescer<InsertedStart, StartedPayment>>();

function startsOn(pool: pg.Pool): Coalescer<InsertedStart, StartedPayment> {
  let starts = coalescedStarts.get(pool);
  if (!starts) {
    starts = coalescer<InsertedStart, StartedPayment>({ key: (i) => i.ctx.platformId, flush: 'turn', maxBatch: STARTS_PER_STATEMENT, run: (list) => writeStarts(pool, list), refused: isRefusal });
    coalescedStarts.set(pool, starts);
  }
  return starts;
}

/** At most this many payments per statement. */
const STARTS_PER_STATEMENT = 32;

/** Writes payments of one platform by one statement; a lone payment's refusal is its request's error. */
async function writeStarts(pool: pg.Pool, list: readonly InsertedStart[]): Promise<StartedPayment[]> {
  try {
    await insertStatement(list).run(pool);
  } catch (err) {
    if (list.length === 1) throw startError(err, list[0]!.started.transaction, list[0]!.claim);
    throw err;
  }
  for (const i of list) if (i.claim) claimCommitted(i.claim);
  return list.map((i) => i.started);
}

/**
 * A batch refused as a whole (a guard failed), or one Postgres rejected with a SQLSTATE (an
 * Idempotency-Key twice in the batch) — not a lost or refused connection (08, 53) or a cancelled
 * statement (57): those would only fail again, once per payment.
 */
function isRefusal(err: unknown): boolean {
  if (err instanceof OneStatementRefused) return true;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !['08', '53', '57'].includes(code.slice(0, 2));
}

/** The statement writing `list` (payments of one platform) inserted PROCESSING: the same text for any number of them. */
function insertStatement(list: readonly InsertedStart[]): OneStatement {
  const s = new OneStatement();
  s.insert('q', 'quotes', list.map((i) => i.started.quote));
  s.insert('t', 'transactions', list.map((i) => i.started.transaction));
  startCtes(s, list[0]!.ctx.platformId, list.map((i) => ({ started: i.started, eventStates: [i.pending.transaction, i.started.transaction] })));
  // A quote inserted already PROCESSING has no compare-and-set: its history rows are written as such.
  insertedMovesCte(s, 'h', list[0]!.ctx.platformId, list.flatMap(({ started: { transaction: t } }) => [
    { machine: transactionStatus.machine, resourceId: t.id, events: ['execute'], at: t.updatedAt },
    ...(t.quoteId ? [{ machine: quoteStatus.machine, resourceId: t.quoteId, events: ['execute'] as const, at: t.updatedAt }] : []),
  ]));
  claimsCte(s, list.flatMap((i) => (i.claim ? [i.claim] : [])));
  return s;
}

/**
 * CTE `idem`: the requests' Idempotency-Key records, each required written (IDEMPOTENCY_KEY_TAKEN). In
 * the keys' order: two statements writing the same keys wait for each other, never deadlock.
 */
function claimsCte(s: OneStatement, claims: IdempotencyClaim[]): void {
  if (claims.length === 0) return;
  const sorted = [...claims].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  s.with('idem', claimsInsertSql(sorted, (v) => s.param(v), new Date())).require('idem', sorted.length, 'IDEMPOTENCY_KEY_TAKEN');
}

/** A refusal of a payment's start as its request's error. */
function startError(err: unknown, t: Transaction, claim: IdempotencyClaim | undefined): Error {
  if (err instanceof OneStatementRefused && err.code === 'INSUFFICIENT_FUNDS') return new InsufficientFundsError(t.sourceAccountId);
  // A concurrent execute (or the expiry sweep) won the compare-and-set.
  if (err instanceof OneStatementRefused && err.code === 'QUOTE_NOT_PENDING') return new ConflictError('QUOTE_NOT_PENDING', 'The quote was already executed.');
  if (err instanceof OneStatementRefused && err.code === 'IDEMPOTENCY_KEY_TAKEN' && claim) return takenError(claim);
  return err as Error;
}

/**
 * POST /quotes/{id}/execute of a PENDING quote read by the caller: the status compare-and-set (a
 * concurrent execute, an expiry or an approval request moved it: QUOTE_NOT_PENDING) and the hold.
 * Errors: 400 INSUFFICIENT_FUNDS; 409 QUOTE_NOT_PENDING, CONFLICT (Idempotency-Key taken).
 */
export async function startPendingPayment(ctx: Ctx, pending: StartedPayment): Promise<StartedPayment> {
  const started = startedRows(ctx, pending);
  const s = new OneStatement();
  startMoveCtes(s, ctx, started.transaction, { event: 'execute', hold: true, where: Prisma.sql`"pending_reason" IS NULL` });
  return runStart(ctx, s, started, [started.transaction], 'cas');
}

/**
 * How a payment already written starts (every trigger but the immediate one, which inserts it started):
 *   execute    POST /quotes/{id}/execute, an agent's execution within its policy, a real-time quote's
 *              deposit, the platform's approval of an agent's payment (`set` clears its pendingReason)
 *   authorize  POST /quotes/{id}/authorize after a verified SCA code
 * `hold`: an outgoing payment holds its sending amount; an incoming one's money waits in clearing.
 */
export interface StartMove {
  event: 'execute' | 'authorize';
  hold: boolean;
  /** A further condition of the transaction's compare-and-set. */
  where?: Prisma.Sql;
  /** Columns the start also sets on the transaction (an agent's counted amount, a cleared pendingReason). */
  set?: Partial<Pick<Transaction, 'agentId' | 'agentCountedAmount' | 'pendingReason'>>;
  /** What else the start's statement writes, guarded before the start itself (a consumed SCA challenge). */
  part?: StatementPart;
}

/**
 * The one writer of a payment's start inside the caller's database transaction (with what else commits
 * with it: a consumed SCA challenge, an agent's counted usage, a recorded deposit, the platform's approval
 * of an incoming payment): the same statement as startPendingPayment's — compare-and-set of the transaction and its quote
 * with their history rows, the <PREFIX>.PROCESSING event, the hold journal with its balance moves and
 * events — run on the transaction. Returns the started transaction.
 * Errors: 400 INSUFFICIENT_FUNDS; 409 INVALID_STATE_TRANSITION (a lost race or an illegal move: the caller maps it).
 */
export async function startPaymentIn(ctx: Ctx, tx: RawRunner, t: Transaction, move: StartMove): Promise<Transaction> {
  const now = ctx.clock.now();
  const started: Transaction = { ...t, ...move.set, status: 'PROCESSING', pendingReason: null, updatedAt: now };
  const s = new OneStatement();
  move.part?.add(s);
  startMoveCtes(s, ctx, started, move);
  if (move.hold) startCtes(s, ctx.platformId, [{ started: { transaction: started }, eventStates: [started] }], 'cas');
  else transactionEventsCte(s, ctx.platformId, [started]);
  try {
    await runIn(s, tx);
  } catch (err) {
    if (err instanceof OneStatementRefused) throw move.part?.refusal(err.code) ?? startInError(err, t, move);
    throw err;
  }
  return started;
}

function startInError(err: OneStatementRefused, t: Transaction, move: StartMove): Error {
  if (err.code === 'INSUFFICIENT_FUNDS') return new InsufficientFundsError(t.sourceAccountId);
  if (err.code === 'QUOTE_NOT_PENDING') return new IllegalTransitionError(transactionLifecycle, move.event, t.status, t.id);
  return err;
}

/**
 * CTEs `cas` and `qu`: the start's moves of transition() (transactions.repo.ts) — the transaction's
 * compare-and-set with its history row, then its quote's — each required (QUOTE_NOT_PENDING).
 */
function startMoveCtes(s: OneStatement, ctx: Ctx, started: Transaction, move: StartMove): void {
  const now = started.updatedAt;
  const set = { ...move.set, pendingReason: null, updatedAt: now };
  transitionCtes(s, ctx, transactionStatus, move.event, started.id, { name: 'cas', set, ...(move.where ? { where: move.where } : {}) });
  s.require('cas', 1, 'QUOTE_NOT_PENDING');
  if (!started.quoteId) return;
  transitionCtes(s, ctx, quoteStatus, move.event, started.quoteId, { name: 'qu', set: { updatedAt: now, executedAt: now }, where: Prisma.sql`EXISTS (SELECT 1 FROM "cas")` });
  s.require('qu', 1, 'QUOTE_NOT_PENDING');
}

function startedRows(ctx: Ctx, pending: StartedPayment): StartedPayment {
  const now = ctx.clock.now();
  return {
    transaction: { ...pending.transaction, status: 'PROCESSING', updatedAt: now },
    quote: { ...pending.quote, status: 'PROCESSING', executedAt: now, updatedAt: now },
  };
}

/** Journal, entries and outbox rows of a started payment and its Idempotency-Key record, then the statement itself. */
async function runStart(ctx: Ctx, s: OneStatement, started: StartedPayment, eventStates: Transaction[], after: string): Promise<StartedPayment> {
  startCtes(s, ctx.platformId, [{ started, eventStates }], after);
  await runClaimed(ctx, s, started.quote.id, started.transaction);
  return started;
}

/**
 * Runs a writer's statement on its own (autocommit) with the request's Idempotency-Key record (CTE `idem`,
 * naming `resourceId`), and marks the claim committed once it is. Errors: startError's.
 */
async function runClaimed(ctx: Ctx, s: OneStatement, resourceId: string, t: Transaction): Promise<void> {
  const claim = ctx.idempotency && !ctx.idempotency.committed ? ctx.idempotency : undefined;
  if (claim) claim.resourceId = resourceId;
  claimsCte(s, claim ? [claim] : []);
  try {
    await s.run(poolOf(ctx.prisma));
  } catch (err) {
    throw startError(err, t, claim);
  }
  if (claim) claimCommitted(claim);
}

/**
 * The one writer of a quote created PENDING (POST /quotes without immediatelyExecute; a real-time funded or
 * UMA quote): the quote and its transaction, a real-time quote's funding instructions, OUTGOING_PAYMENT.PENDING
 * and the request's Idempotency-Key record — one statement. Errors: 409 CONFLICT (the Idempotency-Key was taken).
 */
export async function insertPendingQuote(ctx: Ctx, pending: StartedPayment, instructions: ReadonlyArray<Record<string, unknown>>): Promise<StartedPayment> {
  await runClaimed(ctx, pendingQuoteStatement(ctx, pending, instructions), pending.quote.id, pending.transaction);
  return pending;
}

/**
 * insertPendingQuote's statement in the caller's transaction, for a quote whose creation also opens an SCA
 * challenge or starts an agent's payment (the transaction's commit writes the Idempotency-Key record: claimingDb).
 */
export async function insertPendingQuoteIn(ctx: Ctx, tx: RawRunner, pending: StartedPayment, instructions: ReadonlyArray<Record<string, unknown>>): Promise<Transaction> {
  await runIn(pendingQuoteStatement(ctx, pending, instructions), tx);
  return pending.transaction;
}

function pendingQuoteStatement(ctx: Ctx, pending: StartedPayment, instructions: ReadonlyArray<Record<string, unknown>>): OneStatement {
  const s = new OneStatement();
  s.insert('q', 'quotes', [pending.quote]);
  s.insert('t', 'transactions', [pending.transaction]);
  s.insert('fi', 'funding_instructions', instructions);
  transactionEventsCte(s, ctx.platformId, [pending.transaction]);
  return s;
}

/**
 * CTEs of started payments of one platform: their events (`tev`), then their hold journals with the
 * balances moved once per account (journalsCtes, after CTE `after` when given).
 */
function startCtes(s: OneStatement, platformId: string, list: Array<{ started: { transaction: Transaction }; eventStates: Transaction[] }>, after?: string): void {
  transactionEventsCte(s, platformId, list.flatMap((i) => i.eventStates));
  let at = list[0]!.started.transaction.updatedAt;
  for (const { started } of list) if (started.transaction.updatedAt > at) at = started.transaction.updatedAt;
  journalsCtes(s, {
    platformId,
    at,
    prefix: 'hold',
    after: after ? [after] : [],
    journals: list.map(({ started: { transaction: t } }) => holdJournal(t)),
  });
}

/**
 * How an incoming payment (it has no quote) is written when it arrives: its row inserted in the status it
 * reached, the history rows of the moves that led there (as transition() writes them: insertedMovesCte), its
 * events in order, and, when its money arrives at once, the credit journal with its balance moves and their events:
 *   credited at once (a UMA credit, a sandbox pull, a collection)   COMPLETED   execute, complete   .COMPLETED             credit journal
 *   paid out to the customer's UMA deposit account (worker submits)  PROCESSING  execute             .PENDING, .PROCESSING
 *   waiting for its platform's approval (REF's handshake)            PENDING     receive             .PENDING, in the flow
 *   refused on arrival (a collection on a FROZEN account)            FAILED      execute, fail       .FAILED
 */
export interface IncomingArrival {
  row: Transaction;
  moves: readonly TransactionEvent[];
  /** The history rows' reason (a refusal's failure reason). */
  reason?: string;
  /** The states its events announce, in order; default the row's. */
  eventStates?: Transaction[];
  journal?: { key: string; kind: string; postings: Posting[] };
  /** Its event is delivered by the caller, in the flow (PaymentEvents.inFlow). */
  inFlow?: PaymentEvents['inFlow'];
}

/**
 * The one writer of an incoming payment's arrival, on its own (autocommit) with the request's
 * Idempotency-Key record — one statement. Returns the ids of its events, in order.
 * Errors: 409 CONFLICT (the Idempotency-Key was taken).
 */
export async function insertIncoming(ctx: Ctx, a: IncomingArrival): Promise<string[]> {
  const { s, eventIds } = arrivalStatement(ctx, a);
  await runClaimed(ctx, s, a.row.id, a.row);
  return eventIds;
}

/** insertIncoming's statement in the caller's transaction (with what else commits with it: why a refused collection's money is held). */
export async function insertIncomingIn(ctx: Ctx, tx: RawRunner, a: IncomingArrival): Promise<void> {
  await runIn(arrivalStatement(ctx, a).s, tx);
}

function arrivalStatement(ctx: Ctx, a: IncomingArrival): { s: OneStatement; eventIds: string[] } {
  const { row } = a;
  const s = new OneStatement();
  s.insert('t', 'transactions', [row]);
  insertedMovesCte(s, 'h', ctx.platformId, [{ machine: transactionStatus.machine, resourceId: row.id, events: a.moves, at: row.updatedAt, reason: a.reason ?? null }]);
  if (a.journal) journalsCtes(s, { platformId: ctx.platformId, at: row.updatedAt, prefix: 'credit', after: [], journals: [{ ...a.journal, referenceId: row.id }] });
  const eventIds = transactionEventsCte(s, ctx.platformId, a.eventStates ?? [row], a.inFlow ? { inFlow: a.inFlow } : {});
  return { s, eventIds };
}

/** Why an agent's payment waits (A17), as its transaction's pendingReason says. */
const AWAITING_PLATFORM = 'PLATFORM_APPROVAL';

/**
 * The one writer of an agent's payment that waits for its platform's approval (A17: above the agent's approval
 * threshold), in the caller's transaction (with the agent's counted usage and its action): the transaction, still
 * PENDING and not waiting yet, takes the agent's fields and pendingReason PLATFORM_APPROVAL (no status move, so no
 * history row), its quote stays valid for the approval window (`windowMs`) from `requestedAt` (when the usage was
 * counted), and OUTGOING_PAYMENT.PENDING announces it — one statement. Nothing is held until the approval starts
 * it (startPaymentIn). Errors: 409 QUOTE_NOT_PENDING (executed meanwhile, or waiting already).
 */
export async function awaitApprovalIn(ctx: Ctx, tx: RawRunner, t: Transaction, wait: { agentId: string; agentCountedAmount: bigint; requestedAt: Date; windowMs: number }): Promise<Transaction> {
  const now = wait.requestedAt;
  const waiting: Transaction = { ...t, agentId: wait.agentId, agentCountedAmount: wait.agentCountedAmount, pendingReason: AWAITING_PLATFORM, approvalRequestedAt: now, updatedAt: now };
  const s = new OneStatement();
  const [platform, at] = [s.param(ctx.platformId), s.param(now)];
  s.with(
    'wait',
    `UPDATE "transactions" SET "agent_id" = ${s.param(wait.agentId)}::text, "agent_counted_amount" = ${s.param(wait.agentCountedAmount)}::bigint,
            "pending_reason" = ${s.param(AWAITING_PLATFORM)}::text, "approval_requested_at" = ${at}::timestamptz, "updated_at" = ${at}::timestamptz
      WHERE "platform_id" = ${platform}::uuid AND "id" = ${s.param(t.id)}::text AND "status" = 'PENDING' AND "pending_reason" IS NULL RETURNING 1`,
  );
  s.require('wait', 1, 'QUOTE_NOT_PENDING');
  if (t.quoteId) {
    s.with('wait_quote', `UPDATE "quotes" SET "expires_at" = ${s.param(new Date(now.getTime() + wait.windowMs))}::timestamptz, "updated_at" = ${at}::timestamptz
      WHERE "platform_id" = ${platform}::uuid AND "id" = ${s.param(t.quoteId)}::text AND EXISTS (SELECT 1 FROM "wait") RETURNING 1`);
  }
  transactionEventsCte(s, ctx.platformId, [waiting]);
  try {
    await runIn(s, tx);
  } catch (err) {
    if (err instanceof OneStatementRefused && err.code === 'QUOTE_NOT_PENDING') throw new ConflictError('QUOTE_NOT_PENDING', 'The quote was already executed.');
    throw err;
  }
  return waiting;
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
      {
        ...t,
        status: 'COMPLETED',
        settledAt: now,
        updatedAt: now,
        pendingReason: null,
        railReference: fresh ? fresh.reference : t.railReference,
        submittedAt: fresh ? fresh.submittedAt : t.submittedAt,
        reconcileAfter: fresh ? fresh.reconcileAfter : t.reconcileAfter,
      },
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
    journals: list.map(({ t, postings }) => settleJournal(t, postings)),
  });
  transactionEventsCte(s, ctx.platformId, settled);
  return s;
}

/**
 * The batched submission's claim (issue 12): marks `submitted_at` on each listed payment still
 * PROCESSING, paid out to an external account, not yet submitted (no rail reference) and not claimed
 * before, and returns those rows — the claim submitPayment takes one payment at a time, for many
 * in one statement. A payment not returned is left to submitPayment's own path. Rows are found by key
 * only (checkedAfterKeyLookup, as transitionManyCtes does): never a scan of the unsubmitted ones; the
 * keys planned for any value (plannedForAnyValue: one generic plan for every batch size). One platform per statement (issue 29, 29a), named with a
 * plain `platform_id = $2` a planner prunes partitions and shards on.
 */
export async function claimSubmissions(pool: pg.Pool, platformId: string, transactionIds: readonly string[], now: Date): Promise<Transaction[]> {
  const r = await query(
    pool,
    `UPDATE transactions t SET submitted_at = $1
      WHERE t.platform_id = $2 AND t.id = ANY(${plannedForAnyValue('$3', 'text[]')})
        AND ${checkedAfterKeyLookup(`t.status = 'PROCESSING' AND t.destination_kind = 'EXTERNAL' AND t.rail_reference IS NULL AND t.submitted_at IS NULL`)}
      RETURNING t.*`,
    [now, platformId, [...transactionIds]],
  );
  return modelRows<Transaction>(r);
}

/** A rail's reference to store on a submitted payment (recordSubmissions). */
export interface SubmissionRecord extends RailSubmission {
  transactionId: string;
}

/**
 * The one writer of a submission's record (issue 24h): the rail's reference, when it was submitted and its
 * check schedule (`reconcile_after`) on each listed payment of ONE platform that has no reference yet (a report
 * pushed before the submission's answer may have stored it: kept), in one statement for the lot. Returns the
 * status of each payment recorded, by id; one not returned already had a reference. Rows are found by key only
 * (plannedForAnyValue, checkedAfterKeyLookup), one platform named with a plain `platform_id = $1` (issue 29).
 */
export async function recordSubmissions(pool: pg.Pool, platformId: string, records: readonly SubmissionRecord[]): Promise<Map<string, string>> {
  if (records.length === 0) return new Map();
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  const r = await query<{ id: string; status: string }>(
    pool,
    `UPDATE transactions t SET rail_reference = m.ref, submitted_at = m.submitted_at, reconcile_after = m.reconcile_after
       FROM unnest(${plannedForAnyValue('$2', 'text[]')}, ${plannedForAnyValue('$3', 'text[]')}, ${plannedForAnyValue('$4', 'timestamptz[]')}, ${plannedForAnyValue('$5', 'timestamptz[]')}) AS m(id, ref, submitted_at, reconcile_after)
      WHERE t.platform_id = $1 AND t.id = ANY(${plannedForAnyValue('$2', 'text[]')}) AND t.id = m.id AND ${checkedAfterKeyLookup('t.rail_reference IS NULL')}
      RETURNING t.id, t.status`,
    [platformId, records.map((x) => x.transactionId), records.map((x) => x.reference), records.map((x) => iso(x.submittedAt)), records.map((x) => iso(x.reconcileAfter))],
  );
  return new Map(r.rows.map((row) => [row.id, row.status]));
}

/**
 * The one writer of a completed refund, one statement: the refund's compare-and-set PENDING → COMPLETED
 * (transition()'s `complete` of the refund lifecycle, with its history row), its journal (a release or a
 * return: refundJournal, payment-postings.ts) with the balance moves and their events, then
 * <PREFIX>.REFUND_COMPLETED. A refund no longer PENDING (completed or failed by another run) is left
 * alone (false). Errors: 400 INSUFFICIENT_FUNDS (a bucket would go negative; nothing written).
 */
export async function completeRefund(ctx: Ctx, t: Transaction, journal: PaymentJournal): Promise<boolean> {
  const now = ctx.clock.now();
  const s = new OneStatement();
  transitionCtes(s, ctx, refundStatus, 'complete', t.id, { name: 'rf', set: { updatedAt: now, refundSettledAt: now } });
  s.require('rf', 1, 'REFUND_NOT_PENDING');
  journalsCtes(s, { platformId: ctx.platformId, at: now, prefix: 'refund', after: ['rf'], journals: [journal] });
  const refunded: Transaction = { ...t, refundStatus: 'COMPLETED', refundSettledAt: now, updatedAt: now };
  transactionEventsCte(s, ctx.platformId, [refunded], { status: (r) => `REFUND_${r.refundStatus}` });
  try {
    await s.run(poolOf(ctx.prisma));
    return true;
  } catch (err) {
    if (err instanceof OneStatementRefused && err.code === 'REFUND_NOT_PENDING') return false;
    throw startError(err, t, undefined);
  }
}
