import { ConflictError } from '../../platform/errors.js';
import type { Ctx } from '../../deps.js';
import type pg from 'pg';
import { poolOf, query } from '../../platform/db.js';
import { modelRows } from '../../platform/raw-rows.js';
import { checkedAfterKeyLookup, keysPlannedAsOne } from '../../platform/sql/planner.js';
import { newId } from '../../platform/ids.js';
import { merged } from '../../platform/objects.js';
import { jsonText } from '../../platform/outbox.js';
import { JsonText, OneStatement, OneStatementRefused, runIn, type RawRunner } from '../../platform/one-statement.js';
import { IllegalTransitionError, transitionCtes, transitionManyCtes, type SetColumns } from '../../platform/state-machine.js';
import { Prisma } from '../../generated/prisma/client.js';
import { claimCommitted, claimsInsertSql, takenError, type IdempotencyClaim } from '../../platform/idempotency.js';
import type { Quote, Transaction } from '../../generated/prisma/client.js';
import { InsufficientFundsError, journalsCtes, type Posting } from '../ledger/index.js';
import { holdPostings } from './payment-postings.js';
import { transactionResource } from './transactions.resource.js';
import { eventPrefix, quoteStatus, transactionStatus } from './transactions.repo.js';
import { transactionLifecycle, transactionTransitions } from './transactions.model.js';

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
 * The payments a process starts in one turn of its event loop (concurrent requests) are written by ONE
 * statement (startInserted): one transaction, one commit and one plan for the lot instead of one each —
 * the fixed cost of a statement (executor start, constraint expressions, commit, round trip) was a
 * third of Postgres's work per payment. A refused batch (one payment short of funds, a key taken)
 * wrote nothing, and its payments are then written one by one, each refusal its own request's error.
 * Errors: 400 INSUFFICIENT_FUNDS (nothing written); 409 CONFLICT (the Idempotency-Key was taken).
 */
export async function insertStartedPayment(ctx: Ctx, pending: StartedPayment): Promise<StartedPayment> {
  const started = startedRows(ctx, pending);
  const claim = ctx.idempotency && !ctx.idempotency.committed ? ctx.idempotency : undefined;
  if (claim) claim.resourceId = started.quote.id;
  await new Promise<void>((resolve, reject) => queueStart(poolOf(ctx.prisma), { ctx, pending, started, claim, resolve, reject }));
  return started;
}

/** A payment insertStartedPayment writes, and its request's answer. */
interface InsertedStart {
  ctx: Ctx;
  pending: StartedPayment;
  started: StartedPayment;
  claim?: IdempotencyClaim;
  resolve(): void;
  reject(err: Error): void;
}

/** The payments queued in this turn of the event loop, per pool; written at setImmediate. */
const queuedStarts = new Map<pg.Pool, InsertedStart[]>();

function queueStart(pool: pg.Pool, item: InsertedStart): void {
  const queued = queuedStarts.get(pool);
  if (queued) return void queued.push(item);
  queuedStarts.set(pool, [item]);
  setImmediate(() => {
    const items = queuedStarts.get(pool)!;
    queuedStarts.delete(pool);
    // One statement per platform (a statement's rows are one platform's), side by side; each request is
    // answered as soon as its own payment is written or refused, not after the other platforms'.
    const byPlatform = new Map<string, InsertedStart[]>();
    for (const i of items) {
      const list = byPlatform.get(i.ctx.platformId);
      if (list) list.push(i);
      else byPlatform.set(i.ctx.platformId, [i]);
    }
    for (const list of byPlatform.values()) {
      for (let at = 0; at < list.length; at += STARTS_PER_STATEMENT) {
        const batch = list.slice(at, at + STARTS_PER_STATEMENT);
        startInserted(pool, batch).catch((err: Error) => batch.forEach((i) => i.reject(err)));
      }
    }
  });
}

/** At most this many payments per statement. */
const STARTS_PER_STATEMENT = 32;

/**
 * Writes payments of one platform, together when there are several, answering each request. A refused
 * batch (a guard failed) or one Postgres rejected (an Idempotency-Key twice in the batch) wrote nothing:
 * each payment is then written on its own, one after the other.
 */
async function startInserted(pool: pg.Pool, list: InsertedStart[]): Promise<void> {
  const one = async (i: InsertedStart): Promise<void> => {
    try {
      await insertStatement([i]).run(pool);
    } catch (err) {
      return i.reject(startError(err, i.started.transaction, i.claim));
    }
    if (i.claim) claimCommitted(i.claim);
    i.resolve();
  };
  if (list.length === 1) return one(list[0]!);
  try {
    await insertStatement(list).run(pool);
  } catch (err) {
    if (!(err instanceof OneStatementRefused) && !isSqlError(err)) return list.forEach((i) => i.reject(err as Error));
    // In the order they were asked for: each gets the answer it would have had alone, first come first served.
    for (const i of list) await one(i);
    return;
  }
  for (const i of list) {
    if (i.claim) claimCommitted(i.claim);
    i.resolve();
  }
}

/**
 * An error Postgres answered the statement with (a SQLSTATE), not a lost or refused connection (08, 53)
 * or a cancelled statement (57): those would only fail again, once per payment.
 */
function isSqlError(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !['08', '53', '57'].includes(code.slice(0, 2));
}

/** The statement writing `list` (payments of one platform) inserted PROCESSING: the same text for any number of them. */
function insertStatement(list: InsertedStart[]): OneStatement {
  const s = new OneStatement();
  s.insert('q', 'quotes', list.map((i) => i.started.quote));
  s.insert('t', 'transactions', list.map((i) => i.started.transaction));
  startCtes(s, list[0]!.ctx.platformId, list.map((i) => ({ started: i.started, eventStates: [i.pending.transaction, i.started.transaction] })));
  // A quote inserted already PROCESSING has no compare-and-set: its history rows are written as such.
  insertedHistoryCte(s, list[0]!.ctx.platformId, list.map((i) => i.started.transaction));
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
}

/**
 * The one writer of a payment's start inside the caller's database transaction (with what else commits
 * with it: a consumed SCA challenge, an agent's counted usage, a recorded deposit, an incoming payment's
 * row): the same statement as startPendingPayment's — compare-and-set of the transaction and its quote
 * with their history rows, the <PREFIX>.PROCESSING event, the hold journal with its balance moves and
 * events — run on the transaction. Returns the started transaction.
 * Errors: 400 INSUFFICIENT_FUNDS; 409 INVALID_STATE_TRANSITION (a lost race or an illegal move: the caller maps it).
 */
export async function startPaymentIn(ctx: Ctx, tx: RawRunner, t: Transaction, move: StartMove): Promise<Transaction> {
  const now = ctx.clock.now();
  const started: Transaction = { ...t, ...move.set, status: 'PROCESSING', pendingReason: null, updatedAt: now };
  const s = new OneStatement();
  startMoveCtes(s, ctx, started, move);
  if (move.hold) startCtes(s, ctx.platformId, [{ started: { transaction: started }, eventStates: [started] }], 'cas');
  else transactionEventsCte(s, ctx.platformId, [started]);
  try {
    await runIn(s, tx);
  } catch (err) {
    if (err instanceof OneStatementRefused && err.code === 'INSUFFICIENT_FUNDS') throw new InsufficientFundsError(t.sourceAccountId);
    if (err instanceof OneStatementRefused && err.code === 'QUOTE_NOT_PENDING') throw new IllegalTransitionError(transactionLifecycle, move.event, t.status, t.id);
    throw err;
  }
  return started;
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
    transaction: merged(pending.transaction, { status: 'PROCESSING' as const, updatedAt: now }),
    quote: merged(pending.quote, { status: 'PROCESSING' as const, executedAt: now, updatedAt: now }),
  };
}

/** Journal, entries and outbox rows of a started payment and its Idempotency-Key record, then the statement itself. */
async function runStart(ctx: Ctx, s: OneStatement, started: StartedPayment, eventStates: Transaction[], after: string): Promise<StartedPayment> {
  startCtes(s, ctx.platformId, [{ started, eventStates }], after);
  const claim = ctx.idempotency && !ctx.idempotency.committed ? ctx.idempotency : undefined;
  if (claim) claim.resourceId = started.quote.id;
  claimsCte(s, claim ? [claim] : []);
  try {
    await s.run(poolOf(ctx.prisma));
  } catch (err) {
    throw startError(err, started.transaction, claim);
  }
  if (claim) claimCommitted(claim);
  return started;
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
    journals: list.map(({ started: { transaction: t } }) => ({ key: `${t.id}:hold`, kind: 'PAYMENT_HOLD', referenceId: t.id, postings: holdPostings(t) })),
  });
}

/** CTE `tev`: the transaction's events, one per state in `states`, in order. */
function transactionEventsCte(s: OneStatement, platformId: string, states: Transaction[]): void {
  s.insert('tev', 'webhook_events', states.map((state) => ({ id: newId('Webhook'), platformId, type: `${eventPrefix(state)}.${state.status}`, data: new JsonText(jsonText(transactionResource(state))) })));
}

/**
 * CTE `h`: the status_changes rows of payments inserted PROCESSING (each quote created and executed at
 * once), the `execute` moves of each transaction and its quote as transition() writes them elsewhere.
 */
function insertedHistoryCte(s: OneStatement, platformId: string, list: Transaction[]): void {
  const move = transactionTransitions.execute;
  const moved = list.flatMap((t) => [{ machine: transactionStatus.machine, resourceId: t.id, at: t.updatedAt }, ...(t.quoteId ? [{ machine: quoteStatus.machine, resourceId: t.quoteId, at: t.updatedAt }] : [])]);
  s.insert('h', 'status_changes', moved.map((m) => ({ id: newId('StatusChange'), platformId, machine: m.machine, resourceId: m.resourceId, event: 'execute', fromStatus: move.from[0], toStatus: move.to, createdAt: m.at })));
}

/**
 * The one writer of an incoming payment credited at once (a UMA payment to a customer without a payout
 * account, a sandbox pull of POST /transfer-in): the transaction inserted COMPLETED with the history of
 * its moves (execute, complete), its credit journal with the balance moves and their events, then
 * INCOMING_PAYMENT.COMPLETED, and the request's Idempotency-Key record — one statement.
 * Errors: 409 CONFLICT (the Idempotency-Key was taken).
 */
export async function insertCreditedIncoming(ctx: Ctx, t: Transaction, journal: { key: string; kind: string; postings: Posting[] }): Promise<Transaction> {
  const s = new OneStatement();
  s.insert('t', 'transactions', [t]);
  const moves = (['execute', 'complete'] as const).map((event) => ({ id: newId('StatusChange'), platformId: ctx.platformId, machine: transactionStatus.machine, resourceId: t.id, event, fromStatus: transactionTransitions[event].from[0], toStatus: transactionTransitions[event].to, createdAt: t.updatedAt }));
  s.insert('h', 'status_changes', moves);
  journalsCtes(s, { platformId: ctx.platformId, at: t.updatedAt, prefix: 'credit', after: [], journals: [{ ...journal, referenceId: t.id }] });
  transactionEventsCte(s, ctx.platformId, [t]);
  const claim = ctx.idempotency && !ctx.idempotency.committed ? ctx.idempotency : undefined;
  if (claim) claim.resourceId = t.id;
  claimsCte(s, claim ? [claim] : []);
  try {
    await s.run(poolOf(ctx.prisma));
  } catch (err) {
    throw startError(err, t, claim);
  }
  if (claim) claimCommitted(claim);
  return t;
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
  transactionEventsCte(s, ctx.platformId, settled);
  return s;
}

/**
 * The batched submission's claim (issue 12): marks `submitted_at` on each listed payment still
 * PROCESSING, paid out to an external account, not yet submitted (no rail reference) and not claimed
 * before, and returns those rows — the claim submitPayment takes one payment at a time, for many
 * in one statement. A payment not returned is left to submitPayment's own path. Rows are found by key
 * only (checkedAfterKeyLookup, as transitionManyCtes does): never a scan of the unsubmitted ones; the
 * keys are planned as one row (keysPlannedAsOne); each row's platform is the one listed at its id's position.
 */
export async function claimSubmissions(pool: pg.Pool, items: ReadonlyArray<{ platformId: string; transactionId: string }>, now: Date): Promise<Transaction[]> {
  const r = await query(
    pool,
    `UPDATE transactions t SET submitted_at = $1
      WHERE t.platform_id = ANY($2::text[]) AND t.id = ANY(${keysPlannedAsOne('$3::text[]')})
        AND ${checkedAfterKeyLookup(`t.platform_id = ($2::text[])[array_position($3::text[], t.id)] AND t.status = 'PROCESSING' AND t.destination_kind = 'EXTERNAL' AND t.rail_reference IS NULL AND t.submitted_at IS NULL`)}
      RETURNING t.*`,
    [now, items.map((i) => i.platformId), items.map((i) => i.transactionId)],
  );
  return modelRows<Transaction>(r);
}
