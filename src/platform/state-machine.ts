import { Prisma } from '../generated/prisma/client.js';
import { camelCase, snakeCase } from './column-names.js';
import type {
  BankLink, BeneficialOwner, DelegatedKey, Stablecoin, StablecoinOperation, StablecoinProviderAccount, BulkCustomerImport, Card, CardTransaction, Customer, ExternalAccount, ExternalAccountChallenge, InternalAccount, Platform, Quote,
  ScaChallenge, ScaFactor, ScaFactorReset, Transaction, UmaInvitation, Verification, WebhookEvent,
} from '../generated/prisma/client.js';
import type { AgentAction } from '../generated/prisma/client.js';
import type { CollectionCoordinates } from '../generated/prisma/client.js';
import type { Clock } from './clock.js';
import type { TenantDb, TenantTx } from './db.js';
import { ConflictError, invariant } from './errors.js';
import type { IdempotencyClaim } from './idempotency.js';
import { newUuid } from './ids.js';
import { sqlIdentifier } from './sql/identifiers.js';
import { checkedAfterKeyLookupSql, plannedForAnyValueSql } from './sql/planner.js';
import { jsonText, recordEvents, type OutboxEvent } from './outbox.js';

// ------------------------------------------------------------------------------------ lifecycles as data

/** One move: allowed from any of `from`, lands on `to`. */
export interface Transition<S extends string> {
  readonly from: readonly S[];
  readonly to: S;
}

/** A lifecycle's moves, keyed by the event that causes each. */
export type TransitionTable<S extends string, E extends string = string> = { readonly [K in E]: Transition<S> };

/**
 * A lifecycle declared once as data in its domain's model.ts (house style "State machines are data").
 * `terminal` lists exactly the statuses no event leaves (defineLifecycle checks it).
 */
export interface Lifecycle<S extends string = string, E extends string = string> {
  /** The name of the machine in status_changes.machine. */
  readonly name: string;
  /** How an error names the resource: "The card cannot freeze from CLOSED." */
  readonly label: string;
  readonly statuses: readonly S[];
  readonly transitions: TransitionTable<S, E>;
  readonly terminal: readonly S[];
  /** The status a NULL column stands for (a refund not started, a contact channel not required). */
  readonly absent?: S;
  /** The error code of an illegal move and of a lost race (default INVALID_STATE_TRANSITION). */
  readonly conflictCode?: string;
}

export type EventOf<L> = L extends Lifecycle<string, infer E> ? E : never;
export type StatusOf<L> = L extends Lifecycle<infer S, string> ? S : never;

/** Declares a lifecycle, refusing at load time a table that names unknown statuses or mislabels its terminal ones. */
export function defineLifecycle<const S extends string, const E extends string>(l: Lifecycle<S, E>): Lifecycle<S, E> {
  const known = new Set<string>(l.statuses);
  const left = new Set<string>();
  for (const [event, t] of Object.entries<Transition<S>>(l.transitions)) {
    invariant(t.from.length > 0 && t.from.every((s) => known.has(s)) && known.has(t.to), `${l.name}.${event} names a status outside ${l.name}`);
    for (const s of t.from) left.add(s);
  }
  invariant(l.absent === undefined || known.has(l.absent), `${l.name}: unknown absent status`);
  for (const s of l.statuses) invariant(l.terminal.includes(s) === !left.has(s), `${l.name}: ${s} must be terminal exactly when no event leaves it`);
  return l;
}

/**
 * An illegal move, or a lost race (the row moved meanwhile, so the compare-and-set changed nothing):
 * the same 409 either way, with the lifecycle's code.
 */
export class IllegalTransitionError extends ConflictError {
  constructor(
    readonly lifecycle: Lifecycle,
    readonly event: string,
    readonly from: string | null,
    readonly resourceId?: string,
  ) {
    super(
      lifecycle.conflictCode ?? 'INVALID_STATE_TRANSITION',
      `${lifecycle.label} cannot ${event} from ${from ?? 'its current state'}.`,
      { event, from, ...(resourceId ? { resourceId } : {}) },
    );
  }
}

export function canTransition<S extends string, E extends string>(l: Lifecycle<S, E>, event: E, from: S): boolean {
  return l.transitions[event].from.includes(from);
}

/** The target status of `event` from `from`, or an IllegalTransitionError. Pure. */
export function nextStatus<S extends string, E extends string>(l: Lifecycle<S, E>, event: E, from: S): S {
  const t = l.transitions[event];
  if (!t || !t.from.includes(from)) throw new IllegalTransitionError(l, event, from);
  return t.to;
}

// ------------------------------------------------------------------------------------ where statuses live

/**
 * Every status column transition() may write: the fixed whitelist its SQL identifiers come from, with the
 * row type a move returns. `touch`: a move also sets updated_at; `scope`: the column holding the platform.
 */
interface StatusTables {
  customers: { row: Customer; column: 'status' | 'email_verification' | 'phone_verification' };
  beneficial_owners: { row: BeneficialOwner; column: 'kyc_status' };
  verifications: { row: Verification; column: 'status' };
  external_accounts: { row: ExternalAccount; column: 'status' };
  external_account_challenges: { row: ExternalAccountChallenge; column: 'status' };
  cards: { row: Card; column: 'state' };
  card_transactions: { row: CardTransaction; column: 'status' };
  sca_factor_resets: { row: ScaFactorReset; column: 'status' };
  sca_challenges: { row: ScaChallenge; column: 'status' };
  sca_factors: { row: ScaFactor; column: 'status' };
  delegated_keys: { row: DelegatedKey; column: 'status' };
  platforms: { row: Platform; column: 'stablecoin_enablement_status' };
  uma_invitations: { row: UmaInvitation; column: 'status' };
  bank_links: { row: BankLink; column: 'status' };
  bulk_customer_imports: { row: BulkCustomerImport; column: 'status' };
  webhook_events: { row: WebhookEvent; column: 'delivery_status' };
  quotes: { row: Quote; column: 'status' };
  transactions: { row: Transaction; column: 'status' | 'refund_status' };
  // issue 26: stablecoin issuance
  stablecoin_provider_accounts: { row: StablecoinProviderAccount; column: 'status' };
  stablecoins: { row: Stablecoin; column: 'grid_operations_status' };
  stablecoin_operations: { row: StablecoinOperation; column: 'status' };
  internal_accounts: { row: InternalAccount; column: 'status' };
  agent_actions: { row: AgentAction; column: 'status' };
  collection_coordinates: { row: CollectionCoordinates; column: 'status' };
}
export type StatusTable = keyof StatusTables;
export type RowOf<T extends StatusTable> = StatusTables[T]['row'];

const STATUS_TABLES: { readonly [T in StatusTable]: { readonly columns: readonly StatusTables[T]['column'][]; readonly touch: boolean; readonly scope: 'platform_id' | 'id' } } = {
  customers: { columns: ['status', 'email_verification', 'phone_verification'], touch: true, scope: 'platform_id' },
  // An owner's updated_at is its data's, not its status's (unchanged from before transition()).
  beneficial_owners: { columns: ['kyc_status'], touch: false, scope: 'platform_id' },
  verifications: { columns: ['status'], touch: true, scope: 'platform_id' },
  external_accounts: { columns: ['status'], touch: true, scope: 'platform_id' },
  external_account_challenges: { columns: ['status'], touch: false, scope: 'platform_id' },
  cards: { columns: ['state'], touch: true, scope: 'platform_id' },
  card_transactions: { columns: ['status'], touch: true, scope: 'platform_id' },
  sca_factor_resets: { columns: ['status'], touch: true, scope: 'platform_id' },
  sca_challenges: { columns: ['status'], touch: false, scope: 'platform_id' },
  sca_factors: { columns: ['status'], touch: false, scope: 'platform_id' },
  delegated_keys: { columns: ['status'], touch: true, scope: 'platform_id' },
  // The platform row is its own tenant: its id is the platform id.
  platforms: { columns: ['stablecoin_enablement_status'], touch: false, scope: 'id' },
  uma_invitations: { columns: ['status'], touch: true, scope: 'platform_id' },
  bank_links: { columns: ['status'], touch: true, scope: 'platform_id' },
  bulk_customer_imports: { columns: ['status'], touch: true, scope: 'platform_id' },
  webhook_events: { columns: ['delivery_status'], touch: false, scope: 'platform_id' },
  quotes: { columns: ['status'], touch: true, scope: 'platform_id' },
  transactions: { columns: ['status', 'refund_status'], touch: true, scope: 'platform_id' },
  stablecoin_provider_accounts: { columns: ['status'], touch: true, scope: 'platform_id' },
  stablecoins: { columns: ['grid_operations_status'], touch: true, scope: 'platform_id' },
  stablecoin_operations: { columns: ['status'], touch: true, scope: 'platform_id' },
  internal_accounts: { columns: ['status'], touch: true, scope: 'platform_id' },
  agent_actions: { columns: ['status'], touch: true, scope: 'platform_id' },
  collection_coordinates: { columns: ['status'], touch: true, scope: 'platform_id' },
};

/** A lifecycle bound to the column that stores it (declared once, in the domain's repo or service). */
export interface StatusColumn<T extends StatusTable, S extends string, E extends string> {
  readonly lifecycle: Lifecycle<S, E>;
  readonly table: T;
  readonly column: StatusTables[T]['column'];
  /** status_changes.machine: the lifecycle's name unless one lifecycle is stored in several columns. */
  readonly machine: string;
  /** What moving a row that is not there (or is another platform's) raises; default the illegal-move error. */
  readonly notFound?: () => Error;
}

export function statusColumn<T extends StatusTable, S extends string, E extends string>(
  lifecycle: Lifecycle<S, E>,
  table: T,
  column: StatusTables[T]['column'],
  opts: { machine?: string; notFound?: () => Error } = {},
): StatusColumn<T, S, E> {
  invariant((STATUS_TABLES[table]?.columns as readonly string[] | undefined)?.includes(column), `${table}.${column} is not a status column`);
  return { lifecycle, table, column, machine: opts.machine ?? lifecycle.name, ...(opts.notFound ? { notFound: opts.notFound } : {}) };
}

// ------------------------------------------------------------------------------------ transition()

/** Who moves (the platform every statement is confined to) and when. A Ctx is one. */
export interface MoveScope {
  platformId: string;
  clock: Clock;
  /** The request's Idempotency-Key: a move made outside a transaction then opens one, so the key is recorded with it. */
  idempotency?: IdempotencyClaim;
}

/** transitionWhere() only: a worker's sweep may move rows of several platforms, named explicitly. */
export interface SweepScope {
  platformId: string | readonly string[];
  clock: Clock;
  idempotency?: IdempotencyClaim;
}

/** Extra columns a move writes (camelCase, as the row type): values, or SQL such as `attempt_count + 1`. */
export type SetColumns<Row> = { [K in keyof Row]?: Row[K] | Prisma.Sql };

export interface MoveOptions<Row> {
  /**
   * The status the caller read, when it read the row: an event not allowed from it fails at once, without
   * a statement. Never needed: the compare-and-set alone decides.
   */
  from?: string | null;
  set?: SetColumns<Row>;
  /** Further conditions of the move (SQL on the row's own columns, e.g. `is_deleted = false`). */
  where?: Prisma.Sql;
  /** Kept in the history row (status_changes.reason). */
  reason?: string | null;
  /**
   * The outbox event(s) the move announces, built from the moved row (and, if they must, from reads in
   * the same transaction); written in that transaction with one statement.
   */
  events?: (row: Row) => Awaitable<OutboxEvent | readonly OutboxEvent[] | null | undefined>;
  /**
   * Only transition(): the error for a move that changed nothing, given the row as it is now (null: not
   * there). Return undefined for the default (binding.notFound, else IllegalTransitionError).
   */
  onMiss?: (current: Row | null) => Error | undefined;
}

/** A tenant-scoped client or transaction (or, for a cross-platform sweep, the unscoped one): only raw SQL is used. */
type Db = Pick<TenantTx, '$queryRaw' | '$executeRaw'>;
type Awaitable<T> = T | Promise<T>;

/**
 * The one way a status moves. One statement does the compare-and-set
 * (`UPDATE … WHERE id = $1 AND platform_id = $2 AND status = ANY($from) … RETURNING *`) and inserts the
 * status_changes row; the outbox events follow in the same transaction (the caller's, or one opened here
 * when `db` is not a transaction). A move that changes nothing — illegal from the row's status, or a
 * race lost to a concurrent move — raises the same IllegalTransitionError (or what `onMiss` / the
 * binding's notFound say), after one read of the row to name its status; the caller's transaction then
 * rolls back whatever else it wrote. Raw SQL is not scoped by tenantDb: every statement here filters on
 * the platform itself.
 */
export async function transition<T extends StatusTable, S extends string, E extends string>(
  db: Db,
  scope: MoveScope,
  binding: StatusColumn<T, S, E>,
  event: E,
  id: string,
  opts: MoveOptions<RowOf<T>> = {},
): Promise<RowOf<T>> {
  const moved = await tryTransition(db, scope, binding, event, id, opts);
  if (moved) return moved;
  const current = await readRow(db, scope, binding, id);
  const err = opts.onMiss?.(current) ?? (current === null && binding.notFound ? binding.notFound() : undefined);
  throw err ?? new IllegalTransitionError(binding.lifecycle, event, current === null ? null : statusIn(binding, current), id);
}

/**
 * transition() for callers to whom a move that changed nothing is an answer, not an error (a sweep, a
 * second worker): null then, and no further statement.
 */
export async function tryTransition<T extends StatusTable, S extends string, E extends string>(
  db: Db,
  scope: MoveScope,
  binding: StatusColumn<T, S, E>,
  event: E,
  id: string,
  opts: Omit<MoveOptions<RowOf<T>>, 'onMiss'> = {},
): Promise<RowOf<T> | null> {
  const { lifecycle } = binding;
  invariant(lifecycle.transitions[event], `${lifecycle.name} has no event ${event}`);
  if (opts.from !== undefined) {
    const from = opts.from ?? lifecycle.absent ?? null;
    if (from === null || !lifecycle.transitions[event].from.includes(from as S)) throw new IllegalTransitionError(lifecycle, event, from, id);
  }
  const rows = await moveRows(db, scope, binding, opts, moveCtes(scope, binding, event, Prisma.sql`"id" = ${id}`, Prisma.sql`${newUuid()}::uuid`, opts, 'moved'));
  return rows[0] ?? null;
}

/**
 * Moves every row of the platform that matches `match` and the event's `from` (a sweep, or "the
 * outstanding challenge of this account"), each with its history row and events. Returns the moved rows.
 */
export async function transitionWhere<T extends StatusTable, S extends string, E extends string>(
  db: Db,
  scope: SweepScope,
  binding: StatusColumn<T, S, E>,
  event: E,
  match: Prisma.Sql,
  opts: Omit<MoveOptions<RowOf<T>>, 'onMiss' | 'from'> = {},
): Promise<RowOf<T>[]> {
  invariant(binding.lifecycle.transitions[event], `${binding.lifecycle.name} has no event ${event}`);
  return moveRows(db, scope, binding, opts, moveCtes(scope, binding, event, Prisma.sql`(${match})`, SQL_STATUS_CHANGE_ID, opts, 'moved'));
}

/** A time-ordered UUIDv7 made in SQL (status_changes.id, a `uuid`), for moves of several rows at once. */
const SQL_STATUS_CHANGE_ID = Prisma.sql`encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing substring(int8send(floor(extract(epoch from clock_timestamp()) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid`;

/** Runs a move's CTEs (moveCtes, named `moved`) as one statement, then records the moved rows' events. */
async function moveRows<T extends StatusTable, S extends string, E extends string>(
  db: Db,
  scope: SweepScope,
  binding: StatusColumn<T, S, E>,
  opts: Pick<MoveOptions<RowOf<T>>, 'events'>,
  ctes: Array<[string, Prisma.Sql]>,
): Promise<RowOf<T>[]> {
  const statement = Prisma.sql`WITH ${Prisma.join(ctes.map(([name, body]) => Prisma.sql`${ident(name)} AS (${body})`), ', ')} SELECT * FROM "moved"`;
  const run = async (q: Db): Promise<RowOf<T>[]> => {
    const raw = await q.$queryRaw<Record<string, unknown>[]>(statement);
    const rows = raw.map((r) => toRow<RowOf<T>>(r));
    const byPlatform = new Map<string, OutboxEvent[]>();
    if (opts.events) {
      for (const r of rows) {
        const events = [(await opts.events(r)) ?? []].flat() as OutboxEvent[];
        const platformId = platformOf(binding, r);
        if (events.length) byPlatform.set(platformId, [...(byPlatform.get(platformId) ?? []), ...events]);
      }
    }
    for (const [platformId, events] of byPlatform) await recordEvents(q, platformId, events);
    return rows;
  };
  // Events are a second statement, and a request's Idempotency-Key is recorded by the transaction of its
  // effect (src/platform/idempotency.ts): both need a transaction, the caller's or one opened here. (A
  // transaction client has $transaction too — nested ones are savepoints — but no $connect.)
  const isClient = typeof (db as { $connect?: unknown }).$connect === 'function';
  const claimOpen = scope.idempotency !== undefined && !scope.idempotency.committed;
  if (isClient && (opts.events || claimOpen)) return (db as TenantDb).$transaction((tx: TenantTx) => run(tx));
  return run(db);
}

/**
 * The CTEs of a move, in order: `<name>_prev` (only when the event has several `from`: the row locked
 * and its status read, so the history names the status this move actually replaced), `<name>` (the
 * compare-and-set, RETURNING the moved rows) and `<name>_history` (their status_changes rows).
 */
function moveCtes<T extends StatusTable, S extends string, E extends string>(
  scope: SweepScope,
  binding: StatusColumn<T, S, E>,
  event: E,
  match: Prisma.Sql,
  historyId: Prisma.Sql,
  opts: Pick<MoveOptions<RowOf<T>>, 'set' | 'where' | 'reason'> & { byKey?: boolean },
  name: string,
): Array<[string, Prisma.Sql]> {
  const { lifecycle } = binding;
  const move = lifecycle.transitions[event];
  const meta = STATUS_TABLES[binding.table];
  const at = scope.clock.now();
  const table = ident(binding.table);
  const column = ident(binding.column);
  const [moved, prev] = [ident(name), ident(`${name}_prev`)];
  const stored = (s: S) => (s === lifecycle.absent ? null : s);
  const present = move.from.filter((s) => s !== lifecycle.absent);
  // byKey: the states only filter the rows the keys found. Their values are kept from the planner (plannedForAnyValueSql):
  // seen, the condition's selectivity (a status's share of the table, through `IS TRUE`) made a plan for the values
  // cheaper than the statement's generic plan, and the settlement was planned again on most calls (24k).
  const states = opts.byKey ? plannedForAnyValueSql(present, 'text[]') : Prisma.sql`${present}::text[]`;
  const inFrom = [
    ...(present.length ? [Prisma.sql`${column} = ANY(${states})`] : []),
    ...(present.length < move.from.length ? [Prisma.sql`${column} IS NULL`] : []),
  ];
  const platforms = typeof scope.platformId === 'string' ? Prisma.sql`= ${scope.platformId}::uuid` : Prisma.sql`= ANY(${[...scope.platformId]}::uuid[])`;
  // The platform stays a plain condition (issue 29): it leads every key, and a planner prunes partitions and shards on it.
  const platform = Prisma.sql`${ident(meta.scope)} ${platforms}`;
  const rest = Prisma.sql`(${Prisma.join(inFrom, ' OR ')})${opts.where ? Prisma.sql` AND (${opts.where})` : Prisma.empty}`;
  // byKey: only `match` (the keys, under the platform) can use an index; the rest is checked on the rows it finds.
  const predicate = opts.byKey ? Prisma.sql`${platform} AND ${match} AND ${checkedAfterKeyLookupSql(rest)}` : Prisma.sql`${platform} AND ${match} AND ${rest}`;
  const set = (opts.set ?? {}) as Record<string, unknown>;
  const assignments = Prisma.join([
    Prisma.sql`${column} = ${stored(move.to)}::text`,
    ...(meta.touch && !('updatedAt' in set) ? [Prisma.sql`"updated_at" = ${at}::timestamptz`] : []),
    ...Object.entries(set).map(([k, v]) => Prisma.sql`${ident(snakeCase(k))} = ${v instanceof Prisma.Sql ? v : Prisma.sql`${v}`}`),
  ], ', ');
  const single = move.from.length === 1;
  const fromStatus = single ? Prisma.sql`${move.from[0]}::text` : Prisma.sql`COALESCE(${moved}."__from", ${lifecycle.absent ?? null}::text)`;
  // Issue 29 (29e): a tenant table's moved rows are joined back to their rows by key (`__t`, as they were
  // before the statement: they exist, nothing of them is read but the key). On plain PostgreSQL that is one
  // primary-key lookup per moved row. On Citus it makes the history a co-located INSERT … SELECT pushed down
  // to the platform's shard, so the move's rows go only to the platform's worker; read from the CTE alone it
  // ran via the coordinator, which sends the CTE's rows to every worker (intermediate_result_pruning.c,
  // SUBPLAN_ACCESS_ANYWHERE) and makes every worker join the commit.
  const source = meta.scope === 'platform_id'
    ? { platform: Prisma.sql`"__t"."platform_id"`, from: Prisma.sql`${moved} JOIN ${table} "__t" ON "__t"."platform_id" ${platforms} AND "__t"."id" = ${moved}."id"` }
    : { platform: Prisma.sql`${moved}.${ident(meta.scope)}`, from: moved };
  // The history names the row by its key (issue 30, 30f: svc_resource_key, src/platform/ids.ts resourceKey). A row
  // whose id is a uuid already (platforms, webhook events) is its own key.
  const resource = Prisma.sql`svc_resource_key(${moved}."id"::text)`;
  const history = Prisma.sql`INSERT INTO "status_changes" ("id", "platform_id", "machine", "resource_id", "event", "from_status", "to_status", "reason", "created_at")
    SELECT ${historyId}, ${source.platform}, ${binding.machine}::text, ${resource}, ${event}::text, ${fromStatus}, ${move.to}::text, ${opts.reason ?? null}::text, ${at}::timestamptz
      FROM ${source.from}`;
  const update: Array<[string, Prisma.Sql]> = single
    ? [[name, Prisma.sql`UPDATE ${table} SET ${assignments} WHERE ${predicate} RETURNING *`]]
    : [
        [`${name}_prev`, Prisma.sql`SELECT "id" AS "__id", ${column} AS "__from" FROM ${table} WHERE ${predicate} FOR UPDATE`],
        [name, Prisma.sql`UPDATE ${table} SET ${assignments} FROM ${prev} WHERE ${table}."id" = ${prev}."__id" RETURNING ${table}.*, ${prev}."__from"`],
      ];
  return [...update, [`${name}_history`, history]];
}

/** What a statement builder of chained CTEs offers (OneStatement, src/platform/one-statement.ts). */
export interface CteChain {
  param(value: unknown): string;
  with(name: string, sql: string): unknown;
}

/**
 * transition() as CTEs of a larger single statement (the money path's OneStatement chains): the same
 * compare-and-set and history row, added to `s` as `<name>` (the moved row, RETURNING *) and
 * `<name>_history`. The caller asserts that `<name>` moved its row (OneStatement.require): there, a lost
 * race is refused like an illegal move, and the whole statement writes nothing. Events are the caller's.
 */
export function transitionCtes<T extends StatusTable, S extends string, E extends string>(
  s: CteChain,
  scope: MoveScope,
  binding: StatusColumn<T, S, E>,
  event: E,
  id: string,
  opts: Pick<MoveOptions<RowOf<T>>, 'set' | 'where' | 'reason'> & { name: string },
): void {
  invariant(binding.lifecycle.transitions[event], `${binding.lifecycle.name} has no event ${event}`);
  addCtes(s, moveCtes(scope, binding, event, Prisma.sql`"id" = ${id}`, Prisma.sql`${newUuid()}::uuid`, opts, opts.name));
}

/**
 * transitionCtes for many rows of the platform at once, by key: each listed row still in a `from`
 * status moves, with its history row. The statement's text does not depend on how many rows move: a
 * batch of any size is one prepared statement (the payments worker's settlements, issue 12). The caller
 * asserts how many moved (OneStatement.require).
 *
 * The rows are found by their primary key and nothing else: the other conditions are wrapped so that no
 * index can serve them (`(…) IS TRUE`). Otherwise the planner, misled by statistics taken while a table
 * was small (a fresh platform's rows look few), would scan every row of the platform, or every
 * PROCESSING one, for each batch.
 */
export function transitionManyCtes<T extends StatusTable, S extends string, E extends string>(
  s: CteChain,
  scope: MoveScope,
  binding: StatusColumn<T, S, E>,
  event: E,
  ids: readonly string[],
  opts: Pick<MoveOptions<RowOf<T>>, 'set' | 'where' | 'reason'> & { name: string },
): void {
  invariant(binding.lifecycle.transitions[event], `${binding.lifecycle.name} has no event ${event}`);
  // History ids made here, one per key in the keys' order, as transition() makes them: the history
  // reads in the order the moves were written (ids made in SQL would order one statement's rows at random).
  const historyIds = ids.map(() => newUuid());
  const historyId = Prisma.sql`(${historyIds}::uuid[])[array_position(${[...ids]}::text[], ${ident(opts.name)}."id")]`;
  addCtes(s, moveCtes(scope, binding, event, Prisma.sql`"id" = ANY(${plannedForAnyValueSql([...ids], 'text[]')})`, historyId, { ...opts, byKey: true }, opts.name));
}

/** Prisma.Sql keeps its text and values apart: the values become the chain's own parameters. */
function addCtes(s: CteChain, ctes: Array<[string, Prisma.Sql]>): void {
  for (const [name, body] of ctes) s.with(name, body.strings.reduce((sql, text, i) => sql + text + (i < body.values.length ? s.param(body.values[i]) : ''), ''));
}

async function readRow<T extends StatusTable>(db: Db, scope: MoveScope, binding: StatusColumn<T, string, string>, id: string): Promise<RowOf<T> | null> {
  const scopeColumn = ident(STATUS_TABLES[binding.table].scope);
  const raw = await db.$queryRaw<Record<string, unknown>[]>`SELECT * FROM ${ident(binding.table)} WHERE "id" = ${id} AND ${scopeColumn} = ${scope.platformId}`;
  return raw[0] ? toRow<RowOf<T>>(raw[0]) : null;
}

function platformOf(binding: StatusColumn<StatusTable, string, string>, row: object): string {
  return (row as Record<string, string>)[camelCase(STATUS_TABLES[binding.table].scope)]!;
}

function statusIn(binding: StatusColumn<StatusTable, string, string>, row: object): string | null {
  const value = (row as Record<string, unknown>)[camelCase(binding.column)];
  return typeof value === 'string' ? value : (binding.lifecycle.absent ?? null);
}

/** Identifiers come from the whitelist above or from code (set keys), never from input; checked anyway. */
function ident(name: string): Prisma.Sql {
  return Prisma.raw(`"${sqlIdentifier(name)}"`);
}


/** A RETURNING row as its Prisma model (every column is the snake_case of its field; raw values are typed alike). */
function toRow<Row>(raw: Record<string, unknown>): Row {
  const row: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) if (k !== '__from') row[camelCase(k)] = v;
  return row as Row;
}

/** A JSON value for `set` (jsonb columns): `set: { errors: jsonValue(errors) }`. */
export function jsonValue(value: unknown): Prisma.Sql {
  return Prisma.sql`${jsonText(value)}::jsonb`;
}
