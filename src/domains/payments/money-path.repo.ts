import type { Ctx } from '../../deps.js';
import { poolOf } from '../../platform/db.js';
import { newId } from '../../platform/ids.js';
import { toJson } from '../../platform/outbox.js';
import { OneStatement, OneStatementRefused } from '../../platform/one-statement.js';
import { claimCommitted, claimInsertSql, claimTaken } from '../../platform/idempotency.js';
import type { Quote, Transaction } from '../../generated/prisma/client.js';
import { InsufficientFundsError, internalAccountResource } from '../ledger/index.js';
import { internalAccountType } from '../ledger/ledger.model.js';
import { holdPostings } from '../transactions/settlement.service.js';
import { transactionResource } from '../transactions/transactions.resource.js';

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
  holdCte(ctx, s, started.transaction);
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
  const pid = s.param(ctx.platformId);
  s.with(
    'cas',
    `UPDATE transactions SET status = 'PROCESSING', updated_at = ${s.param(now)}::timestamptz
      WHERE id = ${s.param(pending.transaction.id)} AND platform_id = ${pid} AND status = 'PENDING' AND pending_reason IS NULL
      RETURNING id`,
  ).require('cas', 1, 'QUOTE_NOT_PENDING');
  s.with(
    'qu',
    `UPDATE quotes SET status = 'PROCESSING', updated_at = ${s.param(now)}::timestamptz, executed_at = ${s.param(now)}::timestamptz
      WHERE id = ${s.param(pending.quote.id)} AND platform_id = ${pid} AND EXISTS (SELECT 1 FROM cas)
      RETURNING id`,
  );
  holdCte(ctx, s, started.transaction, 'cas');
  return runStart(ctx, s, started, [started.transaction]);
}

function startedRows(ctx: Ctx, pending: StartedPayment): StartedPayment {
  const now = ctx.clock.now();
  return {
    transaction: { ...pending.transaction, status: 'PROCESSING', updatedAt: now },
    quote: { ...pending.quote, status: 'PROCESSING', executedAt: now, updatedAt: now },
  };
}

/**
 * CTE `hold`: available → held on the source account, only when the available balance covers it
 * (and, with `after`, only once CTE `after` returned a row, so the row locks are taken in that order).
 */
function holdCte(ctx: Ctx, s: OneStatement, t: Transaction, after?: string): void {
  const amount = s.param(t.sentAmount);
  s.with(
    'hold',
    `UPDATE internal_accounts SET available_balance = available_balance - ${amount}::bigint, held_balance = held_balance + ${amount}::bigint, updated_at = ${s.param(t.updatedAt)}::timestamptz
      WHERE id = ${s.param(t.sourceAccountId)} AND platform_id = ${s.param(ctx.platformId)} AND currency = ${s.param(t.sendingCurrency)} AND status = 'ACTIVE'
        AND available_balance >= ${amount}::bigint${after ? ` AND EXISTS (SELECT 1 FROM ${after})` : ''}
      RETURNING available_balance, held_balance, created_at`,
  ).require('hold', 1, 'INSUFFICIENT_FUNDS');
}

/** Journal, entries, history and outbox rows of a started payment, then the statement itself. */
async function runStart(ctx: Ctx, s: OneStatement, started: StartedPayment, eventStates: Transaction[]): Promise<StartedPayment> {
  const t = started.transaction;
  const now = t.updatedAt;
  const journalId = newId('Journal');
  s.insert('j', 'ledger_journals', [{ id: journalId, platformId: ctx.platformId, idempotencyKey: `${t.id}:hold`, kind: 'PAYMENT_HOLD', referenceId: t.id, createdAt: now }]);
  s.insert('e', 'ledger_entries', holdPostings(t).map((p) => ({ id: newId('LedgerEntry'), platformId: ctx.platformId, journalId, account: p.account, bucket: p.bucket, currency: p.currency, amount: p.amount, createdAt: now })));
  s.insert('h', 'transaction_status_changes', [{ id: newId('Request').replace('Request:', 'TxChange:'), platformId: ctx.platformId, transactionId: t.id, field: 'status', fromStatus: 'PENDING', toStatus: 'PROCESSING', createdAt: now }]);
  balanceEventCte(ctx, s, t, eventStates);
  const claim = ctx.idempotency && !ctx.idempotency.committed ? ctx.idempotency : undefined;
  if (claim) {
    claim.resourceId = started.quote.id;
    s.with('idem', claimInsertSql(claim, (v) => s.param(v), new Date())).require('idem', 1, 'IDEMPOTENCY_KEY_TAKEN');
  }
  try {
    await s.run(poolOf(ctx.prisma));
  } catch (err) {
    if (err instanceof OneStatementRefused && err.code === 'INSUFFICIENT_FUNDS') throw new InsufficientFundsError(t.sourceAccountId);
    if (err instanceof OneStatementRefused && err.code === 'QUOTE_NOT_PENDING') throw Object.assign(new Error('QUOTE_NOT_PENDING'), { code: 'INVALID_STATE_TRANSITION' });
    if (err instanceof OneStatementRefused && err.code === 'IDEMPOTENCY_KEY_TAKEN' && claim) claimTaken(claim);
    throw err;
  }
  if (claim) claimCommitted(claim);
  return started;
}

/**
 * CTE `ev`: the transaction's events (one per state in `states`, in order) and the source account's
 * INTERNAL_ACCOUNT.BALANCE_UPDATED, built from the resource with the balances and creation time the
 * hold returned (the account is not read: its other fields follow from the payment).
 */
function balanceEventCte(ctx: Ctx, s: OneStatement, t: Transaction, states: Transaction[]): void {
  const rows = states.map((state) => ({ id: newId('Webhook'), platform_id: ctx.platformId, type: `OUTGOING_PAYMENT.${state.status}`, data: toJson(transactionResource(state)) }));
  const template = toJson(
    internalAccountResource({
      id: t.sourceAccountId,
      platformId: ctx.platformId,
      customerId: t.customerId,
      ownerKey: t.customerId ?? 'PLATFORM',
      currency: t.sendingCurrency,
      type: internalAccountType(t.sendingCurrency),
      status: 'ACTIVE',
      availableBalance: 0n,
      heldBalance: 0n,
      createdAt: t.updatedAt,
      updatedAt: t.updatedAt,
    }),
  );
  s.with(
    'ev',
    `INSERT INTO webhook_events (id, platform_id, type, data)
       SELECT id, platform_id, type, data FROM json_populate_recordset(NULL::webhook_events, ${s.param(JSON.stringify(rows))}::json)
       UNION ALL
       SELECT ${s.param(newId('Webhook'))}, ${s.param(ctx.platformId)}, 'INTERNAL_ACCOUNT.BALANCE_UPDATED',
              jsonb_set(jsonb_set(jsonb_set(${s.param(JSON.stringify(template))}::jsonb,
                '{balance,amount}', to_jsonb(hold.available_balance)),
                '{totalBalance,amount}', to_jsonb(hold.available_balance + hold.held_balance)),
                '{createdAt}', to_jsonb(to_char(hold.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
         FROM hold`,
  );
}
