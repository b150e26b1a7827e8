import type pg from 'pg';
import { query } from './db.js';
import { snakeCase } from './column-names.js';
import { jsonText } from './outbox.js';
import { sqlIdentifier } from './sql/identifiers.js';

/**
 * Issue 12: a unit of writes sent to Postgres as ONE statement — a chain of data-modifying CTEs —
 * so an operation on the money path costs one round trip and commits or rolls back whole without
 * BEGIN/COMMIT. Guards (compare-and-sets, balance checks) are CTEs whose row count is asserted at
 * the end: a guard that changed fewer rows than required raises `svc_assert` (migration
 * 20261125040000_one_statement) with the guard's code, which aborts the statement, every write of
 * it included. The caller maps the code to its domain error (`OneStatementRefused`).
 *
 * Rows are written with `json_populate_recordset(NULL::<table>, $n)`: values take the columns' own
 * types, and only the columns named in the rows are written (the rest keep their defaults).
 * Identifiers (table and CTE names, columns) come from code, never from input (sqlIdentifier).
 *
 * Worked example: the statement startPendingPayment (money-path.repo.ts) builds for POST /quotes/{id}/execute
 * with an Idempotency-Key, abridged ($n are bind parameters; the text is the same for every payment):
 *
 *   WITH cas AS (UPDATE "transactions" SET "status" = 'PROCESSING', "pending_reason" = NULL, "updated_at" = $3
 *                 WHERE "id" = $1 AND "platform_id" = $2 AND ("status" = ANY($4::text[])) AND ("pending_reason" IS NULL)
 *                 RETURNING *),                                          -- transition(): the compare-and-set
 *        cas_history AS (INSERT INTO "status_changes" (…) SELECT $5, cas."platform_id", 'transaction', svc_resource_key(cas."id"), 'execute', … FROM cas),
 *        qu AS (UPDATE "quotes" SET "status" = 'PROCESSING', "executed_at" = $9 … WHERE "id" = $7 … AND (EXISTS (SELECT 1 FROM "cas")) RETURNING *),
 *        qu_history AS (INSERT INTO "status_changes" (…) SELECT … FROM qu),
 *        tev AS (INSERT INTO webhook_events (id, platform_id, type, data)
 *                SELECT id, platform_id, type, data FROM json_populate_recordset(NULL::webhook_events, $15::json) RETURNING 1),
 *        hold_j AS (INSERT INTO ledger_journals (…) SELECT … FROM json_populate_recordset(NULL::ledger_journals, $16::json) RETURNING 1),
 *        hold_e AS (INSERT INTO ledger_entries (…) SELECT … FROM json_populate_recordset(NULL::ledger_entries, $17::json) RETURNING 1),
 *        hold_bal AS (UPDATE internal_accounts a SET available_balance = a.available_balance + d.available, held_balance = …
 *                       FROM svc_balance_moves($19::text[], …) AS d
 *                      WHERE a.id = d.id AND (a.platform_id = $18 AND … a.available_balance + d.available >= 0 …) IS TRUE
 *                        AND EXISTS (SELECT 1 FROM cas) RETURNING a.*, d.event_id, d.currency_json),
 *        hold_ev AS (INSERT INTO webhook_events (…) SELECT b.event_id, …, 'INTERNAL_ACCOUNT.BALANCE_UPDATED', jsonb_build_object(…) FROM hold_bal b),
 *        idem AS (INSERT INTO idempotency_records (…) SELECT … FROM unnest($26::text[], …) ON CONFLICT (platform_id, key) DO UPDATE … RETURNING 1)
 *   (each `require` adds its guard right after the CTE it counts, e.g.
 *        cas_guard1 AS (SELECT svc_assert((SELECT count(*) FROM cas) = $6::bigint, 'QUOTE_NOT_PENDING') AS ok), …)
 *   SELECT 1 AS ok FROM (SELECT CASE WHEN (SELECT count(*) FROM cas_guard1) < 0 THEN 'UNREACHABLE'
 *                                    WHEN (SELECT count(*) FROM qu_guard2) < 0 THEN 'UNREACHABLE'
 *                                    WHEN (SELECT count(*) FROM tev) < 0 THEN 'UNREACHABLE'    -- insertNow(): tev, hold_j, hold_e run here
 *                                    WHEN (SELECT count(*) FROM hold_j) < 0 THEN 'UNREACHABLE' …
 *                                    WHEN (SELECT count(*) FROM hold_bal_guard3) < 0 THEN 'UNREACHABLE'   -- INSUFFICIENT_FUNDS
 *                                    WHEN (SELECT count(*) FROM idem_guard4) < 0 THEN 'UNREACHABLE' END AS failed) AS guard
 *    WHERE svc_assert(guard.failed IS NULL, guard.failed)
 *
 * The guards run in the order required, each CASE branch reading its CTE (which runs it); the first that
 * fails raises and the whole statement — every CTE, the ones not yet read included — writes nothing. On
 * Citus every CTE runs in the order written before the final SELECT: each guard still raises before the
 * writes added after it (issue 29, 29e).
 * CTEs nobody reads (the history rows, hold_ev) run at the end of the statement, as Postgres runs every
 * data-modifying CTE exactly once. A concurrent execute loses at `cas` (0 rows: QUOTE_NOT_PENDING) before
 * any journal is inserted; a short balance loses at `hold_bal` after the row lock of `cas`.
 */
export class OneStatement {
  private readonly ctes: string[] = [];
  /** CTEs the final guard reads in order (the guards' and insertNow's inserts): Postgres runs each where it is first read. */
  private readonly asserts: Array<{ run: string[] }> = [];
  private guards = 0;
  /** CTEs of `insert` not yet run by `insertNow`: they read nothing of the statement's. */
  private inserts: string[] = [];
  readonly values: unknown[] = [];

  /** A bind parameter for `value`; returns its placeholder. */
  param(value: unknown): string {
    this.values.push(typeof value === 'bigint' ? value.toString() : value);
    return `$${this.values.length}`;
  }

  /** A CTE of raw SQL (built with `param`); its RETURNING rows can be read by later CTEs. */
  with(name: string, sql: string): this {
    this.ctes.push(`${ident(name)} AS (${sql})`);
    return this;
  }

  /**
   * Fails the whole statement with `code` unless CTE `cte` returned exactly `rows` rows — with `when` (SQL
   * over earlier CTEs), only where that holds (a journal posted only if its key is new: its balances then).
   */
  require(cte: string, rows: number, code: string, when?: string): this {
    if (!/^[A-Z_]+$/.test(code)) throw new Error(`OneStatement: bad code ${code}`);
    // The refusal is decided by a CTE of its own, placed after the CTE it counts and before every write added
    // later (issue 29, 29e). Plain Postgres runs it where the final guard first reads it, as before: in the
    // order required, before the inserts insertNow puts after it. Citus runs a statement's CTEs one by one, in
    // order, before its final SELECT (each a step of its own): the refusal is then raised (SV001, on the
    // coordinator) before a later write can fail in its stead — a journal's taken key as a duplicate key, a
    // COPY's error without its SQLSTATE. Either way the statement writes nothing.
    // A parameter, not a literal: a batch of any size is the same statement text (one prepared statement, planned once).
    const guard = `${ident(cte)}_guard${++this.guards}`;
    this.with(guard, `SELECT svc_assert(${when ? `NOT (${when}) OR ` : ''}(SELECT count(*) FROM ${ident(cte)}) = ${this.param(rows)}::bigint, '${code}') AS ok`);
    this.asserts.push({ run: [guard] });
    return this;
  }

  /**
   * Runs the inserts added so far at this point of the guards (Postgres runs a CTE when the query first
   * reads it, the others at the end). Called before a guard that locks a shared row — a platform's hot
   * balance —, which then holds it only for the rest of the statement and its commit, not while the
   * statement's other rows are written. Call it after the compare-and-sets: an insert that conflicts
   * with a concurrent winner (a journal's key) must not run before the guard that refuses the loser.
   */
  insertNow(): this {
    if (this.inserts.length > 0) this.asserts.push({ run: this.inserts });
    this.inserts = [];
    return this;
  }

  /** Inserts `rows` (camelCase keys of the Prisma model, mapped to snake_case columns) into `table`. */
  insert(name: string, table: string, rows: ReadonlyArray<Record<string, unknown>>, returning = ''): this {
    if (rows.length === 0) return this;
    const { json, columns } = rowsJson(rows);
    const list = columns.join(', ');
    this.with(
      name,
      `INSERT INTO ${ident(table)} (${list}) SELECT ${list} FROM json_populate_recordset(NULL::${ident(table)}, ${this.param(json)}::json) RETURNING ${returning || '1'}`,
    );
    this.inserts.push(ident(name));
    return this;
  }

  /**
   * Inserts `rows` unless a row with the same `conflict` key exists (ON CONFLICT DO NOTHING: a concurrent
   * writer of the key is waited for); RETURNING the rows written, for later CTEs to gate on.
   */
  insertUnlessPresent(name: string, table: string, rows: ReadonlyArray<Record<string, unknown>>, conflict: readonly string[]): this {
    const { json, columns } = rowsJson(rows);
    const list = columns.join(', ');
    return this.with(
      name,
      `INSERT INTO ${ident(table)} (${list}) SELECT ${list} FROM json_populate_recordset(NULL::${ident(table)}, ${this.param(json)}::json) ON CONFLICT (${conflict.map(ident).join(', ')}) DO NOTHING RETURNING 1`,
    );
  }

  /**
   * Inserts `rows` only when `condition` (SQL over earlier CTEs, e.g. `EXISTS (SELECT 1 FROM go)`) holds:
   * one statement that writes either of two outcomes (issue 27's card authorization: the approval when
   * the hold was taken, else the decline) without a guard failing the statement.
   */
  insertIf(name: string, table: string, rows: ReadonlyArray<Record<string, unknown>>, condition: string, returning = ''): this {
    if (rows.length === 0) return this;
    const { json, columns } = rowsJson(rows);
    const list = columns.join(', ');
    return this.with(
      name,
      `INSERT INTO ${ident(table)} (${list}) SELECT ${list} FROM json_populate_recordset(NULL::${ident(table)}, ${this.param(json)}::json) WHERE ${condition} RETURNING ${returning || '1'}`,
    );
  }

  /** The statement: the CTEs, then `select` (SQL over them) guarded by every `require`. */
  sql(select: string): string {
    // The guards' CTEs, in the order they were required, raise the first refusal; inserts run where insertNow put them.
    const cases = this.asserts.flatMap((a) => a.run.map((cte) => `WHEN (SELECT count(*) FROM ${cte}) < 0 THEN 'UNREACHABLE'`)).join(' ');
    const guard = cases ? ` FROM (SELECT CASE ${cases} END AS failed) AS guard WHERE svc_assert(guard.failed IS NULL, guard.failed)` : '';
    return `WITH ${this.ctes.join(',\n')}\nSELECT ${select}${guard}`;
  }

  /**
   * Runs it on `pool` (autocommit: the statement is its own transaction), or on a client inside a
   * transaction of the caller's (several statements committed together: batches).
   */
  async run<R extends Record<string, unknown>>(on: pg.Pool | pg.PoolClient, select = '1 AS ok'): Promise<R[]> {
    try {
      return (await query<R>(on, this.sql(select), this.values)).rows;
    } catch (err) {
      const e = err as { code?: string; message?: string };
      if (e.code === ASSERT_SQLSTATE && e.message) throw new OneStatementRefused(e.message);
      throw err;
    }
  }
}

/**
 * Rows another domain adds to a writer's statement (a consumed SCA challenge): its CTEs and guards, and
 * the error a refusal of its guards means to the request (undefined: not its guard).
 */
export interface StatementPart {
  add(s: OneStatement): void;
  refusal(code: string): Error | undefined;
}

/** A Prisma client or interactive transaction: what `runIn` needs of it. */
export interface RawRunner {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

/**
 * The statement run inside the caller's Prisma transaction, with whatever else that transaction writes
 * (a consumed SCA challenge, an agent's counted usage, a recorded deposit): the same statement text as
 * `run`, so one builder serves the money path's autocommit writes and its transactional ones. A refused
 * guard raises OneStatementRefused (the caller's transaction then rolls back whole).
 */
export async function runIn<R = Record<string, unknown>>(s: OneStatement, tx: RawRunner, select = '1 AS ok'): Promise<R[]> {
  try {
    return await tx.$queryRawUnsafe<R[]>(s.sql(select), ...s.values);
  } catch (err) {
    const refused = refusalOf(err);
    if (refused) throw new OneStatementRefused(refused);
    throw err;
  }
}

/** The guard's code when `err` is svc_assert's error as Prisma wraps it (through @prisma/adapter-pg). */
function refusalOf(err: unknown): string | undefined {
  const cause = (err as { meta?: { driverAdapterError?: { cause?: { originalCode?: unknown; originalMessage?: unknown; message?: unknown } } } })?.meta?.driverAdapterError?.cause;
  if (!cause || cause.originalCode !== ASSERT_SQLSTATE) return undefined;
  const message = typeof cause.originalMessage === 'string' ? cause.originalMessage : typeof cause.message === 'string' ? cause.message : '';
  return /^[A-Z_]+$/.test(message) ? message : undefined;
}

/** The SQLSTATE `svc_assert` raises with. */
const ASSERT_SQLSTATE = 'SV001';

/** A guard of a OneStatement did not hold; nothing was written. `code` is the guard's. */
export class OneStatementRefused extends Error {
  constructor(readonly code: string) {
    super(`one-statement guard failed: ${code}`);
  }
}

/**
 * A pre-serialized JSON value for a row of `insert` (an event's payload): written into the statement's
 * JSON as it is, not parsed and serialized again.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * The rows as the JSON array `insert` sends, with snake_case keys, and the columns named (a value
 * undefined is left out: the column keeps its default). Written as text, key by key: a row object with
 * the columns' names built first cost more than the rest of the insert (keyed stores of 60 fields).
 */
function rowsJson(rows: ReadonlyArray<Record<string, unknown>>): { json: string; columns: string[] } {
  const columns = new Set<string>();
  let json = '[';
  for (const row of rows) {
    let out = '';
    for (const k in row) {
      const v = row[k];
      // Left out as JSON.stringify leaves it out (undefined, a function): the column keeps its default.
      const text = v === undefined ? undefined : valueJson(v);
      if (text === undefined) continue;
      const column = ident(snakeCase(k));
      columns.add(column);
      out += `${out ? ',' : ''}"${column}":${text}`;
    }
    json += `${json.length > 1 ? ',' : ''}{${out}}`;
  }
  return { json: `${json}]`, columns: [...columns] };
}

function valueJson(v: unknown): string | undefined {
  // The scalars of a row first, as JSON.stringify writes them, without a call through jsonText's try each.
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return `"${v}"`;
  }
  if (v instanceof Date) return `"${v.toISOString()}"`;
  if (v instanceof JsonText) return v.text;
  return jsonText(v) as string | undefined;
}

/** Identifiers checked once each: they are code's, a few hundred at most. */
const identifiers = new Set<string>();

function ident(name: string): string {
  if (identifiers.has(name)) return name;
  identifiers.add(sqlIdentifier(name));
  return name;
}
