/**
 * The Prisma schema (schema.prisma, or the folder prisma.config.ts names) must describe the database that prisma/migrations/*\/migration.sql builds
 * (decision A22: migrations are hand-written SQL, so nothing else keeps the two in step).
 *
 * The DMMF comes from the Prisma schema Wasm module bundled in the installed `prisma` package:
 * the very parser `prisma generate` ran to build src/generated/prisma, so it matches the installed
 * CLI exactly, works offline and needs no engine binary (no `@prisma/internals` 7.10.1 is
 * published, and the CLI itself may not be run for this). The database side is a clone of the
 * migrated template database built by test/helpers/global-setup.ts, read from
 * information_schema and pg_catalog.
 *
 * What is compared, per model: the table; its set of scalar columns; each column's type,
 * nullability and default (presence, and the value for literal defaults); the primary key;
 * @unique / @@unique; @@index (columns in order, sort order, method); relations' foreign keys
 * (columns, target, referential actions). Then the other way round: every table, index, foreign
 * key and enum in the database must be described by schema.prisma (or, for an index, be listed
 * in ALLOWED_EXTRA_INDEXES with its reason).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { withDatabase } from '../helpers/global-setup.js';
import { cloneDatabase, dropDatabase } from '../helpers/test-databases.js';
import { ROOT, SCHEMA_PATH, loadDatamodel, readSchema, type Datamodel, type DmmfField, type DmmfModel, type DmmfEnum } from '../helpers/dmmf.js';


/** Tables that are not Prisma models. */
const NON_MODEL_TABLES = new Set(['_migrations']);

/**
 * Indexes that exist in the SQL but cannot be expressed in schema.prisma (partial or expression
 * indexes). Key: `table.index`; value: why it exists. Every entry must still exist in the database.
 */
const ALLOWED_EXTRA_INDEXES: Record<string, string> = {
  // Issue 28 (partial uniques: Prisma's @@unique cannot express a WHERE clause).
  'auth_credentials.auth_credentials_one_otp_per_account': 'one live EMAIL_OTP and one SMS_OTP credential per internal account (partial: revoked rows do not count)',
  'auth_credentials.auth_credentials_passkey_once': 'a passkey registered once per account (partial: live PASSKEY rows)',
  'auth_credentials.auth_credentials_email_once': "an email tied to one wallet's live EMAIL_OTP per platform: EMAIL_OTP_EMAIL_ALREADY_EXISTS (partial)",
  'delegated_keys.delegated_keys_one_active': 'one ACTIVE delegated key per card funding source (partial)',
  'embedded_wallet_provisions.embedded_wallet_provisions_due_idx': 'the wallet provisioning sweep reads only owed rows (partial, issue 28)',
  'wallet_incoming_credits.wallet_incoming_credits_due_idx': 'the wallet credit sweep reads only credits not yet booked (partial, issue 28)',
  // Partial index (WHERE relayed_at IS NULL) for the outbox relay's scan of unrelayed events;
  // Prisma's @@index cannot express a WHERE clause.
  'webhook_events.webhook_events_unrelayed_idx': 'outbox relay scan of unrelayed events (partial)',
  'status_changes.status_changes_prunable_idx': 'retention deletes the status history past STATUS_CHANGE_RETENTION_DAYS, customers\' kept (partial, 30f)',
  'customers.customers_platform_customer_id_active_key': 'platformCustomerId unique among active (not deleted) customers (partial)',
  'external_accounts.external_accounts_live_identity_key': 'one live account per owner, currency and identity: the duplicate rule (partial)',
  'external_accounts.external_accounts_default_uma_key': 'one defaultUmaDepositAccount per customer (partial)',
  'external_account_challenges.external_account_challenges_outstanding_key': 'one outstanding challenge per account and purpose (partial)',
  'verifications.verifications_one_open_per_customer_key': 'at most one open verification per customer (partial)',
  'transactions.transactions_live_idx': 'the payments sweep scans only PENDING and PROCESSING transactions (partial)',
  // Issue 27 (cards that spend).
  'cards.cards_processing_idx': 'the card provisioning sweep scans only PROCESSING cards (partial)',
  'cards.cards_processor_ref_key': 'one card per issuer adapter and processor reference, once the issuer gave one (partial)',
  'card_transactions.card_transactions_open_idx': 'the expiry sweep scans only authorizations still holding money (partial)',
  'cards.cards_issuer_state_due_idx': 'the card sweep finds only cards whose state the issuer still has to acknowledge (partial)',
  'card_transactions.card_transactions_pull_idx': 'pull confirmations scan only transactions with a pending pull (partial)',
  'sca_challenges.sca_challenges_outstanding_idx': 'the SCA challenge expiry sweep scans only OUTSTANDING challenges (partial)',
  'sca_factor_resets.sca_factor_resets_open_idx': 'the factor-reset expiry sweep scans only open resets (partial)',
  'webhook_events.webhook_events_due_idx': 'the webhook delivery sweeper scans only PENDING relayed events (partial, issue 11)',
  'external_account_challenges.external_account_challenges_outcome_due_idx': 'the liveness-outcome sweeper scans only outstanding challenges with a recorded outcome (partial, issue 11)',
  'transactions.transactions_rail_reference_idx': 'lookups by rail reference; only rows that have one (partial, issue 12)',
  'transactions.transactions_platform_id_agent_id_id_idx': "an agent's payments; only rows made by an agent (partial, issue 12)",
  'transactions.transactions_processing_reconcile_idx': 'the reconciliation sweep: PROCESSING payments handed to an external rail (partial, issue 30)',
  'transactions.transactions_return_watch_due_idx': 'the reconciliation sweep: completed payouts still watched for a return, by their next check (partial, issue 30, 30g)',
  'transactions.transactions_refund_pending_idx': 'the refund sweep reads only refunds owed (partial, issue 30)',
  'transactions.transactions_refund_reference_idx': 'lookups by refund reference; only rows that have one (partial, issue 30)',
  'quotes.quotes_pending_expiry_idx': 'the quote expiry sweep reads only quotes that can expire (partial, issue 30)',
  'agent_actions.agent_actions_pending_expiry_idx': 'the agent-action expiry sweep reads only actions still PENDING_APPROVAL (partial, issue 26)',
  'agent_actions.agent_actions_pull_owed_idx': 'the owed-pull sweep reads only approved TRANSFER_IN actions without their transaction (partial, issue 26c)',
  'transactions.transactions_incoming_approval_due_idx': 'the incoming-approval window sweep reads only incoming payments waiting for their platform (partial, issue 25)',
  'webhook_events.webhook_events_unpruned_idx': 'retention reads only events whose payload is still whole and that are no longer PENDING (partial, issue 30; 27e)',
  'webhook_events.webhook_events_platform_id_delivery_status_id_idx': 'events by delivery status, for the FAILED and PENDING ones only (partial, issue 30)',
  'quotes.quotes_platform_id_destination_uma_address_id_idx': 'GET /quotes?receivingUmaAddress=: only quotes that pay a UMA address (partial, issue 30)',
  // Issue 30 (30c): keyed by a customer's or an account's globally unique id, without platform_id; the
  // platform's own payments (customer_id NULL) keep it.
  'transactions.transactions_customer_id_id_idx': "a customer's payments, without platform_id (partial: rows with a customer, 30c)",
  'transactions.transactions_customer_id_status_id_idx': "a customer's payments by status, without platform_id (partial, 30c)",
  'transactions.transactions_platform_own_id_idx': "the platform's own payments (customer_id NULL: partial, 30c)",
  'transactions.transactions_platform_own_status_id_idx': "the platform's own payments by status (partial, 30c)",
  'transactions.transactions_destination_account_id_id_idx': 'payments to an account, without platform_id (partial: rows with one, 30c)',
  'quotes.quotes_customer_id_id_idx': "a customer's quotes, without platform_id (partial: rows with a customer, 30c)",
  'quotes.quotes_platform_own_id_idx': "the platform's own quotes (customer_id NULL: partial, 30c)",
  'quotes.quotes_destination_account_id_id_idx': 'quotes paying an account, without platform_id (partial: rows with one, 30c)',
};

// ---------------------------------------------------------------------------------------------
// The database side

interface DbColumn {
  name: string;
  /** format_type(): e.g. `timestamp(3) with time zone`, `text[]`, `numeric(65,30)`. */
  type: string;
  /** information_schema.columns.data_type / udt_name: `ARRAY` + `_text`, `USER-DEFINED` + enum name. */
  dataType: string;
  udtName: string;
  nullable: boolean;
  default: string | null;
  identity: boolean;
  generated: boolean;
}
interface DbIndex {
  name: string;
  columns: string[];
  desc: boolean[];
  unique: boolean;
  primary: boolean;
  /** Has a WHERE clause or an expression column: never what a Prisma @@index/@unique means. */
  partialOrExpression: boolean;
  method: string;
}
interface DbForeignKey {
  name: string;
  columns: string[];
  refTable: string;
  refColumns: string[];
  onDelete: string;
  onUpdate: string;
}
interface DbTable {
  columns: Map<string, DbColumn>;
  indexes: DbIndex[];
  foreignKeys: DbForeignKey[];
}
interface DbSnapshot {
  tables: Map<string, DbTable>;
  enums: Map<string, string[]>;
}

async function readDatabase(client: pg.Client): Promise<DbSnapshot> {
  const tables = new Map<string, DbTable>();
  const t = await client.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  for (const r of t.rows) tables.set(r.table_name, { columns: new Map(), indexes: [], foreignKeys: [] });

  const cols = await client.query(
    `SELECT c.table_name, c.column_name, c.data_type, c.udt_name, c.is_nullable, c.column_default, c.is_identity, c.is_generated,
            format_type(a.atttypid, a.atttypmod) AS formatted
       FROM information_schema.columns c
       JOIN pg_namespace n ON n.nspname = c.table_schema
       JOIN pg_class k ON k.relnamespace = n.oid AND k.relname = c.table_name
       JOIN pg_attribute a ON a.attrelid = k.oid AND a.attname = c.column_name AND NOT a.attisdropped
      WHERE c.table_schema = 'public'
      ORDER BY c.table_name, c.ordinal_position`,
  );
  for (const r of cols.rows) {
    tables.get(r.table_name)?.columns.set(r.column_name, {
      name: r.column_name,
      type: r.formatted,
      dataType: r.data_type,
      udtName: r.udt_name,
      nullable: r.is_nullable === 'YES',
      default: r.column_default,
      identity: r.is_identity === 'YES',
      generated: r.is_generated === 'ALWAYS',
    });
  }

  // pg_indexes has the names; pg_index has what they mean (unique/primary/partial, column order).
  const idx = await client.query(
    `SELECT t.relname AS table_name, i.relname AS index_name, x.indisunique, x.indisprimary,
            (x.indpred IS NOT NULL OR x.indexprs IS NOT NULL OR 0 = ANY (x.indkey::int2[])) AS partial_or_expression,
            am.amname,
            ARRAY(SELECT a.attname::text FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns,
            ARRAY(SELECT (o.opt & 1) = 1 FROM unnest(x.indoption::int2[]) WITH ORDINALITY o(opt, ord) ORDER BY o.ord) AS descs
       FROM pg_indexes pi
       JOIN pg_class t ON t.relname = pi.tablename
       JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = pi.schemaname
       JOIN pg_class i ON i.relname = pi.indexname AND i.relnamespace = n.oid
       JOIN pg_index x ON x.indexrelid = i.oid AND x.indrelid = t.oid
       JOIN pg_am am ON am.oid = i.relam
      WHERE pi.schemaname = 'public'`,
  );
  for (const r of idx.rows) {
    tables.get(r.table_name)?.indexes.push({
      name: r.index_name,
      columns: r.columns,
      desc: r.descs,
      unique: r.indisunique,
      primary: r.indisprimary,
      partialOrExpression: r.partial_or_expression,
      method: r.amname,
    });
  }

  const fks = await client.query(
    `SELECT t.relname AS table_name, c.conname, rt.relname AS ref_table, c.confdeltype, c.confupdtype,
            ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns,
            ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.ord) AS ref_columns
       FROM pg_constraint c
       JOIN pg_class t ON t.oid = c.conrelid
       JOIN pg_class rt ON rt.oid = c.confrelid
       JOIN pg_namespace n ON n.oid = c.connamespace
      WHERE c.contype = 'f' AND n.nspname = 'public'`,
  );
  for (const r of fks.rows) {
    tables.get(r.table_name)?.foreignKeys.push({
      name: r.conname,
      columns: r.columns,
      refTable: r.ref_table,
      refColumns: r.ref_columns,
      onDelete: r.confdeltype,
      onUpdate: r.confupdtype,
    });
  }

  const enums = new Map<string, string[]>();
  const en = await client.query(
    `SELECT t.typname, e.enumlabel FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
       JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE n.nspname = 'public' ORDER BY t.typname, e.enumsortorder`,
  );
  for (const r of en.rows) {
    if (!enums.has(r.typname)) enums.set(r.typname, []);
    enums.get(r.typname)!.push(r.enumlabel);
  }
  return { tables, enums };
}

// ---------------------------------------------------------------------------------------------
// The comparison

const tableOf = (m: DmmfModel) => m.dbName ?? m.name;
const columnOf = (f: DmmfField) => f.dbName ?? f.name;
const scalarFields = (m: DmmfModel) => m.fields.filter((f) => f.kind === 'scalar' || f.kind === 'enum');
const enumDbName = (e: DmmfEnum) => e.dbName ?? e.name;
const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const sameSet = (a: string[], b: string[]) => a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * What format_type() must print for a field, as a pattern, or an error string when this test has
 * no mapping (so an unmapped type fails instead of passing unchecked).
 */
function expectedType(f: DmmfField): { re: RegExp; text: string } | string {
  const [native, args = []] = f.nativeType ?? [null, []];
  const exact = (s: string) => ({ re: new RegExp(`^${escapeRe(s)}$`), text: s });
  const withPrec = (base: string, suffix = '') =>
    args.length ? exact(`${base}(${args.join(',')})${suffix}`) : { re: new RegExp(`^${escapeRe(base)}(\\(\\d+\\))?${escapeRe(suffix)}$`), text: `${base}[(p)]${suffix}` };
  const table: Record<string, Record<string, () => { re: RegExp; text: string }>> = {
    String: {
      '': () => exact('text'),
      Text: () => exact('text'),
      VarChar: () => (args.length ? exact(`character varying(${args[0]})`) : exact('character varying')),
      Char: () => exact(`character(${args[0] ?? 1})`),
      Uuid: () => exact('uuid'),
      Xml: () => exact('xml'),
      Inet: () => exact('inet'),
      Citext: () => exact('citext'),
    },
    Int: { '': () => exact('integer'), Integer: () => exact('integer'), SmallInt: () => exact('smallint'), Oid: () => exact('oid') },
    BigInt: { '': () => exact('bigint'), BigInt: () => exact('bigint') },
    Float: { '': () => exact('double precision'), DoublePrecision: () => exact('double precision'), Real: () => exact('real') },
    // Prisma's own migrations would write numeric(65,30); a bare numeric is accepted as well.
    Decimal: {
      '': () => ({ re: /^numeric(\(\d+,\d+\))?$/, text: 'numeric' }),
      Decimal: () => (args.length ? exact(`numeric(${args.join(',')})`) : { re: /^numeric(\(\d+,\d+\))?$/, text: 'numeric' }),
      Money: () => exact('money'),
    },
    Boolean: { '': () => exact('boolean'), Boolean: () => exact('boolean') },
    DateTime: {
      '': () => exact('timestamp(3) without time zone'),
      Timestamptz: () => withPrec('timestamp', ' with time zone'),
      Timestamp: () => withPrec('timestamp', ' without time zone'),
      Date: () => exact('date'),
      Time: () => withPrec('time', ' without time zone'),
      Timetz: () => withPrec('time', ' with time zone'),
    },
    Json: { '': () => exact('jsonb'), JsonB: () => exact('jsonb'), Json: () => exact('json') },
    Bytes: { '': () => exact('bytea'), ByteA: () => exact('bytea') },
  };
  const make = table[f.type]?.[native ?? ''];
  if (!make) return `no type mapping in this test for ${f.type}${native ? ` @db.${native}` : ''}; extend expectedType()`;
  const base = make();
  if (!f.isList) return base;
  return { re: new RegExp(`${base.re.source.slice(0, -1)}\\[\\]$`), text: `${base.text}[]` };
}

/** Strips casts, parentheses and quotes from a Postgres default expression: `'PENDING'::text` → PENDING. */
function literalOf(expr: string): string | null {
  let s = expr.trim();
  for (;;) {
    const before = s;
    s = s.replace(/::[a-z_][a-z0-9_ ]*(\(\d+(,\d+)?\))?(\[\])?$/i, '').replace(/::"[^"]+"(\[\])?$/, '');
    if (/^\(.*\)$/s.test(s)) s = s.slice(1, -1).trim();
    if (s === before) break;
  }
  if (/^'.*'$/s.test(s)) return s.slice(1, -1).replace(/''/g, "'");
  if (/^(-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false)$/i.test(s)) return s;
  return null;
}

function checkDefault(f: DmmfField, col: DbColumn, enums: DmmfEnum[]): string | null {
  const hasDb = col.default !== null || col.identity;
  const shown = col.identity ? 'GENERATED AS IDENTITY' : `DEFAULT ${col.default}`;
  const d = f.default;
  if (d === undefined) {
    // @id columns may get their value from the database (e.g. a sequence) without Prisma knowing.
    if (hasDb && !f.isId) return `database has ${shown} but schema.prisma has no @default`;
    return null;
  }
  if (d !== null && typeof d === 'object' && !Array.isArray(d)) {
    const fn = (d as { name: string; args: unknown[] }).name;
    switch (fn) {
      case 'now':
        if (!hasDb) return `schema.prisma has @default(now()) but the column has no default`;
        if (!/^(now\(\)|CURRENT_TIMESTAMP(\(\d\))?|transaction_timestamp\(\))$/i.test(col.default ?? '')) return `schema.prisma has @default(now()) but the database has ${shown}`;
        return null;
      case 'autoincrement':
      case 'sequence':
        if (!col.identity && !/^nextval\(/i.test(col.default ?? '')) return `schema.prisma has @default(${fn}()) but the database has ${hasDb ? shown : 'no default'}`;
        return null;
      case 'dbgenerated':
        return hasDb ? null : `schema.prisma has @default(dbgenerated(...)) but the column has no default`;
      case 'uuid':
      case 'cuid':
      case 'nanoid':
      case 'ulid':
        // Generated by the Prisma client, not by the database: a database default is optional.
        return null;
      default:
        return `schema.prisma has @default(${fn}(...)), which this test does not know; extend checkDefault()`;
    }
  }
  if (!hasDb) return `schema.prisma has @default(${JSON.stringify(d)}) but the column has no default`;
  if (f.isList) return null; // array literals: presence only
  const lit = literalOf(col.default!);
  if (lit === null) return `cannot read the database default ${col.default} to compare with @default(${JSON.stringify(d)})`;
  let same: boolean;
  switch (f.kind === 'enum' ? 'enum' : f.type) {
    case 'Json':
      try {
        same = JSON.stringify(JSON.parse(String(d))) === JSON.stringify(JSON.parse(lit));
      } catch {
        same = false;
      }
      break;
    case 'Int':
    case 'Float':
    case 'Decimal':
      same = Number(d) === Number(lit);
      break;
    case 'BigInt':
      same = /^-?\d+$/.test(lit) && BigInt(String(d)) === BigInt(lit);
      break;
    case 'Boolean':
      same = String(d) === lit.toLowerCase();
      break;
    case 'DateTime':
      same = new Date(String(d)).getTime() === new Date(lit).getTime();
      break;
    case 'enum': {
      const e = enums.find((x) => x.name === f.type);
      const v = e?.values.find((x) => x.name === d);
      same = (v?.dbName ?? v?.name ?? d) === lit;
      break;
    }
    default:
      same = String(d) === lit;
  }
  return same ? null : `schema.prisma has @default(${JSON.stringify(d)}) but the database has ${shown}`;
}

const PG_ACTION: Record<string, string> = { Cascade: 'c', Restrict: 'r', NoAction: 'a', SetNull: 'n', SetDefault: 'd' };
const PG_ACTION_NAME: Record<string, string> = { c: 'CASCADE', r: 'RESTRICT', a: 'NO ACTION', n: 'SET NULL', d: 'SET DEFAULT' };

/**
 * Every difference between one model and the database, as messages naming the model, the field
 * and the mismatch. `claimed` collects `table.index` / `table.fk` names the model accounts for.
 */
function compareModel(model: DmmfModel, dm: Datamodel, db: DbSnapshot, claimed = new Set<string>()): string[] {
  const problems: string[] = [];
  const table = tableOf(model);
  const where = (f?: DmmfField) => (f ? `${model.name}.${f.name} (column ${table}.${columnOf(f)})` : `${model.name} (table ${table})`);
  if (model.schema && model.schema !== 'public') return [`${where()}: @@schema("${model.schema}") is not supported by this test`];
  const t = db.tables.get(table);
  if (!t) return [`${where()}: table "${table}" does not exist in the migrated database`];

  const fields = scalarFields(model);
  const byName = new Map(fields.map((f) => [f.name, f]));
  const col = (fieldName: string) => columnOf(byName.get(fieldName) ?? ({ name: fieldName } as DmmfField));

  // Columns: same set.
  const expectedCols = new Set(fields.map(columnOf));
  for (const f of model.fields) {
    if (f.kind === 'unsupported') problems.push(`${where(f)}: Unsupported("${f.type}") fields are not checked by this test`);
  }
  for (const c of t.columns.keys()) {
    if (!expectedCols.has(c)) problems.push(`${where()}: column "${c}" exists in the database but no field of ${model.name} maps to it`);
  }

  for (const f of fields) {
    const c = t.columns.get(columnOf(f));
    if (!c) {
      problems.push(`${where(f)}: column missing from the database`);
      continue;
    }
    // Type.
    const exp = f.kind === 'enum' ? null : expectedType(f);
    if (f.kind === 'enum') {
      const e = dm.enums.find((x) => x.name === f.type);
      const want = `${f.isList ? '_' : ''}${e ? enumDbName(e) : f.type}`;
      if (c.dataType !== (f.isList ? 'ARRAY' : 'USER-DEFINED') || c.udtName !== want) {
        problems.push(`${where(f)}: type: schema.prisma says enum ${f.type}${f.isList ? '[]' : ''} (Postgres type ${want}), database has ${c.type}`);
      }
    } else if (typeof exp === 'string') problems.push(`${where(f)}: ${exp}`);
    else if (exp && !exp.re.test(c.type)) {
      const prismaType = `${f.type}${f.isList ? '[]' : ''}${f.nativeType ? ` @db.${f.nativeType[0]}${f.nativeType[1].length ? `(${f.nativeType[1].join(',')})` : ''}` : ''}`;
      problems.push(`${where(f)}: type: schema.prisma says ${prismaType} (expects ${exp.text}), database has ${c.type}`);
    }
    if (f.isList && c.dataType !== 'ARRAY') problems.push(`${where(f)}: type: schema.prisma says a list, database column is ${c.dataType} (udt ${c.udtName})`);
    // Nullability. Scalar lists: Prisma's own migrations leave them nullable, so either is accepted.
    if (!f.isList && f.isRequired === c.nullable) {
      problems.push(
        `${where(f)}: nullability: schema.prisma says ${f.isRequired ? 'required (NOT NULL)' : 'optional (nullable)'}, database column is ${c.nullable ? 'nullable' : 'NOT NULL'}`,
      );
    }
    if (c.generated) problems.push(`${where(f)}: column is GENERATED ALWAYS in the database; Prisma would try to write it`);
    // Default.
    const d = checkDefault(f, c, dm.enums);
    if (d) problems.push(`${where(f)}: default: ${d}`);
  }

  // Primary key.
  const pkFields = model.primaryKey?.fields ?? fields.filter((f) => f.isId).map((f) => f.name);
  const pk = t.indexes.find((i) => i.primary);
  const wantPk = pkFields.map(col);
  if (!pk) {
    if (wantPk.length) problems.push(`${where()}: primary key: schema.prisma has @id/@@id (${wantPk.join(', ')}), the table has no primary key`);
  } else {
    claimed.add(`${table}.${pk.name}`);
    if (!sameList(pk.columns, wantPk)) problems.push(`${where()}: primary key: schema.prisma says (${wantPk.join(', ')}), database has (${pk.columns.join(', ')})`);
  }

  // Unique: @unique, @@unique, and the DMMF index list (which carries map: names).
  const modelIndexes = dm.indexes.filter((i) => i.model === model.name);
  const uniques = new Map<string, { fields: string[]; dbName?: string }>();
  const addUnique = (fs: string[], dbName?: string) => {
    const key = [...fs].sort().join(',');
    const prev = uniques.get(key);
    uniques.set(key, { fields: fs, dbName: dbName ?? prev?.dbName });
  };
  for (const f of fields) if (f.isUnique) addUnique([f.name]);
  for (const u of model.uniqueFields) addUnique(u);
  for (const u of model.uniqueIndexes) addUnique(u.fields);
  for (const i of modelIndexes) if (i.type === 'unique') addUnique(i.fields.map((x) => x.name), i.dbName);
  for (const u of uniques.values()) {
    const cols = u.fields.map(col);
    const label = u.fields.length === 1 ? `${model.name}.${u.fields[0]} @unique` : `${model.name} @@unique([${u.fields.join(', ')}])`;
    const match = t.indexes.find((i) => i.unique && !i.primary && !i.partialOrExpression && sameSet(i.columns, cols) && (!u.dbName || i.name === u.dbName));
    if (!match) {
      const near = t.indexes.filter((i) => sameSet(i.columns, cols)).map((i) => `${i.name}${i.unique ? ' (unique' : ' (not unique'}${i.partialOrExpression ? ', partial/expression)' : ')'}`);
      problems.push(`${label}: no unique index or constraint on exactly (${cols.join(', ')})${u.dbName ? ` named ${u.dbName}` : ''} in table ${table}${near.length ? `; found ${near.join(', ')}` : ''}`);
    } else claimed.add(`${table}.${match.name}`);
  }

  // @@index: same columns in the same order, same sort order and method, not unique, not partial.
  for (const i of modelIndexes.filter((x) => x.type === 'normal' || x.type === 'fulltext')) {
    const cols = i.fields.map((x) => col(x.name));
    const desc = i.fields.map((x) => x.sortOrder === 'desc');
    const method = (i.algorithm ?? 'BTree').toLowerCase();
    const label = `${model.name} @@index([${i.fields.map((x) => x.name + (x.sortOrder === 'desc' ? '(sort: Desc)' : '')).join(', ')}])`;
    const match = t.indexes.find(
      (x) => !x.unique && !x.primary && !x.partialOrExpression && sameList(x.columns, cols) && desc.every((d, k) => x.desc[k] === d) && x.method === method && (!i.dbName || x.name === i.dbName) && !claimed.has(`${table}.${x.name}`),
    );
    if (!match) {
      const near = t.indexes.filter((x) => sameSet(x.columns, cols)).map((x) => `${x.name} on (${x.columns.map((c, k) => (x.desc[k] ? `${c} DESC` : c)).join(', ')})${x.unique ? ' unique' : ''}${x.partialOrExpression ? ' partial/expression' : ''} ${x.method}`);
      problems.push(`${label}: no matching ${method} index on (${cols.join(', ')}) in this column order${i.dbName ? ` named ${i.dbName}` : ''} in table ${table}${near.length ? `; found ${near.join('; ')}` : ''}`);
    } else claimed.add(`${table}.${match.name}`);
  }

  // Relations that hold the foreign key: a matching FK constraint with Prisma's referential actions.
  for (const f of model.fields.filter((x) => x.kind === 'object' && x.relationFromFields?.length)) {
    const target = dm.models.find((m) => m.name === f.type);
    if (!target) continue;
    const targetCols = new Map(scalarFields(target).map((x) => [x.name, columnOf(x)]));
    const cols = f.relationFromFields!.map(col);
    const refCols = (f.relationToFields ?? []).map((n) => targetCols.get(n) ?? n);
    const anyOptional = f.relationFromFields!.some((n) => !byName.get(n)?.isRequired);
    const onDelete = f.relationOnDelete ?? (anyOptional ? 'SetNull' : 'Restrict');
    const onUpdate = f.relationOnUpdate ?? 'Cascade';
    const label = `${model.name}.${f.name} (relation to ${f.type} via ${cols.join(', ')})`;
    const fk = t.foreignKeys.find((k) => sameList(k.columns, cols) && k.refTable === tableOf(target) && sameList(k.refColumns, refCols));
    if (!fk) {
      problems.push(`${label}: no foreign key (${cols.join(', ')}) REFERENCES ${tableOf(target)}(${refCols.join(', ')}) in table ${table}`);
      continue;
    }
    claimed.add(`${table}.fk.${fk.name}`);
    if (fk.onDelete !== PG_ACTION[onDelete]) problems.push(`${label}: onDelete: schema.prisma means ${onDelete}, foreign key ${fk.name} has ON DELETE ${PG_ACTION_NAME[fk.onDelete]}`);
    if (fk.onUpdate !== PG_ACTION[onUpdate]) problems.push(`${label}: onUpdate: schema.prisma means ${onUpdate}, foreign key ${fk.name} has ON UPDATE ${PG_ACTION_NAME[fk.onUpdate]}`);
  }

  // Whatever the model does not account for.
  for (const i of t.indexes) {
    if (!claimed.has(`${table}.${i.name}`) && !(`${table}.${i.name}` in ALLOWED_EXTRA_INDEXES)) {
      problems.push(
        `${where()}: index ${i.name} on (${i.columns.join(', ')})${i.unique ? ' UNIQUE' : ''}${i.partialOrExpression ? ' (partial/expression)' : ''} is not described by schema.prisma; add @@index/@@unique, or list it in ALLOWED_EXTRA_INDEXES with the reason`,
      );
    }
  }
  for (const k of t.foreignKeys) {
    if (!claimed.has(`${table}.fk.${k.name}`)) {
      problems.push(`${where()}: foreign key ${k.name} (${k.columns.join(', ')}) REFERENCES ${k.refTable}(${k.refColumns.join(', ')}) has no relation field in schema.prisma`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------

// Parsed at collection time: a schema that does not parse fails this file with Prisma's message.
const dm: Datamodel = loadDatamodel(readSchema());
let db: DbSnapshot;
let cloneName: string;

beforeAll(async () => {
  // Read a clone, not the template itself: `CREATE DATABASE ... TEMPLATE` in parallel test files
  // fails while anyone is connected to the template.
  const rootUrl = inject('databaseUrl');
  // Named like test/helpers/app.ts's databases (svc_t_<epoch s>_<hex>) so global-setup's sweep of
  // crashed runs' leftovers recognises it.
  cloneName = `svc_t_${Math.floor(Date.now() / 1000)}_${randomBytes(5).toString('hex')}`;
  // On the Citus rehearsal (TEST_CITUS_WORKERS) a clone on every node, as the other files' databases (29f).
  await cloneDatabase(rootUrl, cloneName, inject('templateDb'));
  const client = new pg.Client({ connectionString: withDatabase(rootUrl, cloneName) });
  await client.connect();
  try {
    db = await readDatabase(client);
  } finally {
    await client.end();
  }
});

afterAll(async () => {
  if (cloneName) await dropDatabase(inject('databaseUrl'), cloneName);
});

const modelNames = dm.models.map((m) => m.name);

describe(`the Prisma schema (${path.relative(ROOT, SCHEMA_PATH)}) matches the migrated database (decision A22)`, () => {
  it('reads a non-trivial DMMF and database', () => {
    expect(dm.models.length).toBeGreaterThan(0);
    expect(db.tables.size).toBeGreaterThan(0);
    expect(db.tables.has('_migrations'), 'the template database should have been migrated').toBe(true);
  });

  it.each(modelNames)('model %s matches its table', (name) => {
    const model = dm.models.find((m) => m.name === name);
    expect(model, `model ${name}`).toBeDefined();
    const problems = compareModel(model!, dm, db);
    expect(problems, `schema.prisma and prisma/migrations disagree on model ${name}:\n  ${problems.join('\n  ')}`).toEqual([]);
  });

  it('every table in the database has a model', () => {
    const mapped = new Set(dm.models.map(tableOf));
    const orphans = [...db.tables.keys()].filter((t) => !mapped.has(t) && !NON_MODEL_TABLES.has(t));
    expect(orphans, `tables created by prisma/migrations with no model in schema.prisma: ${orphans.join(', ')}`).toEqual([]);
  });

  it('every enum matches a Postgres enum with the same values, and the other way round', () => {
    const problems: string[] = [];
    for (const e of dm.enums) {
      const values = e.values.map((v) => v.dbName ?? v.name);
      const inDb = db.enums.get(enumDbName(e));
      if (!inDb) problems.push(`enum ${e.name}: no Postgres enum type "${enumDbName(e)}"`);
      else if (!sameSet(values, inDb)) problems.push(`enum ${e.name}: schema.prisma has [${values.join(', ')}], Postgres enum ${enumDbName(e)} has [${inDb.join(', ')}]`);
      else if (!sameList(values, inDb)) problems.push(`enum ${e.name}: same values in a different order (Postgres sorts enums by declaration): schema.prisma [${values.join(', ')}], database [${inDb.join(', ')}]`);
    }
    const declared = new Set(dm.enums.map(enumDbName));
    for (const name of db.enums.keys()) if (!declared.has(name)) problems.push(`Postgres enum ${name} has no enum in schema.prisma`);
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('every ALLOWED_EXTRA_INDEXES entry still exists and is not already described by schema.prisma', () => {
    const claimed = new Set<string>();
    for (const m of dm.models) compareModel(m, dm, db, claimed);
    const stale = Object.keys(ALLOWED_EXTRA_INDEXES).filter((key) => {
      const [table, name] = key.split('.') as [string, string];
      return !db.tables.get(table)?.indexes.some((i) => i.name === name) || claimed.has(key);
    });
    expect(stale, `remove these from ALLOWED_EXTRA_INDEXES (gone, or now matched by an @@index/@@unique): ${stale.join(', ')}`).toEqual([]);
  });

  describe('the comparison reports drift (guards against a test that cannot fail)', () => {
    const clone = <T>(x: T): T => structuredClone(x);
    const pick = (pred: (m: DmmfModel) => boolean) => {
      const m = dm.models.find(pred);
      if (!m) throw new Error('no model fits this sanity check');
      return clone(m);
    };

    it('flipped nullability', () => {
      const m = pick((x) => scalarFields(x).some((f) => !f.isList && !f.isId));
      const f = scalarFields(m).find((x) => !x.isList && !x.isId)!;
      f.isRequired = !f.isRequired;
      const problems = compareModel(m, dm, db);
      expect(problems).toContainEqual(expect.stringMatching(new RegExp(`^${escapeRe(`${m.name}.${f.name}`)} .*nullability`)));
    });

    it('changed type', () => {
      const m = pick((x) => scalarFields(x).some((f) => f.type === 'String' && !f.isList));
      const f = scalarFields(m).find((x) => x.type === 'String' && !x.isList)!;
      f.type = 'Int';
      expect(compareModel(m, dm, db)).toContainEqual(expect.stringMatching(new RegExp(`^${escapeRe(`${m.name}.${f.name}`)} .*type: schema.prisma says Int`)));
    });

    it('a field with no column, and a column with no field', () => {
      const m = pick((x) => scalarFields(x).some((f) => !f.isId));
      const i = m.fields.findIndex((x) => (x.kind === 'scalar' || x.kind === 'enum') && !x.isId);
      const [removed] = m.fields.splice(i, 1, { ...m.fields[i]!, name: 'ghost', dbName: 'ghost_column' });
      const problems = compareModel(m, dm, db);
      expect(problems).toContainEqual(expect.stringContaining(`${m.name}.ghost (column ${tableOf(m)}.ghost_column): column missing`));
      expect(problems).toContainEqual(expect.stringContaining(`column "${columnOf(removed!)}" exists in the database but no field of ${m.name}`));
    });

    it('a default added or removed', () => {
      const m = pick((x) => scalarFields(x).some((f) => f.hasDefaultValue && !f.isId));
      const f = scalarFields(m).find((x) => x.hasDefaultValue && !x.isId)!;
      delete f.default;
      f.hasDefaultValue = false;
      expect(compareModel(m, dm, db)).toContainEqual(expect.stringMatching(new RegExp(`^${escapeRe(`${m.name}.${f.name}`)} .*default: database has DEFAULT`)));
      const m2 = pick((x) => scalarFields(x).some((f) => !f.hasDefaultValue && !f.isId && f.type === 'String' && !f.isList));
      const f2 = scalarFields(m2).find((x) => !x.hasDefaultValue && !x.isId && x.type === 'String' && !x.isList)!;
      f2.default = 'x';
      f2.hasDefaultValue = true;
      expect(compareModel(m2, dm, db)).toContainEqual(expect.stringMatching(new RegExp(`^${escapeRe(`${m2.name}.${f2.name}`)} .*default: .*no default`)));
    });

    it('a different default value', () => {
      const m = pick((x) => scalarFields(x).some((f) => f.hasDefaultValue && typeof f.default !== 'object'));
      const f = scalarFields(m).find((x) => x.hasDefaultValue && typeof x.default !== 'object')!;
      f.default = typeof f.default === 'boolean' ? !f.default : typeof f.default === 'number' ? f.default + 1 : `${String(f.default)}-changed`;
      expect(compareModel(m, dm, db)).toContainEqual(expect.stringMatching(new RegExp(`^${escapeRe(`${m.name}.${f.name}`)} .*default: schema.prisma has @default`)));
    });

    it('an @@index the database lacks, and a unique the database lacks', () => {
      const m = pick((x) => scalarFields(x).filter((f) => !f.isId).length >= 2);
      const [a, b] = scalarFields(m).filter((f) => !f.isId) as [DmmfField, DmmfField];
      const dm2: Datamodel = { ...dm, indexes: [...dm.indexes, { model: m.name, type: 'normal', fields: [{ name: b.name }, { name: a.name }] }] };
      expect(compareModel(m, dm2, db)).toContainEqual(expect.stringContaining(`${m.name} @@index([${b.name}, ${a.name}]): no matching btree index`));
      const m2 = clone(m);
      m2.uniqueFields = [...m2.uniqueFields, [a.name, b.name]];
      expect(compareModel(m2, dm, db)).toContainEqual(expect.stringContaining(`${m.name} @@unique([${a.name}, ${b.name}]): no unique index`));
    });

    it('an index in the database that schema.prisma does not describe', () => {
      const withIndex = dm.indexes.find((i) => i.type === 'normal')!;
      const m = pick((x) => x.name === withIndex.model);
      const dm2: Datamodel = { ...dm, indexes: dm.indexes.filter((i) => i !== withIndex) };
      expect(compareModel(m, dm2, db)).toContainEqual(expect.stringMatching(/index \S+ on \(.*\) is not described by schema\.prisma/));
    });

    it('a different primary key', () => {
      const m = pick((x) => scalarFields(x).some((f) => f.isId));
      const id = scalarFields(m).find((f) => f.isId)!;
      const other = scalarFields(m).find((f) => !f.isId)!;
      id.isId = false;
      other.isId = true;
      expect(compareModel(m, dm, db)).toContainEqual(expect.stringContaining(`${m.name} (table ${tableOf(m)}): primary key: schema.prisma says (${columnOf(other)})`));
    });

    it('a relation whose referential action differs, and a missing table', () => {
      const m = pick((x) => x.fields.some((f) => f.kind === 'object' && !!f.relationFromFields?.length));
      const rel = m.fields.find((f) => f.kind === 'object' && !!f.relationFromFields?.length)!;
      rel.relationOnDelete = 'Cascade';
      expect(compareModel(m, dm, db)).toContainEqual(expect.stringContaining(`${m.name}.${rel.name} (relation to ${rel.type}`));
      const gone = pick(() => true);
      gone.dbName = 'no_such_table';
      expect(compareModel(gone, dm, db)).toEqual([`${gone.name} (table no_such_table): table "no_such_table" does not exist in the migrated database`]);
    });
  });
});
