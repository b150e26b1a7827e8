import pg from 'pg';
import type { Ctx } from '../../deps.js';
import { poolOf, preparedStatements, type TenantTx } from '../../platform/db.js';
import type { Coalescer } from '../../platform/coalesce.js';
import { keyedReads, type RowKey } from '../../platform/raw-rows.js';
import { plannedForAnyValue } from '../../platform/sql/planner.js';
import { invariant } from '../../platform/errors.js';
import { IllegalTransitionError, statusColumn, transitionCtes } from '../../platform/state-machine.js';
import { JsonText, OneStatement, runIn } from '../../platform/one-statement.js';
import { jsonText } from '../../platform/outbox.js';
import { newId, newUuid, resourceKey } from '../../platform/ids.js';
import { Prisma, type Transaction } from '../../generated/prisma/client.js';
import {
  quoteLifecycle, refundLifecycle, refundTransitions, transactionLifecycle, transactionTransitions,
  type RefundEvent, type TransactionEvent, type TransactionStatus,
} from './transactions.model.js';
import { transactionResource } from './transactions.resource.js';

type TxData = Partial<Pick<Transaction, 'failureReason' | 'railReference' | 'submittedAt' | 'settledAt' | 'refundStatus' | 'refundReason' | 'refundInitiatedAt' | 'refundReference'>>;

/** Where the payment lifecycles live (money-path.repo.ts composes the same moves into its statements). */
export const transactionStatus = statusColumn(transactionLifecycle, 'transactions', 'status');
export const quoteStatus = statusColumn(quoteLifecycle, 'quotes', 'status');
export const refundStatus = statusColumn(refundLifecycle, 'transactions', 'refund_status');

/**
 * The one writer of a transaction's status moves outside the money path's starts and settlements (SCA
 * required or expired, an expiry, a rejection, a cancel, a failure, a bank return, an incoming payment
 * refused or sent back), one statement in the caller's transaction: transition()'s compare-and-set and
 * history row (transitionCtes, the same definition), the quote making the same move, and the
 * <OUTGOING|INCOMING>_PAYMENT.<STATUS> event (transactionEventsCte, the money path's). A lost race is
 * the same error as an illegal move: 409 INVALID_STATE_TRANSITION naming the status the row has now.
 */
export async function transitionTransaction(ctx: Ctx, tx: TenantTx, t: Transaction, event: TransactionEvent, data: TxData = {}, reason?: string): Promise<Transaction> {
  const now = ctx.clock.now();
  const to = transactionTransitions[event].to as TransactionStatus;
  // Waiting for platform approval exists only in PENDING (A17): leaving PENDING ends it.
  const set = { ...data, updatedAt: now, ...(to !== 'PENDING' ? { pendingReason: null } : {}) };
  const moved: Transaction = { ...t, ...set, status: to };
  const quote = t.quoteId ? { id: t.quoteId, set: { updatedAt: now, ...(event === 'execute' || event === 'authorize' ? { executedAt: now } : {}) } } : undefined;
  return moveOne(ctx, tx, t, { binding: transactionStatus, event, set, reason: reason ?? null, moved, quote });
}

/**
 * A payment that failed (its rail's answer, a bank return, a cancel of a PROCESSING payment): FAILED with
 * its failure reason, then its refund started (refund status PENDING) — the two moves of one short
 * transaction, the caller's (one row cannot be updated twice by one statement).
 */
export async function failPayment(ctx: Ctx, tx: TenantTx, t: Transaction, event: 'fail' | 'bankReturn' | 'cancel', failureReason: string, reason: string, refundReason: string): Promise<Transaction> {
  return startRefund(ctx, tx, await transitionTransaction(ctx, tx, t, event, { failureReason }, reason), refundReason);
}

/** Starts the automatic refund of a failed transaction (refund status PENDING). */
export async function startRefund(ctx: Ctx, tx: TenantTx, t: Transaction, reason: string): Promise<Transaction> {
  const now = ctx.clock.now();
  return moveRefund(ctx, tx, t, 'start', {
    where: Prisma.sql`"status" = 'FAILED'`,
    set: { refundReason: reason, refundInitiatedAt: now, refundReference: `rfd_${t.id.slice(t.id.indexOf(':') + 1)}`, updatedAt: now },
  });
}

export async function transitionRefund(ctx: Ctx, tx: TenantTx, t: Transaction, event: Exclude<RefundEvent, 'start' | 'complete'>): Promise<Transaction> {
  return moveRefund(ctx, tx, t, event, { set: { updatedAt: ctx.clock.now() } });
}

/** A move of the refund lifecycle with its history row and <PREFIX>.REFUND_<STATUS> event. */
function moveRefund(ctx: Ctx, tx: TenantTx, t: Transaction, event: RefundEvent, opts: { set: TxData & { updatedAt: Date }; where?: Prisma.Sql }): Promise<Transaction> {
  const moved: Transaction = { ...t, ...opts.set, refundStatus: refundTransitions[event].to };
  return moveOne(ctx, tx, t, { binding: refundStatus, event, set: opts.set, ...(opts.where ? { where: opts.where } : {}), moved, eventStatus: (r) => `REFUND_${r.refundStatus}` });
}

/** One move of a transaction (and its quote), as transitionTransaction and moveRefund describe it. */
interface OneMove {
  binding: typeof transactionStatus | typeof refundStatus;
  event: TransactionEvent | RefundEvent;
  set: Record<string, unknown>;
  where?: Prisma.Sql;
  reason?: string | null;
  /** The row after the move (its event's data). */
  moved: Transaction;
  quote?: { id: string; set: Record<string, unknown> };
  eventStatus?: (t: Transaction) => string;
}

/**
 * The move's statement: compare-and-set `mv` (+ `mv_history`), the quote's `qu` only if `mv` moved, the
 * event only if it moved; it answers how many rows moved. Nothing moved: transition()'s miss (the row read
 * again to name its status). The quote out of step with its transaction: the quote's illegal move, and the
 * caller's transaction rolls back whole.
 */
async function moveOne(ctx: Ctx, tx: TenantTx, t: Transaction, m: OneMove): Promise<Transaction> {
  const s = new OneStatement();
  transitionCtes(s, ctx, m.binding as typeof transactionStatus, m.event as TransactionEvent, t.id, { name: 'mv', set: m.set as never, reason: m.reason ?? null, ...(m.where ? { where: m.where } : {}) });
  if (m.quote) transitionCtes(s, ctx, quoteStatus, m.event as TransactionEvent, m.quote.id, { name: 'qu', set: m.quote.set as never, where: Prisma.sql`EXISTS (SELECT 1 FROM "mv")` });
  transactionEventsCte(s, ctx.platformId, [m.moved], { ...(m.eventStatus ? { status: m.eventStatus } : {}), when: 'EXISTS (SELECT 1 FROM "mv")' });
  const [r] = await runIn<{ moved: number; quotes: number }>(s, tx, `(SELECT count(*) FROM "mv")::int AS moved, ${m.quote ? '(SELECT count(*) FROM "qu")::int' : '1'} AS quotes`);
  if (r!.moved === 0) {
    const now = await tx.transaction.findFirst({ where: { id: t.id }, select: { status: true, refundStatus: true } });
    const status = now === null ? null : m.binding === refundStatus ? (now.refundStatus ?? 'NONE') : now.status;
    throw new IllegalTransitionError(m.binding.lifecycle, m.event, status, t.id);
  }
  if (r!.quotes === 0) {
    const q = await tx.quote.findFirst({ where: { id: m.quote!.id }, select: { status: true } });
    throw new IllegalTransitionError(quoteLifecycle, m.event, q?.status ?? null, m.quote!.id);
  }
  return m.moved;
}

/** How transactionEventsCte writes a payment's events. */
export interface PaymentEvents {
  /** The status an event names (default the row's; REFUND_<STATUS> for the refund's). */
  status?: (t: Transaction) => string;
  /** SQL over earlier CTEs: the events are written only if it holds. */
  when?: string;
  /**
   * Events the writer's caller delivers itself, in the flow (an incoming payment's question to its platform,
   * incoming-approval.ts): their payload's further fields, and written already relayed (the relay skips them).
   */
  inFlow?: { data: Record<string, unknown>; relayedAt: Date };
}

/**
 * CTE `tev`: the events of a payment's states, one per state in `states`, in order: <PREFIX>.<STATUS>.
 * The one definition of a payment's status events, for every writer of the payments domain. Returns the
 * events' ids, in order.
 */
export function transactionEventsCte(s: OneStatement, platformId: string, states: Transaction[], o: PaymentEvents = {}): string[] {
  const status = o.status ?? ((t: Transaction) => t.status);
  const { inFlow } = o;
  const data = inFlow ? (t: Transaction) => ({ ...transactionResource(t), ...inFlow.data }) : transactionResource;
  const rows = states.map((state) => ({ id: newUuid(), platformId, type: `${eventPrefix(state)}.${status(state)}`, data: new JsonText(jsonText(data(state))) }));
  const written = inFlow ? rows.map((r) => ({ ...r, relayedAt: inFlow.relayedAt })) : rows;
  if (o.when) s.insertIf('tev', 'webhook_events', written, o.when);
  else s.insert('tev', 'webhook_events', written);
  return rows.map((r) => r.id);
}

/**
 * CTE `<name>`: the status_changes rows of rows inserted already moved (a quote created and executed at
 * once, an incoming payment credited or refused on arrival): each listed event of the lifecycle as
 * transition() would have written it, from the event's first `from` to its `to`, under the resource's key (resourceKey, 30f).
 */
export function insertedMovesCte(s: OneStatement, name: string, platformId: string, moves: ReadonlyArray<{ machine: string; resourceId: string; events: readonly TransactionEvent[]; at: Date; reason?: string | null }>): void {
  s.insert(name, 'status_changes', moves.flatMap((m) => m.events.map((event) => ({
    id: newUuid(), platformId, machine: m.machine, resourceId: resourceKey(m.resourceId), event,
    fromStatus: transactionTransitions[event].from[0], toStatus: transactionTransitions[event].to, ...(m.reason ? { reason: m.reason } : {}), createdAt: m.at,
  }))));
}

/** Webhook family of a transaction's events: INCOMING_PAYMENT.* for incoming payments (decisions B§7.2). */
export function eventPrefix(t: Pick<Transaction, 'type'>): 'INCOMING_PAYMENT' | 'OUTGOING_PAYMENT' {
  return t.type === 'INCOMING' ? 'INCOMING_PAYMENT' : 'OUTGOING_PAYMENT';
}

/**
 * Every field of the Transaction model, in the model's order; its column is the field's snake_case.
 * A field added to the model and not here fails the type check below.
 */
const TRANSACTION_FIELDS = [
  'id', 'platformId', 'quoteId', 'customerId', 'platformCustomerId', 'status', 'type', 'direction', 'sourceAccountId', 'source',
  'destination', 'destinationKind', 'destinationAccountId', 'identifierLast3', 'paymentRail', 'sentAmount', 'sendingCurrency',
  'receivedAmount', 'receivingCurrency', 'exchangeRate', 'fees', 'platformFees', 'serviceFees', 'description', 'remittanceInformation',
  'purposeOfPayment', 'failureReason', 'railReference', 'submittedAt', 'reconcileAfter', 'settledAt', 'refundStatus', 'refundReference',
  'refundReason', 'refundInitiatedAt', 'refundSettledAt', 'agentId', 'pendingReason', 'approvalRequestedAt', 'agentCountedAmount',
  'counterpartyInformation', 'platformFixedFee', 'platformVariableFeeBps', 'platformVariableFee', 'serviceFixedFee',
  'serviceVariableFeeBps', 'serviceVariableFee', 'counterpartyFixedFee', 'counterpartyMultiplier', 'sendingMultiplier',
  'paymentInstructions', 'railSelectionMode', 'settlementTimelineSeconds', 'receiptDeliveryConfirmedAt', 'createdAt', 'updatedAt',
] as const satisfies ReadonlyArray<keyof Transaction>;
type UnlistedField = Exclude<keyof Transaction, (typeof TRANSACTION_FIELDS)[number]>;
const everyFieldListed: [UnlistedField] extends [never] ? true : UnlistedField = true;
void everyFieldListed;

const TRANSACTION_COLUMNS = TRANSACTION_FIELDS.map((f) => `t."${f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}"`).join(', ');
const ID = TRANSACTION_FIELDS.indexOf('id');
const PLATFORM_ID = TRANSACTION_FIELDS.indexOf('platformId');
/** The transactions of these ids of one platform: primary-key lookups, on the platform's partition or shard only (issue 29). */
const BY_IDS_SQL = `SELECT ${TRANSACTION_COLUMNS}, t.xmin::text FROM "transactions" t WHERE t."platform_id" = $2 AND t."id" = ANY(${plannedForAnyValue('$1', 'text[]')})`;
/** The row's version (after the fields): its `xmin`, which every update of the row changes. */
const VERSION = TRANSACTION_FIELDS.length;
/**
 * The version and owner of the transactions of these ids of this platform (one batch per platform), without the
 * rest of the row: found by primary key only (keyedReads hands a row only to the key naming its own
 * platform), through a function that keeps one plan per connection (migration
 * 20261128000000_svc_transaction_versions: as a prepared statement it was planned on every batch).
 */
const VERSIONS_SQL = `SELECT v.id, v.platform_id, v.customer_id, v.version FROM svc_transaction_versions($1::text[], $2::uuid) v`;
/** Values as Prisma types them: bigint columns as BigInt (pg's default is a string); the rest pg's defaults (Date, parsed JSON). */
const INT8_OID = 20;
const toBigInt = (s: string) => BigInt(s);
const PRISMA_TYPES = { getTypeParser: (oid: number, format?: string) => (oid === INT8_OID ? toBigInt : pg.types.getTypeParser(oid, format as 'text')) };

/**
 * Row values, in TRANSACTION_FIELDS' order, as a Transaction. Written as one object literal: V8 keeps it
 * a fast object, where 53 stores by computed key leave a slow (dictionary) one that costs every read of
 * it afterwards (measured: docs/decisions.md "Measurements behind the code"). That each field reads its own column is
 * checked below, when the module loads.
 */
function toTransaction(v: any[]): Transaction {
  return {
    id: v[0], platformId: v[1], quoteId: v[2], customerId: v[3], platformCustomerId: v[4], status: v[5], type: v[6],
    direction: v[7], sourceAccountId: v[8], source: v[9], destination: v[10], destinationKind: v[11],
    destinationAccountId: v[12], identifierLast3: v[13], paymentRail: v[14], sentAmount: v[15],
    sendingCurrency: v[16], receivedAmount: v[17], receivingCurrency: v[18], exchangeRate: v[19], fees: v[20],
    platformFees: v[21], serviceFees: v[22], description: v[23], remittanceInformation: v[24],
    purposeOfPayment: v[25], failureReason: v[26], railReference: v[27], submittedAt: v[28], reconcileAfter: v[29],
    settledAt: v[30], refundStatus: v[31], refundReference: v[32], refundReason: v[33], refundInitiatedAt: v[34],
    refundSettledAt: v[35], agentId: v[36], pendingReason: v[37], approvalRequestedAt: v[38],
    agentCountedAmount: v[39], counterpartyInformation: v[40], platformFixedFee: v[41], platformVariableFeeBps: v[42],
    platformVariableFee: v[43], serviceFixedFee: v[44], serviceVariableFeeBps: v[45], serviceVariableFee: v[46],
    counterpartyFixedFee: v[47], counterpartyMultiplier: v[48], sendingMultiplier: v[49], paymentInstructions: v[50],
    railSelectionMode: v[51], settlementTimelineSeconds: v[52], receiptDeliveryConfirmedAt: v[53], createdAt: v[54], updatedAt: v[55],
  };
}
const probe = toTransaction([...TRANSACTION_FIELDS]) as unknown as Record<string, unknown>;
invariant(Object.keys(probe).length === TRANSACTION_FIELDS.length && TRANSACTION_FIELDS.every((f) => probe[f] === f), 'toTransaction reads a field from another column');

/** Reads of `sql` by keyedReads, with array rows typed as Prisma types them; row[0] is the id, row[1] the platform. */
function pairReads<R>(name: string, sql: string, pick: (row: unknown[]) => R): (pool: pg.Pool) => Coalescer<RowKey, R | null> {
  return keyedReads<unknown[], R>({
    read: async (pool, ids, platformId) =>
      (await pool.query<unknown[]>({ ...(preparedStatements(pool) ? { name } : {}), text: sql, values: [ids, platformId], rowMode: 'array', types: PRISMA_TYPES })).rows,
    keyOf: (row) => [row[1], row[0]],
    // Each caller its own object, the same row asked for twice included.
    pick: (row) => pick(row),
  });
}

invariant(ID === 0 && PLATFORM_ID === 1, 'pairReads reads the id and platform from the first two columns');
const transactionsById = pairReads('svc_transactions_by_ids_of_platform', BY_IDS_SQL, (row) => ({ t: toTransaction(row), version: row[VERSION] as string }));
const versionsById = pairReads('svc_transaction_versions_of_platform', VERSIONS_SQL, (row) => ({ customerId: row[2] as string | null, version: row[3] as string }));

/**
 * A transaction of the caller's platform by id, or null: a primary-key read on the pg pool under Prisma
 * (Prisma's own query path costs several times the read itself on the hot GET /transactions/{id}),
 * sent together with the other reads asked for in the same turn of the event loop (coalescer: one
 * statement for the requests that arrived together, each read sent after it was asked for). Scoped by
 * platform_id here, as raw SQL is not scoped by tenantDb; the row is the Transaction Prisma would
 * return. A named prepared statement unless DATABASE_PREPARED_STATEMENTS is off (a transaction-mode pooler).
 */
export async function readTransaction(ctx: Ctx, id: string): Promise<Transaction | null> {
  return (await readVersionedTransaction(ctx, id))?.t ?? null;
}

/** readTransaction with the row's version (`xmin`: any update of the row changes it). */
export async function readVersionedTransaction(ctx: Ctx, id: string): Promise<{ t: Transaction; version: string } | null> {
  return transactionsById(poolOf(ctx.prisma)).load({ id, platformId: ctx.platformId });
}

/** The version of a transaction of the caller's platform and its customer, or null; batched like readTransaction. */
export async function readTransactionVersion(ctx: Ctx, id: string): Promise<{ customerId: string | null; version: string } | null> {
  return versionsById(poolOf(ctx.prisma)).load({ id, platformId: ctx.platformId });
}
