import type { CardTransaction } from '../../generated/prisma/client.js';
import type { Ctx } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { newId, newUuid, resourceKey } from '../../platform/ids.js';
import { recordEvent } from '../../platform/outbox.js';
import { statusColumn, transition } from '../../platform/state-machine.js';
import { gatedJournalCtes, postJournal, systemAccount, type Posting } from '../ledger/index.js';
import { JsonText, OneStatement } from '../../platform/one-statement.js';
import { AUTHORIZATION_FACTS_FROM, AUTHORIZATION_FINGERPRINT_SQL } from './card-authorization.repo.js';
import { poolOf } from '../../platform/db.js';
import type { CardMessageKind, CardMerchant } from '../../adapters/card-issuer/port.js';
import {
  CARD_TRANSACTION_EVENT, cardTransactionLifecycle, cardTransactionTransitions, fundingPiece, isCredit, isFinancial, toFunding,
  type CardTransactionEvent, type DeclineReason, type MerchantMagic,
} from './card-transactions.model.js';
import { cardTransactionResource } from './card-transactions.resource.js';

/**
 * The one writer of each card money operation (house style "One writer per money operation"; issue 27):
 * authorize, advise (resize the hold), clear, release, return, reverse a return, credit, and book an
 * exception. Each runs inside the caller's transaction and writes together the card transaction row, its
 * journal (through the ledger's postJournal), its status history (transition()) and its CARD_TRANSACTION
 * event. Events are applied once per processor event token (card_events' unique key), so a repeated
 * delivery finds its token taken and writes nothing.
 *
 * Accounts (funding currency F): the funding source A (AVAILABLE/HELD), the card network's settlement
 * account `system:CARD_SETTLEMENT:F` (what the service owes, then pays, the network) and the platform
 * receivable `system:CARD_RECEIVABLE:F` (money the network was paid that the funding source did not give).
 */
const binding = statusColumn(cardTransactionLifecycle, 'card_transactions', 'status');
const settlementAccount = (currency: string) => systemAccount('CARD_SETTLEMENT', currency);
const receivableAccount = (currency: string) => systemAccount('CARD_RECEIVABLE', currency);

const avail = (account: string, currency: string, amount: bigint): Posting => ({ account, bucket: 'AVAILABLE', currency, amount });
const held = (account: string, currency: string, amount: bigint): Posting => ({ account, bucket: 'HELD', currency, amount });
const system = (account: string, currency: string, amount: bigint): Posting => ({ account, bucket: 'SYSTEM', currency, amount });

async function journal(ctx: Ctx, tx: TenantTx, row: CardTransaction, key: string, kind: string, postings: Posting[]): Promise<void> {
  await postJournal(ctx, tx, { key: `card:${row.id}:${key}`, kind, referenceId: row.id, postings });
}

/** Changes the row: through transition() when the status moves (history + event), else a plain update. */
async function save(ctx: Ctx, tx: TenantTx, row: CardTransaction, set: Record<string, unknown>, event?: CardTransactionEvent, reason?: string): Promise<CardTransaction> {
  const now = ctx.clock.now();
  if (event && row.status !== cardTransactionTransitions[event].to) {
    return transition(tx, ctx, binding, event, row.id, {
      from: row.status,
      set: { ...set, lastEventAt: now } as never,
      reason: reason ?? null,
      events: (moved) => {
        const type = CARD_TRANSACTION_EVENT[moved.status as keyof typeof CARD_TRANSACTION_EVENT];
        return type ? { type, data: cardTransactionResource(moved) } : null;
      },
    });
  }
  return tx.cardTransaction.update({ where: { platformId_id: { platformId: row.platformId, id: row.id } }, data: { ...set, lastEventAt: now, updatedAt: now } as never });
}

/** Records a processor event once; false when its token was applied (or refused) before. */
export async function claimCardEvent(ctx: Ctx, tx: TenantTx, e: { eventToken: string; cardId: string; cardTransactionId: string | null; type: string; amount?: bigint | null; outcome: string; reason?: string | null }): Promise<boolean> {
  const inserted = await tx.$executeRaw`
    INSERT INTO card_events (id, platform_id, card_id, card_transaction_id, event_token, type, amount, outcome, reason)
    VALUES (${newId('CardEvent')}, ${ctx.platformId}, ${e.cardId}, ${e.cardTransactionId}, ${e.eventToken}, ${e.type}, ${e.amount ?? null}, ${e.outcome}, ${e.reason ?? null})
    ON CONFLICT (platform_id, event_token) DO NOTHING`;
  return inserted === 1;
}

/** The row under lock for the rest of the transaction (events on one authorization apply one at a time). */
export async function lockCardTransaction(tx: TenantTx, platformId: string, issuerTransactionToken: string): Promise<CardTransaction | null> {
  const ids = await tx.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM card_transactions WHERE platform_id = ${platformId} AND issuer_transaction_token = ${issuerTransactionToken} FOR UPDATE`;
  if (ids.length === 0) return null;
  return tx.cardTransaction.findFirstOrThrow({ where: { id: ids[0]!.id } });
}

export interface NewCardTransaction {
  id: string;
  cardId: string;
  customerId: string;
  platformCustomerId: string;
  accountId: string;
  issuerTransactionToken: string;
  kind: CardMessageKind;
  merchant: CardMerchant;
  currency: string;
  fundingCurrency: string;
  exchangeRate: string;
  amount: bigint;
  magic: MerchantMagic;
  decline: DeclineReason | null;
}

/** The decided row as the authorization statement returns it (a row written now, or the token's earlier one). */
export interface DecidedAuthorization {
  id: string;
  status: string;
  declineReason: string | null;
  heldAmount: bigint;
  fundingCurrency: string;
}

/** STALE: the facts the decision rested on changed (card, cardholder, source, limits); nothing was written. */
export type AuthorizationWrite = { outcome: 'DECIDED'; decided: DecidedAuthorization; written: boolean } | { outcome: 'STALE' };

const DECIDED_COLUMNS = 'id, status, decline_reason, held_amount::text AS held_amount, funding_currency';

/** The card transaction row of decision `n` (approved when `n.decline` is null). */
function authorizationRow(ctx: Ctx, n: NewCardTransaction, now: Date): CardTransaction {
  const credit = isCredit(n.kind);
  const financial = isFinancial(n.kind);
  const funding = toFunding(n.amount, n.exchangeRate);
  const approved = n.decline === null;
  const delayed = n.magic === 'DELAYED_PULL' || n.magic === 'PULL_FAILS';
  const pulls = approved && !credit;
  return {
    id: n.id, platformId: ctx.platformId, cardId: n.cardId, customerId: n.customerId, platformCustomerId: n.platformCustomerId, accountId: n.accountId,
    issuerTransactionToken: n.issuerTransactionToken, kind: n.kind, status: !approved ? 'DECLINED' : financial ? 'SETTLED' : 'AUTHORIZED',
    declineReason: n.decline, direction: credit ? 'CREDIT' : 'DEBIT',
    merchantDescriptor: n.merchant.descriptor, merchantMcc: n.merchant.mcc ?? null, merchantCountry: n.merchant.country ?? null,
    currency: n.currency, fundingCurrency: n.fundingCurrency, exchangeRate: n.exchangeRate,
    authorizedAmount: approved ? n.amount : 0n,
    settledAmount: approved && financial ? n.amount : 0n,
    refundedAmount: 0n,
    heldAmount: pulls && !financial ? funding : 0n,
    pullCount: pulls ? 1 : 0, pullTotal: pulls ? funding : 0n,
    pullPendingCount: pulls && delayed ? 1 : 0,
    pullConfirmAt: pulls && n.magic === 'DELAYED_PULL' ? new Date(now.getTime() + ctx.config.SANDBOX_CARD_PULL_DELAY_MS) : null,
    pullFails: pulls && n.magic === 'PULL_FAILS',
    settlementCount: approved && financial ? 1 : 0, settlementTotal: approved && financial ? n.amount : 0n,
    refundCount: 0, refundTotal: 0n, exceptionAmount: 0n,
    expiresAt: pulls && !financial ? new Date(now.getTime() + ctx.config.CARD_AUTHORIZATION_EXPIRY_MS) : null,
    authorizedAt: now, lastEventAt: now, createdAt: now, updatedAt: now,
  };
}

/** Columns whose default (migration 20261206000000_card_spending) a decline's value equals: left out of its row. */
const DEFAULTED: ReadonlyArray<keyof CardTransaction> = [
  'settledAmount', 'refundedAmount', 'heldAmount', 'pullCount', 'pullTotal', 'pullPendingCount', 'pullConfirmAt', 'pullFails',
  'settlementCount', 'settlementTotal', 'refundCount', 'refundTotal', 'exceptionAmount', 'expiresAt',
];
const isDefault = (v: unknown) => v === 0n || v === 0 || v === false || v === null;

/** A decline's row without the columns it leaves at their defaults (zeros, no pull, no expiry): a smaller parameter (27c). */
function declineRow(row: CardTransaction): Record<string, unknown> {
  const out: Record<string, unknown> = { ...row };
  for (const k of DEFAULTED) if (isDefault(out[k])) out[k] = undefined;
  return out;
}

/** The status history row of a decided authorization (its first status), under the card transaction's key (30f). */
function historyRow(ctx: Ctx, row: CardTransaction): Record<string, unknown> {
  const approved = row.status !== 'DECLINED';
  return { id: newUuid(), platformId: ctx.platformId, machine: 'card_transaction', resourceId: resourceKey(row.id), event: approved ? 'authorize' : 'decline', fromStatus: null, toStatus: row.status, reason: row.declineReason, createdAt: row.createdAt };
}

/** The CARD_TRANSACTION events of an approval (a single-message one is settled at once: AUTHORIZED then SETTLED). */
function approvalEvents(ctx: Ctx, row: CardTransaction): Array<Record<string, unknown>> {
  const resource = new JsonText(JSON.stringify(cardTransactionResource(row)));
  const events = [{ id: newUuid(), platformId: ctx.platformId, type: 'CARD_TRANSACTION.AUTHORIZED', data: resource }];
  if (row.status === 'SETTLED') events.push({ id: newUuid(), platformId: ctx.platformId, type: 'CARD_TRANSACTION.SETTLED', data: resource });
  return events;
}

/**
 * An approval's statement writes one of two outcomes: the approval when the ledger took the hold, else the
 * INSUFFICIENT_FUNDS decline. Both rows go to ONE insert per table, each row kept by its own condition (read
 * from its status column), not one insert per outcome: every insert node of a statement opens its table's
 * indexes and takes their locks whether or not it writes a row, so a second card_transactions insert cost as
 * much executor start-up as the first (27d: 9 → 7 insert/update nodes, 44 → 35 index opens per approval).
 */
const eitherOutcome = (statusColumn: string, approved: string, declined: string) => `CASE WHEN ${statusColumn} = 'DECLINED' THEN ${declined} ELSE ${approved} END`;

/**
 * AUTHORIZE: the decision the network waits for, written by ONE statement — one round trip, committed
 * whole, no BEGIN/COMMIT (issue 27 item 4). The statement
 *   1. re-reads the facts the caller decided on (card state and currency, first funding source,
 *      cardholder KYC, spend caps: `authorizationFactsSql`) and compares their fingerprint with
 *      `fingerprint`: changed → STALE, nothing written (the caller decides again on fresh facts), so a
 *      cached read is never trusted beyond this check;
 *   2. finds the processor token's earlier row: a retried authorization gets its first answer and
 *      writes nothing (a concurrent duplicate loses on the unique index instead);
 *   3. for an approval, moves the balance through the ledger (gatedJournalCtes): a hold on the funding
 *      source (AVAILABLE → HELD), a single-message debit's settlement (AVAILABLE → network) or credit
 *      (network → AVAILABLE); a dual-message credit moves nothing until it clears. A balance that
 *      cannot cover it makes the same statement write the INSUFFICIENT_FUNDS decline instead;
 *   4. writes the card transaction row, its status history and (approved) its CARD_TRANSACTION events.
 * A decline moves nothing and keeps its reason. `fingerprint` null: no facts to re-check (a credit the
 * network already approved).
 */
export async function writeAuthorization(ctx: Ctx, n: NewCardTransaction, fingerprint: string | null): Promise<AuthorizationWrite> {
  const now = ctx.clock.now();
  const s = new OneStatement();
  const pid = s.param(ctx.platformId);
  s.with('seen', `SELECT ${DECIDED_COLUMNS} FROM card_transactions WHERE platform_id = ${pid} AND issuer_transaction_token = ${s.param(n.issuerTransactionToken)}`);
  if (fingerprint !== null) {
    s.with('facts', `SELECT ${AUTHORIZATION_FINGERPRINT_SQL} = ${s.param(fingerprint)} AS fresh ${AUTHORIZATION_FACTS_FROM} WHERE c.platform_id = ${pid} AND c.id = ${s.param(n.cardId)}`);
    s.with('go', 'SELECT 1 FROM facts WHERE fresh AND NOT EXISTS (SELECT 1 FROM seen)');
  } else {
    s.with('go', 'SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM seen)');
  }
  const go = 'EXISTS (SELECT 1 FROM go)';
  const row = authorizationRow(ctx, n, now);
  if (n.decline !== null) {
    s.insertIf('ct', 'card_transactions', [declineRow(row)], go, DECIDED_COLUMNS);
    s.insertIf('ct_h', 'status_changes', [historyRow(ctx, row)], go);
  } else {
    const credit = isCredit(n.kind);
    const financial = isFinancial(n.kind);
    const postings = authorizationPostings(n.accountId, n.fundingCurrency, toFunding(n.amount, n.exchangeRate), credit, financial);
    const posted = gatedJournalCtes(s, { platformId: ctx.platformId, key: `card:${row.id}:auth`, kind: journalKind(credit, financial), referenceId: row.id, postings, at: now, prefix: 'j', when: go });
    const short = authorizationRow(ctx, { ...n, decline: 'INSUFFICIENT_FUNDS' }, now);
    const shortOf = `${go} AND NOT ${posted}`;
    // Both rows whole (same columns): json_populate_recordset gives a column missing from one row NULL, not its default.
    s.insertIf('ct', 'card_transactions', [row, short], eitherOutcome('status', posted, shortOf), DECIDED_COLUMNS);
    s.insertIf('ct_h', 'status_changes', [historyRow(ctx, row), historyRow(ctx, short)], eitherOutcome('to_status', posted, shortOf));
    s.insertIf('ct_ev', 'webhook_events', approvalEvents(ctx, row), posted);
  }
  const written = 'SELECT * FROM ct';
  const [out] = await s.run<{ fresh: boolean | null; seen: boolean; decided: { id: string; status: string; decline_reason: string | null; held_amount: string; funding_currency: string } | null }>(
    poolOf(ctx.prisma),
    `${fingerprint !== null ? '(SELECT fresh FROM facts)' : 'true'} AS fresh, EXISTS (SELECT 1 FROM seen) AS seen,
     (SELECT row_to_json(d) FROM (SELECT * FROM seen UNION ALL ${written}) d LIMIT 1) AS decided`,
  );
  const d = out?.decided;
  if (!d) return { outcome: 'STALE' };
  return {
    outcome: 'DECIDED',
    written: !out.seen,
    decided: { id: d.id, status: d.status, declineReason: d.decline_reason, heldAmount: BigInt(d.held_amount), fundingCurrency: d.funding_currency },
  };
}

function authorizationPostings(a: string, f: string, funding: bigint, credit: boolean, financial: boolean): Posting[] {
  if (!credit && !financial) return [avail(a, f, -funding), held(a, f, funding)];
  if (!credit && financial) return [avail(a, f, -funding), system(settlementAccount(f), f, funding)];
  if (credit && financial) return [system(settlementAccount(f), f, -funding), avail(a, f, funding)];
  return [];
}
const journalKind = (credit: boolean, financial: boolean) => (credit ? (financial ? 'CARD_FINANCIAL_CREDIT' : 'CARD_CREDIT') : financial ? 'CARD_FINANCIAL_DEBIT' : 'CARD_AUTHORIZATION_HOLD');

/**
 * ADVISE: the network's new total for an open authorization; the hold follows it (grows by what the
 * funding source still has available — an advice is a fact, not a question — or shrinks).
 */
export async function writeAdvice(ctx: Ctx, tx: TenantTx, row: CardTransaction, eventToken: string, newTotal: bigint, available: bigint): Promise<CardTransaction> {
  const target = toFunding(newTotal, row.exchangeRate);
  const current = row.heldAmount;
  let delta = target - current;
  if (delta > available) delta = available;
  if (delta < -current) delta = -current;
  await journal(ctx, tx, row, `advice:${eventToken}`, 'CARD_AUTHORIZATION_ADVICE', [avail(row.accountId, row.fundingCurrency, -delta), held(row.accountId, row.fundingCurrency, delta)]);
  return save(ctx, tx, row, { authorizedAmount: newTotal, heldAmount: current + delta, pullTotal: row.pullTotal + delta });
}

/**
 * CLEAR: settles `amount` (transaction currency) to the card network: first from the hold, and what
 * exceeds the hold (over-authorization, tips) as a post-hoc pull from the available balance; a post-hoc
 * pull the balance cannot cover is booked against the platform receivable (EXCEPTION). A credit's
 * clearing credits the cardholder. A sandbox `006` pull fails its confirmation here, after settlement.
 */
export async function writeClearing(ctx: Ctx, tx: TenantTx, row: CardTransaction, eventToken: string, amount: bigint, available: bigint): Promise<CardTransaction> {
  const a = row.accountId;
  const f = row.fundingCurrency;
  const funding = fundingPiece(row.settledAmount, row.settledAmount + amount, row.exchangeRate);
  if (row.direction === 'CREDIT') {
    await journal(ctx, tx, row, `clear:${eventToken}`, 'CARD_CREDIT_CLEARING', [system(settlementAccount(f), f, -funding), avail(a, f, funding)]);
    return save(ctx, tx, row, { settledAmount: row.settledAmount + amount, settlementCount: row.settlementCount + 1, settlementTotal: row.settlementTotal + amount }, 'settle');
  }
  const fromHold = funding < row.heldAmount ? funding : row.heldAmount;
  const extra = funding - fromHold;
  const covered = extra <= available ? extra : 0n;
  const postings = [held(a, f, -fromHold), avail(a, f, -covered), system(settlementAccount(f), f, funding), system(receivableAccount(f), f, -(extra - covered))];
  await journal(ctx, tx, row, `clear:${eventToken}`, 'CARD_CLEARING', postings);
  const heldLeft = row.heldAmount - fromHold;
  let next = await save(ctx, tx, row, {
    settledAmount: row.settledAmount + amount, settlementCount: row.settlementCount + 1, settlementTotal: row.settlementTotal + amount,
    heldAmount: heldLeft, pullCount: row.pullCount + (extra > 0n ? 1 : 0), pullTotal: row.pullTotal + extra,
    exceptionAmount: row.exceptionAmount + (extra - covered),
  }, heldLeft > 0n ? 'partiallySettle' : 'settle');
  if (extra > covered) return writeException(ctx, tx, next, `overpull:${eventToken}`, 0n, 'POST_HOC_PULL_FAILED');
  if (next.pullFails) next = await writeException(ctx, tx, next, `pullfail:${eventToken}`, fromHold, 'PULL_CONFIRMATION_FAILED');
  return next;
}

/**
 * RELEASE: the hold still on the funding source goes back to available (expiry, a 0 clearing). An
 * authorization nothing cleared is EXPIRED; a partly settled one is SETTLED for what cleared.
 */
export async function writeRelease(ctx: Ctx, tx: TenantTx, row: CardTransaction, key: string): Promise<CardTransaction> {
  if (row.heldAmount > 0n) await journal(ctx, tx, row, `release:${key}`, 'CARD_AUTHORIZATION_RELEASE', [held(row.accountId, row.fundingCurrency, -row.heldAmount), avail(row.accountId, row.fundingCurrency, row.heldAmount)]);
  const event: CardTransactionEvent | undefined = row.status === 'AUTHORIZED' ? 'expire' : row.status === 'PARTIALLY_SETTLED' ? 'settle' : undefined;
  return save(ctx, tx, row, { heldAmount: 0n, pullPendingCount: 0, expiresAt: null }, event);
}

/** RETURN: the merchant gives back `amount` of what settled: the cardholder is credited from the network. */
export async function writeReturn(ctx: Ctx, tx: TenantTx, row: CardTransaction, eventToken: string, amount: bigint): Promise<CardTransaction> {
  const f = row.fundingCurrency;
  const funding = fundingPiece(row.refundedAmount, row.refundedAmount + amount, row.exchangeRate);
  await journal(ctx, tx, row, `return:${eventToken}`, 'CARD_RETURN', [system(settlementAccount(f), f, -funding), avail(row.accountId, f, funding)]);
  const refunded = row.refundedAmount + amount;
  return save(ctx, tx, row, { refundedAmount: refunded, refundCount: row.refundCount + 1, refundTotal: row.refundTotal + amount }, refunded >= row.settledAmount ? 'refund' : undefined);
}

/**
 * RETURN REVERSAL: the network takes a return back: the cardholder is debited again; what the balance
 * cannot cover is booked against the platform receivable (EXCEPTION).
 */
export async function writeReturnReversal(ctx: Ctx, tx: TenantTx, row: CardTransaction, eventToken: string, amount: bigint, available: bigint): Promise<CardTransaction> {
  const f = row.fundingCurrency;
  const funding = fundingPiece(row.refundedAmount - amount, row.refundedAmount, row.exchangeRate);
  const covered = funding <= available ? funding : 0n;
  await journal(ctx, tx, row, `reversal:${eventToken}`, 'CARD_RETURN_REVERSAL', [avail(row.accountId, f, -covered), system(receivableAccount(f), f, -(funding - covered)), system(settlementAccount(f), f, funding)]);
  const next = await save(ctx, tx, row, { refundedAmount: row.refundedAmount - amount, exceptionAmount: row.exceptionAmount + (funding - covered) }, row.status === 'REFUNDED' ? 'returnReversed' : undefined);
  return covered < funding ? writeException(ctx, tx, next, `reversal:${eventToken}`, 0n, 'RETURN_REVERSAL_UNCOVERED') : next;
}

/**
 * CREDIT: a refund authorization's advice the network already approved (stand-in): an AUTHORIZED credit
 * that moves money when it clears. Written like an approved authorization.
 */
export const writeCredit = (ctx: Ctx, n: NewCardTransaction): Promise<AuthorizationWrite> => writeAuthorization(ctx, { ...n, decline: null, magic: 'NONE' }, null);

/**
 * EXCEPTION: the network was paid but the funding source's pull failed. `restore` is what the failed
 * pull had taken from the funding source (given back to it); the same amount is booked against the
 * platform receivable, so the journal balances and nothing is lost. Raised on a metric and logged.
 */
export async function writeException(ctx: Ctx, tx: TenantTx, row: CardTransaction, key: string, restore: bigint, reason: string): Promise<CardTransaction> {
  const f = row.fundingCurrency;
  if (restore > 0n) await journal(ctx, tx, row, `exception:${key}`, 'CARD_PULL_EXCEPTION', [avail(row.accountId, f, restore), system(receivableAccount(f), f, -restore)]);
  ctx.logger.error({ cardTransactionId: row.id, reason, amount: String(row.exceptionAmount + restore) }, 'card transaction EXCEPTION: the network was paid, the funding source was not');
  let next = row;
  if (row.heldAmount > 0n) next = await writeRelease(ctx, tx, row, `exception:${key}`);
  return save(ctx, tx, next, { exceptionAmount: row.exceptionAmount + restore, pullPendingCount: 0, pullFails: false, pullTotal: row.pullTotal - restore }, 'pullFailed', reason);
}

/** A pending pull confirmed (sandbox `005`): nothing moves, the summary's pendingCount drops. */
export async function writePullConfirmed(ctx: Ctx, tx: TenantTx, row: CardTransaction): Promise<CardTransaction> {
  return save(ctx, tx, row, { pullPendingCount: 0, pullConfirmAt: null });
}

