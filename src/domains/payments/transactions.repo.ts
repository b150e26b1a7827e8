import pg from 'pg';
import type { Ctx } from '../../deps.js';
import { poolOf, preparedStatements, type TenantTx } from '../../platform/db.js';
import type { Coalescer } from '../../platform/coalesce.js';
import { keyedReads, type RowKey } from '../../platform/raw-rows.js';
import { keysPlannedAsOne } from '../../platform/sql/planner.js';
import { invariant } from '../../platform/errors.js';
import { statusColumn, transition, type MoveOptions } from '../../platform/state-machine.js';
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
 * The one way a transaction's status changes: transition() — a compare-and-set on the statuses the
 * table allows (a lost race is the same error as an illegal move: 409 INVALID_STATE_TRANSITION), the
 * history row and the <OUTGOING|INCOMING>_PAYMENT.<STATUS> event — with the quote making the same move,
 * all in the caller's transaction.
 */
export async function transitionTransaction(ctx: Ctx, tx: TenantTx, t: Transaction, event: TransactionEvent, data: TxData = {}, reason?: string): Promise<Transaction> {
  const now = ctx.clock.now();
  const to = transactionTransitions[event].to as TransactionStatus;
  const moved = await transition(tx, ctx, transactionStatus, event, t.id, {
    from: t.status,
    reason: reason ?? null,
    // Waiting for platform approval exists only in PENDING (A17): leaving PENDING ends it.
    set: { ...data, updatedAt: now, ...(to !== 'PENDING' ? { pendingReason: null } : {}) },
    events: (row) => ({ type: `${eventPrefix(row)}.${to}`, data: transactionResource(row) }),
  });
  if (t.quoteId) {
    await transition(tx, ctx, quoteStatus, event, t.quoteId, { set: { updatedAt: now, ...(event === 'execute' || event === 'authorize' ? { executedAt: now } : {}) } });
  }
  return moved;
}

/** Starts the automatic refund of a failed transaction (refund status PENDING). */
export async function startRefund(ctx: Ctx, tx: TenantTx, t: Transaction, reason: string): Promise<Transaction> {
  const now = ctx.clock.now();
  return moveRefund(ctx, tx, t, 'start', {
    where: Prisma.sql`"status" = 'FAILED'`,
    set: { refundReason: reason, refundInitiatedAt: now, refundReference: `rfd_${t.id.slice(t.id.indexOf(':') + 1)}`, updatedAt: now },
  });
}

export async function transitionRefund(ctx: Ctx, tx: TenantTx, t: Transaction, event: Exclude<RefundEvent, 'start'>): Promise<Transaction> {
  const now = ctx.clock.now();
  return moveRefund(ctx, tx, t, event, { set: { updatedAt: now, ...(event === 'complete' ? { refundSettledAt: now } : {}) } });
}

/** A move of the refund lifecycle with its history row and <PREFIX>.REFUND_<STATUS> event. */
function moveRefund(ctx: Ctx, tx: TenantTx, t: Transaction, event: RefundEvent, opts: Pick<MoveOptions<Transaction>, 'set' | 'where'>): Promise<Transaction> {
  const to = refundTransitions[event].to;
  return transition(tx, ctx, refundStatus, event, t.id, {
    ...opts,
    from: t.refundStatus,
    events: (row) => ({ type: `${eventPrefix(row)}.REFUND_${to}`, data: transactionResource(row) }),
  });
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
const BY_IDS_SQL = `SELECT ${TRANSACTION_COLUMNS}, t.xmin::text FROM "transactions" t WHERE t."platform_id" = $2 AND t."id" = ANY(${keysPlannedAsOne('$1::text[]')})`;
/** The row's version (after the fields): its `xmin`, which every update of the row changes. */
const VERSION = TRANSACTION_FIELDS.length;
/**
 * The version and owner of the transactions of these ids of this platform (one batch per platform), without the
 * rest of the row: found by primary key only (keyedReads hands a row only to the key naming its own
 * platform), through a function that keeps one plan per connection (migration
 * 20261128000000_svc_transaction_versions: as a prepared statement it was planned on every batch).
 */
const VERSIONS_SQL = `SELECT v.id, v.platform_id, v.customer_id, v.version FROM svc_transaction_versions($1::text[], $2::text) v`;
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
