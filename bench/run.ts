/**
 * `npm run bench` (issue 12): measures the service against its ceilings in one run and prints the ratios.
 *
 * Ceilings, each in its own process and on scratch databases of the same Postgres server:
 *   - a bare Fastify route (bench/bare-fastify.mjs), same connections and duration as the service;
 *   - `pgbench -b tpcb-like` (scale = connections) and the same transaction on one hot row;
 *   - bench/payment-ceiling (copied from shared/perf/payment-ceiling): "the least SQL a payment needs",
 *     over 1,000 balances and on one hot balance.
 * The service, as users run it (issue 24): the built API and worker (dist/, as `npm start -- --no-worker` and
 * `npm run worker` run them) as child processes on a free port, with every setting of .env.example (the
 * sandbox rails with their normal delays, SANDBOX_RAIL_DELAY_SCALE; the payments worker sized by its pool)
 * but the addresses and the rate limit (one credential carries the whole load here), against a scratch
 * database created and dropped here and a Redis key prefix of its own on the shared Redis (deleted at the
 * end; nothing else is touched). Scenarios: authenticated GET /config; quote + immediate execution with an
 * Idempotency-Key on every request, spread over many balances and many destinations (external accounts),
 * then the same load without keys (the key's cost: keyed ÷ unkeyed), then on one hot balance (each followed
 * by an exact money check, with the settlement backlog sampled during the load); GET /transactions/{id};
 * the settlement lag (execute → COMPLETED) of the payments made, against the rail's delay. autocannon
 * drives the load from a process of its own (bench/load.ts).
 *
 * Env: BENCH_DURATION_S (15 per scenario), BENCH_CONNECTIONS (20), BENCH_SENDERS (1000 balances), BENCH_DESTINATIONS (101 external accounts),
 * BENCH_WARMUP_S (3: unmeasured load before each service scenario), BENCH_LOG_LEVEL (API log level; .env.example's), BENCH_PGBENCH_SCALE (= connections), BENCH_DATABASE_ROOT
 * (postgresql://postgres@127.0.0.1:5432/postgres; defaults to DATABASE_URL's server), REDIS_URL
 * (redis://127.0.0.1:6379), BENCH_KEEP_DB=1 (keep the scratch databases and Redis keys), BENCH_CEILINGS=0 (skip the ceilings while working on the
 * service: no ratios), BENCH_ONLY=spread,hot (only those of the scenarios config, spread, unkeyed, hot, reads, cards), BENCH_PROFILE=1 (V8 CPU profiles
 * of the API and the worker in bench/results/profiles). Writes bench/results/latest.json.
 * Exit code: 0 every target met, 2 some target missed, 1 the bench itself failed.
 */
import { execFile, fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { migrate } from '../src/cli/db-migrate.js';
import { createPrisma } from '../src/platform/db.js';
import { newId } from '../src/platform/ids.js';
import { createPlatform } from '../src/domains/platforms/platforms.service.js';
import { bullConnection } from '../src/bootstrap.js';
import { queuePrefix } from '../src/platform/queue.js';
import { loadConfig } from '../src/config.js';
import { PAYMENTS_QUEUE } from '../src/domains/payments/transactions.jobs.js';
import { RAIL_DELAYS_MS } from '../src/adapters/rails/sandbox/index.js';
import { startBuiltApi, startBuiltWorker, type ApiProcess, type ServiceProcess } from '../test/helpers/built-processes.js';
import { createEmptyDatabase, dropDatabase } from '../test/helpers/test-databases.js';
import type { LoadJob, LoadResult } from './load.js';
import { apiCall, pool, until } from './helpers.js';

const run = promisify(execFile);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const SENDERS = Number(process.env.BENCH_SENDERS ?? 1000);
/** Payees (external accounts); coprime with SENDERS by default, so every sender pays every payee in turn. */
const DESTINATIONS = Number(process.env.BENCH_DESTINATIONS ?? 101);
/** Every setting of .env.example (what a fresh clone runs with), read as `NAME=value` lines. */
const ENV_EXAMPLE = envExample();
const API_LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? ENV_EXAMPLE.LOG_LEVEL ?? 'info';
const PGBENCH_SCALE = Number(process.env.BENCH_PGBENCH_SCALE ?? CONNECTIONS);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ROOT_URL = process.env.BENCH_DATABASE_ROOT ?? (process.env.DATABASE_URL ? withDatabase(process.env.DATABASE_URL, 'postgres') : 'postgresql://postgres@127.0.0.1:5432/postgres');
const KEEP_DB = process.env.BENCH_KEEP_DB === '1';
/** Unmeasured load before each service scenario (JIT, Prisma's query plans, connection pools). */
const CEILINGS = process.env.BENCH_CEILINGS !== '0';
const PROFILE_DIR = process.env.BENCH_PROFILE === '1' ? path.resolve('bench/results/profiles') : undefined;
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 3);
/** BENCH_ONLY=spread,hot (any of config, spread, hot, reads): only those service scenarios, while working on one. */
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : undefined;
const want = (scenario: 'config' | 'spread' | 'unkeyed' | 'hot' | 'reads'): boolean => !ONLY || ONLY.has(scenario);
/** Minor units of USD per payment (an amount ending 902–907 would pick a failing sandbox scenario). */
const AMOUNT = 100;
/** The sandbox rails' delays are scaled by this (.env.example); a payment's lag target is its rail's delay + 1 s. */
const RAIL_DELAY_SCALE = Number(ENV_EXAMPLE.SANDBOX_RAIL_DELAY_SCALE ?? 1);
const railDelayMs = (rail: string | null): number => Math.round((RAIL_DELAYS_MS[rail ?? ''] ?? 2000) * RAIL_DELAY_SCALE);
const API = '/2025-10-13';
const RESULTS = path.join(HERE, 'results', 'latest.json');

/** Issue 24's targets. */
const TARGETS = {
  paymentVsTpcb: 0.2,
  paymentP99Ms: 150,
  keyedVsUnkeyed: 0.9,
  hotVsSpread: 0.6,
  readVsBare: 0.25,
  /** Settlement lag p99 beyond the rail's own delay. */
  lagOverRailMs: 1000,
};

/** .env.example's `NAME=value` lines (commented ones are unset by default, so left out). */
function envExample(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(path.join(ROOT, '.env.example'), 'utf8').split('\n')) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

const log = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);

// ---------------------------------------------------------------------------------------------------------
// Result rows

interface Row {
  group: 'ceiling' | 'service' | 'start-up';
  scenario: string;
  rps?: number;
  p50?: number;
  p99?: number;
  errors?: number;
  /** Ratio to the ceiling named in `ratioTo`. */
  ratio?: number;
  ratioTo?: string;
  target?: string;
  pass?: boolean;
  notes?: string[];
  detail?: Record<string, unknown>;
}

const rows: Row[] = [];

// ---------------------------------------------------------------------------------------------------------
// Processes: the load generator, the bare Fastify route

/** Runs one autocannon job in bench/load.ts, a process of its own. */
async function load(job: LoadJob): Promise<LoadResult> {
  const child = fork(path.join(HERE, 'load.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    let done = false;
    child.once('message', (m: { result?: LoadResult; error?: string }) => {
      done = true;
      if (m.result) resolve(m.result);
      else reject(new Error(`load generator failed: ${m.error}`));
    });
    child.once('exit', (code) => {
      if (!done) reject(new Error(`load generator exited with ${code} before answering`));
    });
    child.send(job);
  });
}

async function bareFastify(): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [path.join(HERE, 'bare-fastify.mjs')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = out.match(/listening (\d+)/);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`bare Fastify exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => stopChild(child) };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(t);
}

// ---------------------------------------------------------------------------------------------------------
// pgbench

/** pgbench on PATH or in Debian's /usr/lib/postgresql/<v>/bin; installed from Debian's postgresql-client when missing. */
async function findPgbench(): Promise<string> {
  const onPath = await run('sh', ['-c', 'command -v pgbench']).then((r) => r.stdout.trim(), () => '');
  if (onPath) return path.dirname(onPath);
  const debian = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of debian) if (existsSync(`/usr/lib/postgresql/${v}/bin/pgbench`)) return `/usr/lib/postgresql/${v}/bin`;
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) {
    throw new Error('pgbench is missing: install Debian\'s postgresql-client (apt-get install postgresql-client) and run the bench again.');
  }
  log('pgbench is missing: installing postgresql-client with apt-get');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await run('apt-get', ['update', '-qq'], { env, maxBuffer: 64 << 20 });
  await run('apt-get', ['install', '-y', '-qq', 'postgresql-client'], { env, maxBuffer: 64 << 20 });
  const after = await run('sh', ['-c', 'command -v pgbench']).then((r) => r.stdout.trim(), () => '');
  if (after) return path.dirname(after);
  for (const v of readdirSync('/usr/lib/postgresql')) if (existsSync(`/usr/lib/postgresql/${v}/bin/pgbench`)) return `/usr/lib/postgresql/${v}/bin`;
  throw new Error('pgbench is still missing after installing postgresql-client');
}

interface PgbenchResult {
  tps: number;
  latencyAvgMs: number;
  p50?: number;
  p99?: number;
  failed: number;
}

function parsePgbench(out: string): PgbenchResult {
  const tps = Number(out.match(/^tps = ([\d.]+)/m)?.[1]);
  if (!Number.isFinite(tps)) throw new Error(`cannot read pgbench's output:\n${out}`);
  return { tps, latencyAvgMs: Number(out.match(/^latency average = ([\d.]+) ms/m)?.[1]), failed: Number(out.match(/^number of failed transactions: (\d+)/m)?.[1] ?? 0) };
}

/** p50/p99 (ms) from pgbench's per-transaction logs (`-l`: the third field is the latency in µs). */
function pgbenchPercentiles(dir: string): { p50: number; p99: number } {
  const lat: number[] = [];
  for (const f of readdirSync(dir)) for (const line of readFileSync(path.join(dir, f), 'utf8').split('\n')) if (line) lat.push(Number(line.split(' ')[2]) / 1000);
  lat.sort((a, b) => a - b);
  const at = (q: number) => Math.round(lat[Math.min(lat.length - 1, Math.floor(q * lat.length))]! * 10) / 10;
  return { p50: at(0.5), p99: at(0.99) };
}

async function pgbench(bin: string, url: string, args: string[]): Promise<PgbenchResult> {
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'bench-pgbench-'));
  try {
    const { stdout, stderr } = await run(path.join(bin, 'pgbench'), ['-n', '-c', String(CONNECTIONS), '-j', '2', '-T', String(DURATION_S), '-l', `--log-prefix=${logDir}/log`, ...args, url], { maxBuffer: 64 << 20 });
    return { ...parsePgbench(stdout + stderr), ...pgbenchPercentiles(logDir) };
  } finally {
    rmSync(logDir, { recursive: true, force: true });
  }
}

const HOT_ROW_SCRIPT = `\\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = 1;
SELECT abalance FROM pgbench_accounts WHERE aid = 1;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = 1;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = 1;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (1, 1, 1, :delta, CURRENT_TIMESTAMP);
END;
`;

async function ceilings(dbs: Scratch): Promise<{ bare: LoadResult; tpcb: PgbenchResult; hotRow: PgbenchResult; pay: PgbenchResult; payHot: PgbenchResult }> {
  if (!CEILINGS) {
    // BENCH_CEILINGS=0, for working on the service: no ratios.
    const none = { tps: NaN } as PgbenchResult;
    return { bare: { rps: NaN } as LoadResult, tpcb: none, hotRow: none, pay: none, payHot: none };
  }
  log(`bare Fastify: GET / for ${DURATION_S}s`);
  const server = await bareFastify();
  let bare: LoadResult;
  try {
    bare = await load({ kind: 'get', baseUrl: server.url, headers: {}, connections: CONNECTIONS, durationS: DURATION_S, paths: ['/'] });
  } finally {
    await server.stop();
  }
  rows.push({ group: 'ceiling', scenario: 'bare Fastify GET /', rps: bare.rps, p50: bare.p50, p99: bare.p99, errors: bare.non2xx + bare.errors + bare.timeouts, target: 'ceiling' });

  const bin = await findPgbench();
  const url = await dbs.create('pgbench_bench');
  log(`pgbench -i -s ${PGBENCH_SCALE}`);
  await run(path.join(bin, 'pgbench'), ['-i', '-q', '-s', String(PGBENCH_SCALE), '-I', 'dtGvp', url], { maxBuffer: 64 << 20 });
  log(`pgbench -b tpcb-like for ${DURATION_S}s`);
  const tpcb = await pgbench(bin, url, ['-b', 'tpcb-like']);
  rows.push({ group: 'ceiling', scenario: `pgbench tpcb-like (scale ${PGBENCH_SCALE})`, rps: tpcb.tps, p50: tpcb.p50, p99: tpcb.p99, errors: tpcb.failed, target: 'ceiling' });
  const hotFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'bench-hot-')), 'hot-row.sql');
  writeFileSync(hotFile, HOT_ROW_SCRIPT);
  log(`pgbench tpcb-like on one hot row for ${DURATION_S}s`);
  const hotRow = await pgbench(bin, url, ['-f', hotFile]);
  rmSync(path.dirname(hotFile), { recursive: true, force: true });
  rows.push({ group: 'ceiling', scenario: 'pgbench tpcb-like, one hot row', rps: hotRow.tps, p50: hotRow.p50, p99: hotRow.p99, errors: hotRow.failed, target: 'ceiling' });

  const ceilingRun = async (accounts: number) => {
    const { stdout, stderr } = await run('bash', [path.join(HERE, 'payment-ceiling', 'run.sh')], {
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, PGBENCH_URL: url, DURATION: String(DURATION_S), CONNECTIONS: String(CONNECTIONS), ACCOUNTS: String(accounts) },
      maxBuffer: 64 << 20,
    });
    return parsePgbench(stdout + stderr);
  };
  log(`payment ceiling (payment.sql) over 1000 balances for ${DURATION_S}s`);
  const pay = await ceilingRun(1000);
  rows.push({ group: 'ceiling', scenario: 'payment.sql, 1000 balances (payments/s)', rps: pay.tps, errors: pay.failed, target: 'ceiling', notes: [`latency avg ${pay.latencyAvgMs} ms`] });
  log(`payment ceiling (payment.sql) on one hot balance for ${DURATION_S}s`);
  const payHot = await ceilingRun(1);
  rows.push({ group: 'ceiling', scenario: 'payment.sql, one hot balance', rps: payHot.tps, errors: payHot.failed, target: 'ceiling', notes: [`latency avg ${payHot.latencyAvgMs} ms`] });
  await dbs.drop(url);
  return { bare, tpcb, hotRow, pay, payHot };
}

// ---------------------------------------------------------------------------------------------------------
// Scratch databases and Redis prefix

class Scratch {
  private readonly made: string[] = [];
  readonly tag = `${Math.floor(Date.now() / 1000)}_${randomBytes(3).toString('hex')}`;

  async create(kind: string): Promise<string> {
    const name = `${kind}_${this.tag}`;
    // On a Citus cluster (TEST_CITUS_WORKERS, docs/deploy.md "Citus"): on every node, joined as one.
    await createEmptyDatabase(ROOT_URL, name);
    this.made.push(name);
    return withDatabase(ROOT_URL, name);
  }

  async drop(url: string): Promise<void> {
    const name = new URL(url).pathname.slice(1);
    if (KEEP_DB) return log(`kept database ${name} (BENCH_KEEP_DB=1)`);
    await dropDatabase(ROOT_URL, name);
    this.made.splice(this.made.indexOf(name), 1);
  }

  /** Drops every database this run created (only those). */
  async dropAll(): Promise<void> {
    for (const name of [...this.made]) await this.drop(withDatabase(ROOT_URL, name)).catch((err) => log(`could not drop ${name}: ${err}`));
  }
}

/** Every key of the run's prefix: the service's own (`<prefix>:…`) and its queues' (`{<prefix>}:bull:…`, queuePrefix). */
async function deletePrefix(redis: Redis, prefix: string): Promise<number> {
  let n = 0;
  for (const pattern of [`${prefix}:*`, `{${prefix}}:*`]) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length) n += await redis.unlink(...keys);
    } while (cursor !== '0');
  }
  return n;
}

// ---------------------------------------------------------------------------------------------------------
// The service

interface World {
  db: pg.Pool;
  platformId: string;
  auth: string;
  senders: string[];
  hot: string;
  platformUsd: string;
  destinations: string[];
  api: ApiProcess;
  worker: ServiceProcess;
  queue: Queue;
  redis: Redis;
}

async function seed(databaseUrl: string): Promise<{ platformId: string; auth: string; senders: string[]; hot: string; platformUsd: string }> {
  const prisma = createPrisma(databaseUrl, 2);
  try {
    const platform = await createPlatform(prisma, { name: 'bench' });
    const customers = Array.from({ length: SENDERS + 1 }, (_, i) => ({
      id: newId('Customer'),
      platformId: platform.platformId,
      platformCustomerId: `bench_${i}`,
      customerType: 'INDIVIDUAL',
      status: 'APPROVED',
      currencies: ['USD'],
      fullName: `Bench Sender ${i}`,
      umaAddress: `$bench${i}@bench.example`,
    }));
    const accounts = customers.map((c) => ({ id: newId('InternalAccount'), platformId: platform.platformId, customerId: c.id, ownerKey: c.id, currency: 'USD', type: 'INTERNAL_FIAT' }));
    await prisma.$transaction(async (tx) => {
      await tx.customer.createMany({ data: customers as any });
      await tx.internalAccount.createMany({ data: accounts as any });
      // A loaded machine (shared by other work) may take longer than the client's default 15 s.
    }, { timeout: 120_000 });
    const platformUsd = (await prisma.internalAccount.findFirstOrThrow({ where: { platformId: platform.platformId, customerId: null, currency: 'USD' } })).id;
    return {
      platformId: platform.platformId,
      auth: `Basic ${Buffer.from(`${platform.clientId}:${platform.clientSecret}`).toString('base64')}`,
      senders: accounts.slice(1).map((a) => a.id),
      hot: accounts[0]!.id,
      platformUsd,
    };
  } finally {
    await prisma.$disconnect();
  }
}

/** One API call; every POST carries an Idempotency-Key, as a careful platform's do. */
async function call(w: Pick<World, 'api' | 'auth'>, method: string, url: string, body?: unknown): Promise<any> {
  return apiCall(`${w.api.baseUrl}${API}`, w.auth, method, url, body, method === 'POST' ? { 'idempotency-key': randomUUID() } : {});
}



/** Σ available + held of the given accounts, and Σ held alone. */
async function sums(db: pg.Pool, accounts: string[]): Promise<{ total: bigint; held: bigint }> {
  const r = await db.query('SELECT COALESCE(SUM(available_balance + held_balance), 0)::text AS total, COALESCE(SUM(held_balance), 0)::text AS held FROM internal_accounts WHERE id = ANY($1)', [accounts]);
  return { total: BigInt(r.rows[0].total), held: BigInt(r.rows[0].held) };
}

interface BacklogSample {
  t: number;
  processing: number;
  queued: number;
}

/** Samples PROCESSING transactions and the payments queue's depth every second while `during` runs. */
async function sampled<T>(w: World, during: Promise<T>): Promise<{ value: T; samples: BacklogSample[] }> {
  const samples: BacklogSample[] = [];
  const started = Date.now();
  let stop = false;
  const sampler = (async () => {
    while (!stop) {
      const [p, q] = await Promise.all([
        w.db.query(`SELECT count(*)::int AS n FROM transactions WHERE platform_id = $1 AND status = 'PROCESSING'`, [w.platformId]),
        w.queue.getJobCounts('wait', 'prioritized', 'delayed', 'active'),
      ]);
      samples.push({ t: (Date.now() - started) / 1000, processing: p.rows[0].n, queued: Object.values(q).reduce((a, b) => a + b, 0) });
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  try {
    return { value: await during, samples };
  } finally {
    stop = true;
    await sampler;
  }
}

/**
 * Whether the settlement backlog grew: the least-squares slope of the PROCESSING count over the samples
 * after the first fifth of the run and after the rail's delay (until then every payment made is still at
 * the bank, so the count climbs by design), times the window, compared with the larger of the connection
 * count and half the mean backlog (a steady backlog of in-flight payments is fine; one that keeps climbing
 * is not).
 */
function backlogVerdict(samples: BacklogSample[], railDelay: number): { grows: boolean; mean: number; max: number; slopePerS: number; maxQueued: number } {
  const window = samples.filter((s) => s.t >= Math.max(DURATION_S * 0.2, railDelay / 1000 + 1));
  const max = Math.max(0, ...samples.map((s) => s.processing));
  const maxQueued = Math.max(0, ...samples.map((s) => s.queued));
  if (window.length < 3) return { grows: false, mean: max, max, slopePerS: 0, maxQueued };
  const n = window.length;
  const mt = window.reduce((a, s) => a + s.t, 0) / n;
  const mp = window.reduce((a, s) => a + s.processing, 0) / n;
  const slope = window.reduce((a, s) => a + (s.t - mt) * (s.processing - mp), 0) / Math.max(1e-9, window.reduce((a, s) => a + (s.t - mt) ** 2, 0));
  const span = window[n - 1]!.t - window[0]!.t;
  return { grows: slope * span > Math.max(CONNECTIONS, mp / 2), mean: Math.round(mp), max, slopePerS: Math.round(slope * 10) / 10, maxQueued };
}

interface MoneyCheck {
  exact: boolean;
  problems: string[];
  /** From the end of the load until the service was quiet again (every payment settled, outbox relayed). */
  drainMs: number;
  /** Transactions written during the scenario, by status. */
  statuses: Record<string, number>;
  written: number;
  answered: number;
}

async function transactionIds(w: World): Promise<Set<string>> {
  return new Set((await w.db.query('SELECT id FROM transactions WHERE platform_id = $1', [w.platformId])).rows.map((r) => r.id as string));
}

/**
 * Waits (bounded) until the service is quiet: no request still writing (the transaction count stands
 * still for two samples a second apart; autocannon stops with requests in flight), no payment PENDING or
 * PROCESSING, nothing waiting in the payments queue, every outbox event relayed.
 */
async function quiesce(w: World, timeoutMs = 180_000): Promise<number> {
  const started = Date.now();
  let last = -1;
  await until(
    'the service quiet (payments settled, queue empty, outbox relayed)',
    async () => {
      const [t, o, q] = await Promise.all([
        w.db.query(`SELECT count(*)::int AS n, count(*) FILTER (WHERE status IN ('PENDING', 'PROCESSING'))::int AS open FROM transactions WHERE platform_id = $1`, [w.platformId]),
        w.db.query('SELECT count(*)::int AS n FROM webhook_events WHERE relayed_at IS NULL'),
        w.queue.getJobCounts('wait', 'prioritized', 'active'),
      ]);
      const stable = t.rows[0].n === last;
      last = t.rows[0].n;
      return stable && t.rows[0].open === 0 && o.rows[0].n === 0 && Object.values(q).every((n) => n === 0);
    },
    timeoutMs,
    1000,
  );
  return Date.now() - started;
}

/**
 * After a payment scenario, once the service is quiet: every transaction written during the scenario is
 * COMPLETED; the answered ones (201) are among them, and only requests cut off in flight when the load
 * stopped (at most one per connection) were written without an answer; the senders' balances went down by
 * exactly the sum of the written transactions' sent amounts, and the answered amounts are the stored ones;
 * nothing stays held; every journal balances (the ledger sums to zero per currency) and every cached
 * balance equals its entries.
 */
async function moneyCheck(w: World, accounts: string[], before: { total: bigint; ids: Set<string> }, r: LoadResult): Promise<MoneyCheck> {
  const answered = r.transactionIds ?? [];
  const problems: string[] = [];
  const drainMs = await quiesce(w).catch((err: Error) => {
    problems.push(err.message);
    return NaN;
  });
  const rowsNow = (await w.db.query('SELECT id, status, sent_amount::text AS sent FROM transactions WHERE platform_id = $1', [w.platformId])).rows as Array<{ id: string; status: string; sent: string }>;
  const written = rowsNow.filter((t) => !before.ids.has(t.id));
  const statuses: Record<string, number> = {};
  for (const t of written) statuses[t.status] = (statuses[t.status] ?? 0) + 1;
  if ((statuses.COMPLETED ?? 0) !== written.length) problems.push(`not every payment COMPLETED: ${JSON.stringify(statuses)}`);
  if (new Set(answered).size !== answered.length) problems.push('a transaction id was answered twice');
  const byId = new Map(written.map((t) => [t.id, t]));
  const missing = answered.filter((id) => !byId.has(id));
  if (missing.length) problems.push(`${missing.length} answered payments have no transaction`);
  const unanswered = written.length - answered.length;
  if (unanswered < 0 || unanswered > CONNECTIONS) problems.push(`${written.length} transactions written for ${answered.length} answered payments (at most ${CONNECTIONS} may be cut off in flight)`);
  const answeredSum = answered.reduce((a, id) => a + BigInt(byId.get(id)?.sent ?? 0), 0n);
  if (answeredSum !== BigInt(r.sentTotal ?? '0')) problems.push(`the answers say ${r.sentTotal} was sent, the stored transactions ${answeredSum}`);
  const writtenSum = written.reduce((a, t) => a + BigInt(t.sent), 0n);
  const after = await sums(w.db, accounts);
  const moved = before.total - after.total;
  if (moved !== writtenSum) problems.push(`the senders' balances went down by ${moved}, the payments written sent ${writtenSum}`);
  if (after.held !== 0n) problems.push(`${after.held} still held on the senders' accounts`);
  const ledger = await w.db.query(`SELECT currency, SUM(amount)::text AS total FROM ledger_entries WHERE platform_id = $1 GROUP BY currency HAVING SUM(amount) <> 0`, [w.platformId]);
  for (const row of ledger.rows) problems.push(`ledger entries in ${row.currency} sum to ${row.total}, not 0`);
  const mismatched = await w.db.query(
    `SELECT a.id FROM internal_accounts a
     LEFT JOIN (SELECT account, SUM(CASE WHEN bucket = 'AVAILABLE' THEN amount ELSE 0 END) AS avail,
                       SUM(CASE WHEN bucket = 'HELD' THEN amount ELSE 0 END) AS held
                FROM ledger_entries WHERE platform_id = $1 GROUP BY account) e ON e.account = a.id
     WHERE a.platform_id = $1 AND (a.available_balance <> COALESCE(e.avail, 0) OR a.held_balance <> COALESCE(e.held, 0))`,
    [w.platformId],
  );
  if (mismatched.rowCount) problems.push(`${mismatched.rowCount} accounts' cached balances differ from their ledger entries`);
  return { exact: problems.length === 0, problems, drainMs, statuses, written: written.length, answered: answered.length };
}

/**
 * Execute → COMPLETED (the status history's PROCESSING and COMPLETED rows) of the given payments, in ms, and
 * the longest sandbox delay of the rails they went out on (the part of the lag that is the bank's).
 */
async function settlementLag(w: World, ids: string[]): Promise<{ n: number; p50: number; p99: number; max: number; railDelayMs: number; rails: string[]; toBank: { p50: number; p99: number }; fromBank: { p50: number; p99: number } }> {
  const rails = (await w.db.query('SELECT DISTINCT payment_rail AS rail FROM transactions WHERE id = ANY($1)', [ids])).rows.map((r) => r.rail as string | null);
  const railDelay = Math.max(0, ...rails.map(railDelayMs));
  // The lag in two parts (issue 24h): execute → the sandbox bank's record of the payout (the submission: the API's
  // queueing and the worker's), and the bank's record → COMPLETED (the rail's delay, then the poll and the settlement).
  const r = await w.db.query(
    `SELECT count(*)::int AS n,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY lag) AS p50,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY lag) AS p99,
            max(lag) AS max,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY to_bank) AS to_bank_p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY to_bank) AS to_bank_p99,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY from_bank) AS from_bank_p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY from_bank) AS from_bank_p99
     FROM (SELECT EXTRACT(EPOCH FROM (c.created_at - p.created_at)) * 1000 AS lag,
                  EXTRACT(EPOCH FROM (b.submitted_at - p.created_at)) * 1000 AS to_bank,
                  EXTRACT(EPOCH FROM (c.created_at - b.submitted_at)) * 1000 AS from_bank
           FROM unnest($1::text[]) AS t(id)
           -- The history names a payment by its key (issue 30, 30f: svc_resource_key), the bank's payout by its id.
           JOIN status_changes c ON c.platform_id = $2 AND c.machine = 'transaction' AND c.to_status = 'COMPLETED' AND c.resource_id = svc_resource_key(t.id)
           JOIN status_changes p ON p.platform_id = c.platform_id AND p.machine = 'transaction' AND p.resource_id = c.resource_id AND p.to_status = 'PROCESSING'
           LEFT JOIN sandbox_bank_payouts b ON b.idempotency_key = t.id) x`,
    [[...new Set(ids)], w.platformId],
  );
  const x = r.rows[0];
  const ms = (v: unknown) => Math.round(Number(v ?? NaN));
  return {
    n: x.n, p50: ms(x.p50), p99: ms(x.p99), max: ms(x.max), railDelayMs: railDelay, rails: rails.map(String),
    toBank: { p50: ms(x.to_bank_p50), p99: ms(x.to_bank_p99) }, fromBank: { p50: ms(x.from_bank_p50), p99: ms(x.from_bank_p99) },
  };
}

type PayResult = { r: LoadResult & { cpuNote?: string }; money: MoneyCheck; backlog: ReturnType<typeof backlogVerdict>; lag: Awaited<ReturnType<typeof settlementLag>> };

async function payScenario(w: World, name: string, sources: string[], keyed: boolean): Promise<PayResult> {
  const job = (durationS: number): LoadJob => ({
    kind: 'pay',
    baseUrl: w.api.baseUrl,
    headers: { authorization: w.auth, 'content-type': 'application/json' },
    connections: CONNECTIONS,
    durationS,
    pay: { path: `${API}/quotes`, sources, destinations: w.destinations, amount: AMOUNT, keyed },
  });
  if (WARMUP_S > 0) {
    log(`${name}: warm-up ${WARMUP_S}s`);
    await load(job(WARMUP_S));
  }
  await quiesce(w);
  await analyze(w);
  const before = { total: (await sums(w.db, sources)).total, ids: await transactionIds(w) };
  log(`${name} for ${DURATION_S}s`);
  const pgBefore = await pgCounters(w.db);
  const lifeBefore = { worker: cpuMs(w.worker.child.pid), redis: await redisCounters(w.redis) };
  const { value: r, samples } = await sampled(w, withCpu(w, () => load(job(DURATION_S))));
  const money = await moneyCheck(w, sources, before, r);
  // Postgres's, the worker's and Redis's work for the payments' whole life: from the load's start until every one of them settled.
  if (money.written > 0) {
    const lifeAfter = { worker: cpuMs(w.worker.child.pid), redis: await redisCounters(w.redis) };
    const worker = lifeBefore.worker === undefined || lifeAfter.worker === undefined ? 'n/a' : ((lifeAfter.worker - lifeBefore.worker) / money.written).toFixed(3);
    r.cpuNote = `${r.cpuNote ?? ''}; until quiet, per payment: worker CPU ${worker} ms, ${redisNote(lifeBefore.redis, lifeAfter.redis, money.written)}, ${pgNote(pgBefore, await pgCounters(w.db), money.written)}`;
  }
  const lag = await settlementLag(w, r.transactionIds ?? []);
  return { r, money, backlog: backlogVerdict(samples, lag.railDelayMs), lag };
}

/** A GET scenario: warm-up, then the measured run. */
/**
 * Statistics as a running deployment has them: autovacuum analyzes a table once a tenth of it changed
 * (within a minute), while this scratch database is minutes old — its tables were empty or tiny at the
 * last analyze, and plans made from that (a sequential scan of a "tiny" table, kept by the service's
 * prepared statements as the table grows) are not what a deployment runs. pgbench's own tables are
 * analyzed by `pgbench -i` likewise. Run after each warm-up, before the measured load.
 */
async function analyze(w: World): Promise<void> {
  await w.db.query('ANALYZE');
}

async function getScenario(w: World, name: string, paths: string[]): Promise<LoadResult & { cpuNote?: string }> {
  const job = (durationS: number): LoadJob => ({ kind: 'get', baseUrl: w.api.baseUrl, headers: { authorization: w.auth }, connections: CONNECTIONS, durationS, paths });
  if (WARMUP_S > 0) {
    log(`${name}: warm-up ${WARMUP_S}s`);
    await load(job(WARMUP_S));
  }
  await analyze(w);
  log(`${name} for ${DURATION_S}s`);
  return withCpu(w, () => load(job(DURATION_S)));
}

/**
 * The payees: DESTINATIONS USD external accounts of the platform, each with an account number of its own
 * whose last three digits pick no sandbox scenario (they end in 9; the magic suffixes are 002–008, 101–105).
 */
async function registerPayees(w: World): Promise<string[]> {
  const ids: string[] = new Array(DESTINATIONS);
  await pool([...Array(DESTINATIONS).keys()], 5, async (i) => {
    const ext = await call(w, 'POST', '/platform/external-accounts', {
      currency: 'USD',
      accountInfo: {
        accountType: 'USD_ACCOUNT',
        accountNumber: `7${String(i).padStart(6, '0')}9`,
        routingNumber: '021000021',
        bankAccountType: 'CHECKING',
        bankName: 'Chase',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: `Payee ${i}`, address: { line1: '1 Main St', city: 'New York', postalCode: '10001', country: 'US' } },
      },
    });
    ids[i] = ext.id;
  });
  return ids;
}

async function service(dbs: Scratch, c: Awaited<ReturnType<typeof ceilings>>): Promise<void> {
  const databaseUrl = await dbs.create('svc_bench');
  const prefix = `bench_${dbs.tag}`;
  log(`scratch database ${new URL(databaseUrl).pathname.slice(1)}, Redis prefix ${prefix}`);
  await migrate(databaseUrl);
  const seeded = await seed(databaseUrl);
  // .env.example as a fresh clone has it; the bench sets only the addresses (HOST and PORT: the helpers'),
  // and lifts the per-credential rate limit (6000 a minute), which one credential carrying the whole load
  // would otherwise meet at once.
  const { HOST: _host, PORT: _port, ...settings } = ENV_EXAMPLE;
  const env = { ...settings, DATABASE_URL: databaseUrl, REDIS_URL, REDIS_PREFIX: prefix, RATE_LIMIT_MAX: '1000000000' };
  let api: ApiProcess | undefined;
  let worker: ServiceProcess | undefined;
  const redis = new Redis(REDIS_URL);
  const db = new pg.Pool({ connectionString: databaseUrl, max: 3 });
  const queue = new Queue(PAYMENTS_QUEUE, { connection: bullConnection(loadConfig({ DATABASE_URL: databaseUrl, REDIS_URL })), prefix: queuePrefix({ REDIS_PREFIX: prefix }) });
  try {
    log('starting the built API and worker');
    // BENCH_PROFILE=1: V8 CPU profiles of the API and the worker (written when they stop) for working on the service.
    const profile: Record<string, string> = PROFILE_DIR ? { NODE_OPTIONS: `--import ${path.join(HERE, 'cpu-profile.mjs')}`, BENCH_PROFILE_DIR: PROFILE_DIR } : {};
    [api, worker] = await Promise.all([startBuiltApi({ ...env, ...profile, LOG_LEVEL: API_LOG_LEVEL }), startBuiltWorker({ ...env, ...profile, LOG_LEVEL: 'info' })]);
    rows.push({ group: 'start-up', scenario: 'API: spawn → /readyz 200', p50: api.readyMs, target: 'a few seconds' });
    rows.push({ group: 'start-up', scenario: 'worker: spawn → "worker ready"', p50: worker.readyMs, target: 'a few seconds' });
    const w: World = { db, api, worker, queue, redis, ...seeded, destinations: [] };

    log(`funding ${SENDERS + 1} balances and registering ${DESTINATIONS} payees`);
    w.destinations = await registerPayees(w);
    await pool([w.hot, ...w.senders], 10, async (id) => void (await call(w, 'POST', `/sandbox/internal-accounts/${id}/fund`, { amount: 100_000_000_000 })));
    await until('the payees\' external accounts ACTIVE', async () => {
      const r = await w.db.query(`SELECT count(*)::int AS n FROM external_accounts WHERE id = ANY($1) AND status = 'ACTIVE'`, [w.destinations]);
      return r.rows[0].n === w.destinations.length;
    }, 120_000, 250);

    // Issue 24h: every new balance gets its standing pay-in coordinates (issue 26's collection sweep, a batch every
    // COLLECTION_SWEEP_INTERVAL_MS); for the 1,000 balances made above that takes minutes, and measured while it runs
    // it took the machine from the scenarios (Postgres, the worker) — side work of this setup, not of the payments.
    const opening = Date.now();
    await until('the balances\' pay-in coordinates opened', async () => {
      const r = await w.db.query(
        `SELECT (SELECT count(*) FROM collection_accounts_due WHERE platform_id = $1)::int + (SELECT count(*) FROM collection_coordinates WHERE platform_id = $1 AND status = 'PENDING')::int AS n`,
        [w.platformId],
      );
      return r.rows[0].n === 0;
    }, 600_000, 1000);
    log(`the balances' pay-in coordinates opened in ${Math.round((Date.now() - opening) / 1000)} s`);
    log('waiting for the service to be quiet');
    await quiesce(w);
    if (want('config')) {
      const cfg = await getScenario(w, 'GET /config', [`${API}/config`]);
      const cfgErrors = cfg.non2xx + cfg.errors + cfg.timeouts;
      rows.push({
        group: 'service', scenario: 'GET /config (authenticated)', rps: cfg.rps, p50: cfg.p50, p99: cfg.p99, errors: cfgErrors,
        ratio: cfg.rps / c.bare.rps, ratioTo: 'bare Fastify', target: `≥ ${TARGETS.readVsBare}× bare Fastify, 0 errors`,
        pass: cfg.rps / c.bare.rps >= TARGETS.readVsBare && cfgErrors === 0, notes: [...cpuNote(cfg), ...failuresNote(cfg)],
      });
    }

    const scenarios: Array<[string, PayResult]> = [];
    const where = `${SENDERS} balances × ${DESTINATIONS} payees`;
    let spreadRps: number | undefined;
    // Without keys first: the tables only grow, so the keyed run that follows is not the one favoured.
    let unkeyed: PayResult | undefined;
    if (want('unkeyed')) {
      unkeyed = await payScenario(w, `quote + immediate execution without Idempotency-Key over ${where}`, w.senders, false);
      scenarios.push(['no key', unkeyed]);
    }
    if (want('spread')) {
      const spread = await payScenario(w, `quote + immediate execution with an Idempotency-Key over ${where}`, w.senders, true);
      scenarios.push(['keyed, spread', spread]);
      spreadRps = spread.r.rps;
      rows.push(
        paymentRow(`quote+execute, Idempotency-Key, ${where}`, spread, {
          ratio: spread.r.rps / c.tpcb.tps,
          ratioTo: 'pgbench tpcb-like',
          target: `≥ ${TARGETS.paymentVsTpcb}× tpcb-like, p99 ≤ ${TARGETS.paymentP99Ms} ms, 0 errors, money exact, no backlog growth`,
          meets: spread.r.rps / c.tpcb.tps >= TARGETS.paymentVsTpcb && spread.r.p99 <= TARGETS.paymentP99Ms,
          ceilingNote: `${fmtRatio(spread.r.rps / c.pay.tps)} of payment.sql`,
        }),
      );
    }
    if (unkeyed) {
      const ratio = (spreadRps ?? NaN) / unkeyed.r.rps;
      rows.push(
        paymentRow(`quote+execute, no key (same load)`, unkeyed, {
          ratio,
          ratioTo: 'keyed ÷ unkeyed',
          target: `keyed ≥ ${TARGETS.keyedVsUnkeyed}× unkeyed, 0 errors, money exact, no backlog growth`,
          meets: ratio >= TARGETS.keyedVsUnkeyed,
          ceilingNote: `${fmtRatio(unkeyed.r.rps / c.tpcb.tps)} of pgbench tpcb-like`,
        }),
      );
    }

    if (want('hot')) {
      const hot = await payScenario(w, `quote + immediate execution with an Idempotency-Key from one hot balance to ${DESTINATIONS} payees`, [w.hot], true);
      scenarios.push(['keyed, hot balance', hot]);
      const spreadOf = spreadRps ?? NaN;
      rows.push(
        paymentRow('quote+execute, Idempotency-Key, one hot balance', hot, {
          ratio: hot.r.rps / spreadOf,
          ratioTo: 'quote+execute spread',
          target: `≥ ${TARGETS.hotVsSpread}× spread, 0 errors, money exact, no backlog growth`,
          meets: hot.r.rps / spreadOf >= TARGETS.hotVsSpread,
          ceilingNote: `${fmtRatio(hot.r.rps / c.payHot.tps)} of payment.sql on one hot balance`,
        }),
      );
    }

    if (want('reads')) {
      const ids = shuffle(scenarios.flatMap(([, s]) => s.r.transactionIds ?? [])).slice(0, 5000);
      if (ids.length === 0) throw new Error('no payment succeeded: nothing to read with GET /transactions/{id}');
      const tx = await getScenario(w, `GET /transactions/{id} (${ids.length} payments)`, ids.map((id) => `${API}/transactions/${id}`));
      const txErrors = tx.non2xx + tx.errors + tx.timeouts;
      rows.push({
        group: 'service', scenario: 'GET /transactions/{id}', rps: tx.rps, p50: tx.p50, p99: tx.p99, errors: txErrors,
        ratio: tx.rps / c.bare.rps, ratioTo: 'bare Fastify', target: `≥ ${TARGETS.readVsBare}× bare Fastify, 0 errors`,
        pass: tx.rps / c.bare.rps >= TARGETS.readVsBare && txErrors === 0, notes: [...cpuNote(tx), ...failuresNote(tx)],
      });
    }

    for (const [label, s] of scenarios) {
      rows.push({
        group: 'service', scenario: `settlement lag (${label})`, p50: s.lag.p50, p99: s.lag.p99,
        target: `p99 ≤ rail delay ${s.lag.railDelayMs} ms + ${TARGETS.lagOverRailMs / 1000} s`, pass: s.lag.n > 0 && s.lag.p99 <= s.lag.railDelayMs + TARGETS.lagOverRailMs,
        notes: [
          `${s.lag.n} payments over ${s.lag.rails.join(', ')} (sandbox delay × ${RAIL_DELAY_SCALE}), execute → COMPLETED, max ${s.lag.max} ms`,
          `execute → at the bank p50 ${s.lag.toBank.p50} ms, p99 ${s.lag.toBank.p99} ms; at the bank → COMPLETED p50 ${s.lag.fromBank.p50} ms, p99 ${s.lag.fromBank.p99} ms`,
        ],
      });
    }
  } finally {
    await Promise.all([api?.stop(), worker?.stop()]);
    await queue.close().catch(() => undefined);
    await db.end().catch(() => undefined);
    if (KEEP_DB) log(`kept the Redis keys under ${prefix}: and {${prefix}}: (BENCH_KEEP_DB=1)`);
    else log(`deleted ${await deletePrefix(redis, prefix).catch(() => 0)} Redis keys under ${prefix}: and {${prefix}}:`);
    await redis.quit().catch(() => undefined);
  }
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); undefined elsewhere. */
function cpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/**
 * CPU ms used so far by every process named `comm` (e.g. postgres backends, redis-server) and their
 * exited children, from /proc.
 */
function cpuMsOf(comm: string): number {
  let total = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== comm) continue;
      const f = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      // Own time, plus that of exited children (a postmaster's ended backends).
      total += ((Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 1000) / 100;
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/** CPU ms all cores have been busy so far (the machine as a whole), from /proc/stat. */
function machineBusyMs(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  return ((f[0]! + f[1]! + f[2]! + f[5]! + f[6]! + f[7]!) * 1000) / 100;
}

/**
 * CPU ms the bench's own Postgres server has used so far: its postmaster (with its exited backends, reaped
 * into its children's times) and its live backends. `cpuMsOf('postgres')` would count every server of the
 * machine, a shared one's other databases included (24h); this counts only the server of `db`.
 */
async function serverCpuMs(db: pg.Pool): Promise<number | undefined> {
  const backend = (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  const statOf = (pid: number | string) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // A server on another host: the pid here is some other process (or none).
    if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'postgres') throw new Error(`${pid} is not a postgres process`);
    return stat.slice(stat.lastIndexOf(') ') + 2).split(' ').map(Number);
  };
  try {
    const postmaster = statOf(backend)[1]!;
    const own = statOf(postmaster);
    let total = own[11]! + own[12]! + own[13]! + own[14]!;
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const f = statOf(pid);
        if (f[1] === postmaster) total += f[11]! + f[12]!;
      } catch {
        // the process ended meanwhile
      }
    }
    return (total * 1000) / 100;
  } catch {
    return undefined;
  }
}

type RedisCounters = { cpuMs?: number; calls: Map<string, number> };

/**
 * Redis's work so far (issue 24n): the commands it ran, by name (INFO commandstats: every client of that
 * server, so on a shared Redis others' too), and the CPU of its server process when it runs on this machine.
 */
async function redisCounters(redis: Redis): Promise<RedisCounters> {
  const [server, stats] = await Promise.all([redis.info('server'), redis.info('commandstats')]);
  const calls = new Map<string, number>();
  for (const m of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(m[1]!, Number(m[2]));
  const pid = /^process_id:(\d+)/m.exec(server)?.[1];
  // A server on another host or in another pid namespace: that pid here is some other process (or none).
  const local = pid !== undefined && existsSync(`/proc/${pid}/comm`) && readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'redis-server';
  return { cpuMs: local ? cpuMs(Number(pid)) : undefined, calls };
}

function redisNote(a: RedisCounters, b: RedisCounters, n: number): string {
  const delta = [...b.calls].map(([cmd, calls]) => [cmd, calls - (a.calls.get(cmd) ?? 0)] as const).filter(([, d]) => d > 0).sort((x, y) => y[1] - x[1]);
  const total = delta.reduce((s, [, d]) => s + d, 0);
  const cpu = a.cpuMs === undefined || b.cpuMs === undefined ? 'n/a' : ((b.cpuMs - a.cpuMs) / n).toFixed(3);
  return `Redis per request (this server only): CPU ${cpu} ms, commands ${(total / n).toFixed(2)} (${delta.slice(0, 10).map(([cmd, d]) => `${cmd} ${(d / n).toFixed(2)}`).join(', ')})`;
}

type PgCounters = { cpuMs?: number; sessions: number; walBytes: number; statements?: number; execMs?: number; plans?: number; planMs?: number; txInserts: number; txUpdates: number; txHotUpdates: number; txIndexes: number };

/**
 * Postgres's work so far, for "per request" figures (issue 24i): the server's CPU, WAL bytes, and for
 * `transactions` rows inserted, updated and updated HOT (an update that is not HOT adds an entry to every index
 * whose predicate holds; a HOT one to none), and — when the server loads pg_stat_statements — the statements
 * run in this database and their execution time (the triggers' and foreign keys' own statements included), and
 * the plans Postgres made and their time (0 unless `pg_stat_statements.track_planning` is on; issue 24, 24k).
 */
async function pgCounters(db: pg.Pool): Promise<PgCounters> {
  const [cpuMs, { rows: [c] }] = await Promise.all([
    serverCpuMs(db),
    db.query(`SELECT (SELECT wal_bytes FROM pg_stat_wal)::float8 AS wal,
        n_tup_ins::float8 AS ins, n_tup_upd::float8 AS upd, n_tup_hot_upd::float8 AS hot,
        (SELECT count(*) FROM pg_index WHERE indrelid = 'transactions'::regclass)::int AS indexes,
        (SELECT sessions FROM pg_stat_database WHERE datname = current_database())::float8 AS sessions
      FROM pg_stat_user_tables WHERE relname = 'transactions'`),
  ]);
  // The scratch database has no extension of its own; where the server preloads pg_stat_statements it can.
  await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements').catch(() => undefined);
  const statements = await db
    .query(`SELECT sum(calls)::float8 AS calls, sum(total_exec_time)::float8 AS ms, sum(plans)::float8 AS plans, sum(total_plan_time)::float8 AS plan_ms FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`)
    .then((r) => r.rows[0] as { calls: number; ms: number; plans: number; plan_ms: number }, () => undefined);
  return { cpuMs, sessions: c.sessions, walBytes: c.wal, statements: statements?.calls, execMs: statements?.ms, plans: statements?.plans, planMs: statements?.plan_ms, txInserts: c.ins, txUpdates: c.upd, txHotUpdates: c.hot, txIndexes: c.indexes };
}

function pgNote(a: PgCounters, b: PgCounters, n: number): string {
  const per = (x: number | undefined, y: number | undefined, digits = 2) => (x === undefined || y === undefined ? 'n/a' : ((y - x) / n).toFixed(digits));
  return [
    `Postgres per request (this server only): CPU ${per(a.cpuMs, b.cpuMs, 3)} ms, WAL ${per(a.walBytes, b.walBytes, 0)} B, backends started ${b.sessions - a.sessions}`,
    `statements ${per(a.statements, b.statements)} (exec ${per(a.execMs, b.execMs, 3)} ms), plans ${per(a.plans, b.plans)} (planning ${per(a.planMs, b.planMs, 3)} ms)`,
    `transactions: ${per(a.txInserts, b.txInserts)} inserted, ${per(a.txUpdates, b.txUpdates)} updated of which ${per(a.txHotUpdates, b.txHotUpdates)} HOT (${a.txIndexes} indexes)`,
  ].join(', ');
}

/**
 * Runs `fn` and reports the CPU ms per request the API, the worker, Postgres, Redis and the machine as a
 * whole (which includes the load generator) spent meanwhile: where a request's cost lies.
 */
async function withCpu<T extends { requests: number }>(w: Pick<World, 'api' | 'worker' | 'db' | 'redis'>, fn: () => Promise<T>): Promise<T & { cpuNote?: string }> {
  const at = () => ({ api: cpuMs(w.api.child.pid), worker: cpuMs(w.worker.child.pid), pg: cpuMsOf('postgres'), redis: cpuMsOf('redis-server'), all: machineBusyMs() });
  const pgA = await pgCounters(w.db);
  const redisA = await redisCounters(w.redis);
  const a = at();
  const r = await fn();
  const b = at();
  const pgB = await pgCounters(w.db);
  const redisB = await redisCounters(w.redis);
  if (a.api === undefined || b.api === undefined || a.worker === undefined || b.worker === undefined || r.requests === 0) return r;
  const per = (x: number, y: number) => ((y - x) / r.requests).toFixed(3);
  return {
    ...r,
    cpuNote: `CPU per request: API ${per(a.api, b.api)} ms, worker ${per(a.worker, b.worker)} ms, Postgres ${per(a.pg, b.pg)} ms, Redis ${per(a.redis, b.redis)} ms, machine ${per(a.all, b.all)} ms; during the load: ${redisNote(redisA, redisB, r.requests)}, ${pgNote(pgA, pgB, r.requests)}`,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Report

const fmtRatio = (r: number) => `${r.toFixed(3)}×`;
/**
 * The row of a payment scenario: its ratio and target; it passes when `meets` (the ratio, and any latency
 * bound) holds with no error, the money exact and no growing backlog. Notes: the ratio to the payment
 * ceiling, the money check, the backlog, CPU per request, the first failures.
 */
function paymentRow(scenario: string, p: PayResult, o: { ratio: number; ratioTo: string; target: string; meets: boolean; ceilingNote: string }): Row {
  const errors = p.r.non2xx + p.r.errors + p.r.timeouts;
  return {
    group: 'service', scenario, rps: p.r.rps, p50: p.r.p50, p99: p.r.p99, errors,
    ratio: o.ratio, ratioTo: o.ratioTo, target: o.target,
    pass: o.meets && errors === 0 && p.money.exact && !p.backlog.grows,
    notes: [
      o.ceilingNote,
      p.money.exact ? 'money exact' : `MONEY NOT EXACT: ${p.money.problems.join('; ')}`,
      `backlog ${p.backlog.grows ? 'GREW' : 'steady'} (PROCESSING mean ${p.backlog.mean}, max ${p.backlog.max}, ${p.backlog.slopePerS}/s; queue max ${p.backlog.maxQueued})`,
      `${p.money.written} payments written, ${p.money.answered} answered; quiet again ${p.money.drainMs} ms after the load`,
      ...cpuNote(p.r),
      ...failuresNote(p.r),
    ],
    detail: { money: p.money, backlog: p.backlog, transactions: p.r.transactionIds?.length, sent: p.r.sentTotal },
  };
}

const cpuNote = (r: { cpuNote?: string }) => (r.cpuNote ? [r.cpuNote] : []);
const failuresNote = (r: LoadResult) => (r.failures.length ? [`first non-2xx: ${r.failures.map((f) => `${f.status} ${f.body.slice(0, 120)}`).join(' | ')}`] : []);
const num = (v: number | undefined, digits = 0) => (v === undefined || Number.isNaN(v) ? '' : v.toFixed(digits));

function shuffle<T>(a: T[]): T[] {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

function table(): string {
  const head = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'ratio', 'target', 'result'];
  const body = rows.map((r) => [
    r.scenario,
    num(r.rps),
    r.group === 'start-up' ? `${r.p50} (ready)` : num(r.p50, r.p50 !== undefined && r.p50 < 10 ? 1 : 0),
    num(r.p99, r.p99 !== undefined && r.p99 < 10 ? 1 : 0),
    r.errors === undefined ? '' : String(r.errors),
    r.ratio === undefined ? '' : `${fmtRatio(r.ratio)} ${r.ratioTo}`,
    r.target ?? '',
    r.pass === undefined ? '' : r.pass ? 'PASS' : 'FAIL',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i >= 1 && i <= 4 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  const out = [line(head), widths.map((w) => '-'.repeat(w)).join('  ')];
  let group = '';
  for (let i = 0; i < rows.length; i++) {
    if (rows[i]!.group !== group) {
      group = rows[i]!.group;
      out.push(`[${group}]`);
    }
    out.push(line(body[i]!));
    for (const n of rows[i]!.notes ?? []) out.push(`    ${n}`);
  }
  return out.join('\n');
}

async function main() {
  const startedAt = new Date();
  const dbs = new Scratch();
  const onSignal = () => {
    log('interrupted: dropping the scratch databases');
    void dbs.dropAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let error: unknown;
  try {
    log(`${DURATION_S}s per scenario, ${CONNECTIONS} connections, ${SENDERS} balances, node ${process.version}, ${os.cpus().length} CPUs, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    const c = await ceilings(dbs);
    // BENCH_ONLY=cards: the payments service is not started (the card bench runs its own API).
    if (!ONLY || (['config', 'spread', 'unkeyed', 'hot', 'reads'] as const).some(want)) await service(dbs, c);
    if (!ONLY || ONLY.has('cards')) rows.push(await (await import('./card-authorization.js')).cardAuthorizationRow(c.tpcb.tps)); // issue 27
  } catch (err) {
    error = err;
  } finally {
    await dbs.dropAll();
  }
  const pass = rows.filter((r) => r.pass !== undefined).every((r) => r.pass);
  console.log(`\nnpm run bench — ${startedAt.toISOString()} — ${DURATION_S}s per scenario, ${CONNECTIONS} connections, ${os.cpus().length} CPUs (load average at the end ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})\n`);
  console.log(table());
  if (error) {
    console.error(`\nthe bench failed: ${(error as Error)?.stack ?? error}`);
  } else {
    console.log(`\n${pass ? 'every target met' : 'some targets missed'}`);
  }
  mkdirSync(path.dirname(RESULTS), { recursive: true });
  writeFileSync(
    RESULTS,
    `${JSON.stringify(
      {
        startedAt: startedAt.toISOString(),
        finishedAt: new Date().toISOString(),
        machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, loadAverageAtEnd: os.loadavg(), node: process.version },
        settings: { durationS: DURATION_S, connections: CONNECTIONS, senders: SENDERS, destinations: DESTINATIONS, amountMinor: AMOUNT, pgbenchScale: PGBENCH_SCALE, apiLogLevel: API_LOG_LEVEL, railDelayScale: RAIL_DELAY_SCALE, idempotencyKeys: 'every money-moving POST (and a run without)' },
        targets: TARGETS,
        rows,
        pass: !error && pass,
        error: error ? String((error as Error)?.message ?? error) : undefined,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`results: ${path.relative(process.cwd(), RESULTS)}`);
  process.exit(error ? 1 : pass ? 0 : 2);
}

void main();
