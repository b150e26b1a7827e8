import { PrismaPg } from '@prisma/adapter-pg';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { Prisma, PrismaClient } from '../generated/prisma/client.js';

export { Prisma };
export type { PrismaClient };

export interface DbOptions {
  poolMax?: number;
  /** Idle connections are closed after this long; 0 keeps them open. Unset: pg's 10 s (one-off tools end sooner). */
  idleTimeoutMs?: number;
  /**
   * How long a statement or transaction may wait for a pooled connection (or for a new one to open)
   * before giving up (then 503): Prisma's interactive transactions and the hot path's raw statements alike.
   */
  txMaxWaitMs?: number;
  /** Upper bound on one interactive transaction. */
  txTimeoutMs?: number;
  /** Raw hot-path statements (`query`) as named prepared statements; off behind PgBouncer < 1.21. */
  preparedStatements?: boolean;
}

/** Sees every statement sent on a pool (tests count the statements of an operation with it; the plan tests EXPLAIN them with their values). */
export type StatementListener = (text: string, values?: unknown[]) => void;

const pools = new WeakMap<PrismaClient, pg.Pool>();
const listeners = new WeakMap<pg.Pool, Set<StatementListener>>();
const prepared = new WeakMap<pg.Pool, boolean>();
const poolOfClient = new WeakMap<pg.PoolClient | pg.Client, pg.Pool>();

export function createPrisma(databaseUrl: string, opts: DbOptions | number = {}): PrismaClient {
  const o = typeof opts === 'number' ? { poolMax: opts } : opts;
  // Our pool, handed to Prisma: hot paths may run raw SQL on the same connections (poolOf).
  // A bounded wait for a connection: without it a raw statement queues forever behind a busy pool.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: o.poolMax ?? 10, connectionTimeoutMillis: o.txMaxWaitMs ?? 10_000, ...(o.idleTimeoutMs === undefined ? {} : { idleTimeoutMillis: o.idleTimeoutMs }) });
  prepared.set(pool, o.preparedStatements ?? true);
  pool.on('connect', (client) => {
    poolOfClient.set(client, pool);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const set = listeners.get(pool);
      if (set?.size) {
        const first = args[0] as string | { text?: string; values?: unknown[] };
        const text = typeof first === 'string' ? first : first?.text ?? '';
        const values = typeof first === 'string' ? (Array.isArray(args[1]) ? (args[1] as unknown[]) : undefined) : first?.values;
        for (const l of set) l(text, values);
      }
      return query(...args);
    };
  });
  const adapter = new PrismaPg(pool, { disposeExternalPool: true });
  const prisma = new PrismaClient({ adapter, transactionOptions: { maxWait: o.txMaxWaitMs ?? 10_000, timeout: o.txTimeoutMs ?? 15_000 } });
  pools.set(prisma, pool);
  return prisma;
}

/** The pg pool under a client made by createPrisma. */
export function poolOf(prisma: PrismaClient): pg.Pool {
  const pool = pools.get(prisma);
  if (!pool) throw new Error('poolOf: this client was not made by createPrisma');
  return pool;
}

const statementNames = new Map<string, string>();

/**
 * A raw statement on the pool (hot paths, behind their domain's repository). Named after a hash of
 * its text, so each connection parses and plans it once and then only binds and executes — unless
 * the pool was made with `preparedStatements: false` (a pooler that cannot track them).
 */
export function query<R extends pg.QueryResultRow>(on: pg.Pool | pg.PoolClient, text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
  if (!(on instanceof pg.Pool ? prepared.get(on) : prepared.get(poolOfClient.get(on)!))) return on.query<R>(text, values);
  let name = statementNames.get(text);
  if (!name) {
    name = `s_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
    // The texts are code's (a handful of shapes per statement), so the map stays small.
    statementNames.set(text, name);
  }
  return on.query<R>({ name, text, values });
}

/** Whether raw statements on `pool` may be named (prepared once per connection): createPrisma's `preparedStatements`. */
export function preparedStatements(pool: pg.Pool): boolean {
  return prepared.get(pool) ?? true;
}

/** Calls `listener` with every statement sent on the client's pool until the returned function is called. */
export function onStatement(prisma: PrismaClient, listener: StatementListener): () => void {
  const pool = poolOf(prisma);
  let set = listeners.get(pool);
  if (!set) listeners.set(pool, (set = new Set()));
  set.add(listener);
  return () => set!.delete(listener);
}

/** The pool had no connection in time: overload, not a bug; the client may retry. */
export function isPoolExhausted(err: unknown): boolean {
  if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2028' && /start a transaction/i.test(err.message)) return true;
  // pg-pool's own: no connection came free, or none could be opened, within connectionTimeoutMillis.
  const wrapped = driverCause(err)?.message;
  return POOL_TIMEOUTS.has((err as Error | null)?.message ?? '') || (typeof wrapped === 'string' && POOL_TIMEOUTS.has(wrapped));
}

const POOL_TIMEOUTS = new Set(['timeout exceeded when trying to connect', 'Connection terminated due to connection timeout']);

/** The driver error Prisma wrapped (through @prisma/adapter-pg), if any. */
export function driverCause(err: unknown): { message?: unknown; kind?: unknown; originalCode?: unknown } | undefined {
  if (!err || typeof err !== 'object') return undefined;
  return (err as { meta?: { driverAdapterError?: { cause?: { message?: unknown; kind?: unknown; originalCode?: unknown } } } }).meta?.driverAdapterError?.cause;
}

/**
 * Models that are not owned by a platform. Everything else carries `platformId` and is reachable
 * only through `tenantDb`, which adds the platform to every filter and every write. A model added
 * later is scoped by default; test/platform/tenancy.test.ts fails if it lacks the column.
 */
export const GLOBAL_MODELS = new Set([
  'ServiceKey',
  // The sandbox rail's simulated bank (issue 11): the bank's own records, known by reference and
  // idempotency key, read and written only by the sandbox rail adapter through the unscoped client.
  'SandboxBankPayout',
  'SandboxBankRefund',
  // issue 26: the sandbox stablecoin issuer's simulated provider, read and written only by that adapter.
  'SandboxIssuerOperation',
  'SandboxIssuerClient',
  // Issue 26 (26a): credits a provider reported (an unmatched one has no platform; reads scope by platformId
  // explicitly), the sweep's queue of accounts, the poll cursors, and the sandbox collection provider's records.
  'CollectionCredit', 'CollectionAccountDue', 'CollectionPollCursor', 'SandboxCollectionCredit',
  // issue 29: value → platform for lookups made before the platform is known (src/platform/tenant-lookups.ts).
  'TenantLookup',
]);
/** The one model whose own id is the platform id. */
const PLATFORM_MODEL = 'Platform';

const WHERE_OPS = new Set([
  'findUnique',
  'findUniqueOrThrow',
  'findFirst',
  'findFirstOrThrow',
  'findMany',
  'count',
  'aggregate',
  'groupBy',
  'update',
  'updateMany',
  'updateManyAndReturn',
  'delete',
  'deleteMany',
]);

function scopeArgs(model: string, operation: string, args: any, platformId: string): any {
  const key = model === PLATFORM_MODEL ? 'id' : 'platformId';
  const out = { ...(args ?? {}) };
  if (WHERE_OPS.has(operation)) {
    out.where = { ...(out.where ?? {}), [key]: platformId };
  } else if (operation === 'create') {
    out.data = { ...out.data, [key]: platformId };
  } else if (operation === 'createMany' || operation === 'createManyAndReturn') {
    const rows = Array.isArray(out.data) ? out.data : [out.data];
    out.data = rows.map((r: any) => ({ ...r, [key]: platformId }));
  } else if (operation === 'upsert') {
    out.where = { ...(out.where ?? {}), [key]: platformId };
    out.create = { ...out.create, [key]: platformId };
  } else {
    throw new Error(`tenantDb: operation ${operation} on ${model} is not scoped`);
  }
  return out;
}

/**
 * A client whose every model query is confined to one platform. Domain code receives this,
 * never the raw client, so "another platform's id is a 404" holds without each module
 * remembering it. Raw SQL ($queryRaw) is not rewritten: repos that use it must filter on
 * platform_id themselves.
 */
export function tenantDb(prisma: PrismaClient, platformId: string) {
  return prisma.$extends({
    name: 'tenant',
    query: {
      $allModels: {
        $allOperations({ model, operation, args, query }) {
          if (GLOBAL_MODELS.has(model)) return query(args);
          return query(scopeArgs(model, operation, args, platformId));
        },
      },
    },
  });
}

export type TenantDb = ReturnType<typeof tenantDb>;
/** The client handed to a `$transaction` callback of a TenantDb. */
export type TenantTx = Parameters<Parameters<TenantDb['$transaction']>[0]>[0];

/**
 * A unique violation raised to a raw `pg` query (SQLSTATE 23505). Issue 29 (29e): on Citus, a row a
 * one-statement write inserts from its JSON rows (`INSERT … SELECT … FROM json_populate_recordset`) reaches
 * the shard through the coordinator's COPY, and Citus re-raises the worker's error with its message but
 * without its SQLSTATE (XX000; ReportCopyError, commands/multi_copy.c): the message, Postgres's own, is then
 * what names it. Plain PostgreSQL never takes the second branch.
 */
export function isRawUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (e?.code === '23505') return true;
  return e?.code === 'XX000' && typeof e.message === 'string' && e.message.startsWith('duplicate key value violates unique constraint');
}

/** Postgres unique violation (constraint name optional). */
export function isUniqueViolation(err: unknown, target?: string): boolean {
  if (!(err instanceof Prisma.PrismaClientKnownRequestError) || err.code !== 'P2002') return false;
  if (!target) return true;
  return JSON.stringify(err.meta ?? {}).includes(target);
}
