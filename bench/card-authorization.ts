/**
 * Card authorization bench (issue 27): authorization decisions through the card issuer port, as a card
 * network reaches them — signed AUTHORIZATION_REQUEST pushes to `POST /adapters/card-sandbox/webhooks` of
 * the built API (dist/, as `npm start` runs it), each verified, decided and, when approved, held in one
 * statement — against `pgbench -b tpcb-like` with the same connections and duration on the same server.
 * Target (issue 27 item 4): p99 ≤ 50 ms at ≥ 0.2× pgbench tpcb-like decisions/s, money exact afterwards (every
 * approval held once, each funding source's available + held = what it was funded, the ledger balanced).
 *
 * Load model (27d, docs/decisions.md): a card network does not wait for one answer before sending the next
 * authorization, so the target is measured OPEN loop — authorizations offered at 0.2× the tpcb-like tps of
 * the same run, at independent random times, latency counted from each one's scheduled arrival (queueing
 * included, no coordinated omission), from a load generator in a process of its own (bench/card-load.ts).
 * The closed-loop figure (BENCH_CONNECTIONS loops, each waiting for its answer) follows as the capacity.
 *
 * Run: `npm run build && npx tsx bench/card-authorization.ts` (or through bench/run.ts, BENCH_ONLY=cards).
 * Env: BENCH_DURATION_S (15), BENCH_WARMUP_S (3), BENCH_CONNECTIONS (20: closed loop and pgbench), BENCH_CARDS (200),
 * BENCH_CARD_RATE (offer this rate instead of 0.2× tpcb-like; no ratio verdict), BENCH_API_START_MS (60000),
 * BENCH_DATABASE_ROOT / DATABASE_URL, REDIS_URL, BENCH_CARD_TRACE (a path: each measured request's scheduled time, epoch ms,
 * and latency written to <path>.open and <path>.closed, to line the tail up with the API's and Postgres's figures of
 * the same seconds). Writes bench/results/cards-latest.json. Exit code 0 target met,
 * 2 missed, 1 failed. */
import { execFile, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { migrate } from '../src/cli/db-migrate.js';
import { createPrisma } from '../src/platform/db.js';
import { newId } from '../src/platform/ids.js';
import { createPlatform } from '../src/domains/platforms/platforms.service.js';
import { startBuiltApi } from '../test/helpers/built-processes.js';
import type { CardLoadJob, CardLoadResult } from './card-load.js';

const run = promisify(execFile);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const CARDS = Number(process.env.BENCH_CARDS ?? 200);
/** Unmeasured decisions before the measured ones (JIT, the API's prepared statements), as bench/run.ts. */
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 3);
/** How long the API may take to start (a machine loaded by others may need more than a minute). */
const API_START_MS = Number(process.env.BENCH_API_START_MS ?? 60_000);
const FUNDED = 10_000_000n;
const SECRET = `bench-${randomBytes(8).toString('hex')}`;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const withDatabase = (url: string, db: string) => {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
};
const ROOT_URL = process.env.BENCH_DATABASE_ROOT ?? (process.env.DATABASE_URL ? withDatabase(process.env.DATABASE_URL, 'postgres') : 'postgresql://postgres@127.0.0.1:5432/postgres');
const log = (m: string) => process.stderr.write(`[bench:cards] ${m}\n`);

async function scratch(name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new pg.Client({ connectionString: ROOT_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  return {
    url: withDatabase(ROOT_URL, name),
    async drop() {
      const c = new pg.Client({ connectionString: ROOT_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
      await c.end();
    },
  };
}

async function findPgbench(): Promise<string> {
  const onPath = await run('sh', ['-c', 'command -v pgbench']).then((r) => r.stdout.trim(), () => '');
  if (onPath) return onPath;
  for (const v of existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql') : []) if (existsSync(`/usr/lib/postgresql/${v}/bin/pgbench`)) return `/usr/lib/postgresql/${v}/bin/pgbench`;
  throw new Error('pgbench is missing (apt-get install postgresql-client)');
}

async function tpcb(url: string): Promise<number> {
  const bin = await findPgbench();
  await run(bin, ['-i', '-q', '-s', String(CONNECTIONS), url], { maxBuffer: 64 << 20 });
  const { stdout } = await run(bin, ['-n', '-c', String(CONNECTIONS), '-j', '2', '-T', String(DURATION_S), '-b', 'tpcb-like', url], { maxBuffer: 64 << 20 });
  const tps = Number(/tps = ([\d.]+)/.exec(stdout)?.[1]);
  if (!Number.isFinite(tps)) throw new Error(`cannot read pgbench's output:\n${stdout}`);
  return tps;
}

/** A platform, APPROVED cardholders with a USD account each (funded through the sandbox), and a card each. */
async function seed(url: string, api: string): Promise<{ refs: string[]; accounts: string[]; platformId: string }> {
  const prisma = createPrisma(url, 2);
  try {
    const platform = await createPlatform(prisma, { name: 'bench-cards' });
    const auth = `Basic ${Buffer.from(`${platform.clientId}:${platform.clientSecret}`).toString('base64')}`;
    const customers = Array.from({ length: CARDS }, (_, i) => ({ id: newId('Customer'), platformId: platform.platformId, platformCustomerId: `card_${i}`, customerType: 'INDIVIDUAL', status: 'APPROVED', currencies: ['USD'], fullName: `Cardholder ${i}`, umaAddress: `$card${i}@bench.example` }));
    const accounts = customers.map((c) => ({ id: newId('InternalAccount'), platformId: platform.platformId, customerId: c.id, ownerKey: c.id, currency: 'USD', type: 'INTERNAL_FIAT' }));
    await prisma.$transaction(async (tx) => {
      await tx.customer.createMany({ data: customers as any });
      await tx.internalAccount.createMany({ data: accounts as any });
    });
    const post = async (p: string, body: unknown) => {
      const res = await fetch(`${api}/2025-10-13${p}`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (res.status >= 300) throw new Error(`POST ${p}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<any>;
    };
    const refs: string[] = [];
    for (const [i, c] of customers.entries()) {
      await post(`/sandbox/internal-accounts/${accounts[i]!.id}/fund`, { amount: Number(FUNDED) });
      refs.push((await post('/cards', { cardholderId: c.id, form: 'VIRTUAL', fundingSources: [accounts[i]!.id], platformCardId: `bench-${i}` })).processorRef);
    }
    return { refs, accounts: accounts.map((a) => a.id), platformId: platform.platformId };
  } finally {
    await prisma.$disconnect();
  }
}

/** Runs one load in bench/card-load.ts, a process of its own (its CPU is not the API's). */
async function load(job: CardLoadJob, onMeasuring: () => void = () => undefined): Promise<CardLoadResult> {
  const child = fork(path.join(HERE, 'card-load.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    let done = false;
    child.on('message', (m: { measuring?: true; result?: CardLoadResult; error?: string }) => {
      if (m.measuring) return onMeasuring();
      done = true;
      if (m.result) resolve(m.result);
      else reject(new Error(`card load generator failed: ${m.error}`));
    });
    child.once('exit', (code) => {
      if (!done) reject(new Error(`card load generator exited with ${code} before answering`));
    });
    child.send(job);
  });
}

async function moneyCheck(url: string, accounts: string[], approved: bigint, platformId: string): Promise<string | null> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const sums = (await db.query(`SELECT COALESCE(SUM(available_balance),0)::text AS a, COALESCE(SUM(held_balance),0)::text AS h FROM internal_accounts WHERE id = ANY($1)`, [accounts])).rows[0];
    const ledger = (await db.query(`SELECT COALESCE(SUM(amount),0)::text AS s FROM ledger_entries WHERE platform_id = $1`, [platformId])).rows[0];
    const holds = (await db.query(`SELECT COALESCE(SUM(held_amount),0)::text AS s FROM card_transactions WHERE platform_id = $1 AND status = 'AUTHORIZED'`, [platformId])).rows[0];
    if (BigInt(sums.h) !== approved) return `held ${sums.h} ≠ approved ${approved}`;
    if (BigInt(holds.s) !== approved) return `card transactions hold ${holds.s} ≠ approved ${approved}`;
    if (BigInt(sums.a) + BigInt(sums.h) !== FUNDED * BigInt(accounts.length)) return `available + held ${BigInt(sums.a) + BigInt(sums.h)} ≠ funded`;
    if (BigInt(ledger.s) !== 0n) return `ledger sums to ${ledger.s}`;
    return null;
  } finally {
    await db.end();
  }
}

/**
 * Statistics as a running deployment has them (bench/run.ts `analyze`): autovacuum analyzes a table within a
 * minute of a tenth of it changing, while this database is seconds old; plans the API's prepared statements
 * made from empty tables are not what a deployment runs. Run after the warm-up, before the measured load.
 */
async function analyze(url: string): Promise<void> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await db.query('ANALYZE');
  } finally {
    await db.end();
  }
}

/**
 * CPU time (ms) a process has used, from /proc (Linux): wall-clock on a machine shared with others says
 * little, the CPU each decision costs the API and Postgres does (issue 27 item 4: cheap by construction).
 */
function cpuMsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime (fields 14 and 15 of the whole line) in clock ticks of 10 ms (USER_HZ 100).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

interface Snapshot {
  cpu: Map<number, number>;
  /** The server's WAL position: WAL bytes between two snapshots are the whole server's (its other databases too). */
  walLsn: string;
}

/** The CPU of the API process and of the Postgres backends serving the scenario's database, per pid; the WAL position. */
async function cpuSnapshot(url: string, apiPid: number | undefined): Promise<Snapshot> {
  const out = new Map<number, number>();
  if (apiPid !== undefined) out.set(-apiPid, cpuMsOf(apiPid) ?? NaN);
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const walLsn = (await db.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn;
    const me = (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const pids = (await db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> $1', [me])).rows;
    for (const { pid } of pids) {
      const ms = cpuMsOf(pid);
      if (ms !== undefined) out.set(pid, ms);
    }
    return { cpu: out, walLsn };
  } finally {
    await db.end();
  }
}

/** Bytes of WAL between two positions (`X/Y` text), computed by the server. */
async function walBytesBetween(url: string, from: string, to: string): Promise<number> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    return Number((await db.query<{ n: string }>('SELECT pg_wal_lsn_diff($2::pg_lsn, $1::pg_lsn)::text AS n', [from, to])).rows[0]!.n);
  } finally {
    await db.end();
  }
}

/** CPU used between two snapshots: the API's, and the backends' (a backend opened meanwhile counts whole). */
function cpuUsed(before: Map<number, number>, after: Map<number, number>): { apiMs: number; postgresMs: number } {
  let apiMs = NaN;
  let postgresMs = 0;
  for (const [pid, ms] of after) {
    const used = ms - (before.get(pid) ?? 0);
    if (pid < 0) apiMs = used;
    else postgresMs += used;
  }
  return { apiMs, postgresMs };
}

/** The open model's offered rate as a share of pgbench tpcb-like (issue 27 item 4). */
const TARGET_RATIO = 0.2;
const TARGET_P99_MS = 50;
/** BENCH_CARD_RATE: offer this many decisions/s instead of 0.2× the tpcb-like figure (working on the service). */
const FIXED_RATE = process.env.BENCH_CARD_RATE ? Number(process.env.BENCH_CARD_RATE) : undefined;
const loadAverage = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');

/** CPU per decision (API, Postgres) of a load, from /proc before and after it. */
async function measured(url: string, apiPid: number | undefined, job: CardLoadJob): Promise<CardLoadResult & { apiCpuMs: number; postgresCpuMs: number; walBytes: number; wal: string; loadAverage: string }> {
  // From the start of the measured window (an open loop's lead-in left out) to the last answer.
  let before: Promise<Snapshot> | undefined;
  const r = await load(job, () => void (before = cpuSnapshot(url, apiPid)));
  const [first, last] = [await before!, await cpuSnapshot(url, apiPid)];
  const cpu = cpuUsed(first.cpu, last.cpu);
  const n = Math.max(1, r.decisions + r.errors);
  const walBytes = await walBytesBetween(url, first.walLsn, last.walLsn);
  return { ...r, apiCpuMs: +(cpu.apiMs / n).toFixed(3), postgresCpuMs: +(cpu.postgresMs / n).toFixed(3), walBytes: Math.round(walBytes / n), wal: `${first.walLsn}..${last.walLsn}`, loadAverage: loadAverage() };
}

/**
 * The card bench (27d). Order: seed; a closed-loop warm-up (unmeasured); ANALYZE; the ceiling (bench/run.ts's,
 * or pgbench tpcb-like here, before any measured load); the OPEN-loop target run at 0.2× that ceiling; the
 * closed-loop capacity run; the money check over every decision made.
 */
export async function benchCardAuthorization(given?: { tpcbTps: number }): Promise<{ meets: boolean; row: Record<string, any> }> {
  const tag = randomBytes(4).toString('hex');
  const svc = await scratch(`bench_cards_${tag}`);
  const pgb = await scratch(`bench_cards_pgbench_${tag}`);
  let api: Awaited<ReturnType<typeof startBuiltApi>> | undefined;
  try {
    await migrate(svc.url);
    api = await startBuiltApi({ DATABASE_URL: svc.url, REDIS_URL, REDIS_PREFIX: `bench_cards_${tag}`, SVC_ENV: 'sandbox', LOG_LEVEL: 'warn', ADAPTER_CARD_SANDBOX_SECRET: SECRET, DATABASE_POOL_MAX: String(Math.max(10, CONNECTIONS)), RATE_LIMIT_MAX: '10000000' }, API_START_MS);
    log(`seeding ${CARDS} funded cards`);
    const seeded = await seed(svc.url, api.baseUrl);
    const base = { baseUrl: api.baseUrl, secret: SECRET, refs: seeded.refs };
    const warm = WARMUP_S > 0 ? await load({ ...base, model: 'closed', connections: CONNECTIONS, durationS: WARMUP_S }) : undefined;
    await analyze(svc.url);
    // Within bench/run.ts the ceiling it measured is reused; alone (or BENCH_CEILINGS=0), pgbench runs here, the API idle.
    if (!(given && Number.isFinite(given.tpcbTps))) log(`pgbench tpcb-like (scale ${CONNECTIONS}) for ${DURATION_S}s`);
    const tps = given && Number.isFinite(given.tpcbTps) ? given.tpcbTps : await tpcb(pgb.url);
    const rate = FIXED_RATE ?? TARGET_RATIO * tps;
    log(`open loop: ${rate.toFixed(1)} authorizations/s offered for ${DURATION_S}s (load ${loadAverage()})`);
    const open = await measured(svc.url, api.child.pid, { ...base, model: 'open', ratePerS: rate, leadInS: WARMUP_S, durationS: DURATION_S });
    log(`closed loop: ${CONNECTIONS} connections for ${DURATION_S}s (capacity)`);
    const closed = await measured(svc.url, api.child.pid, { ...base, model: 'closed', connections: CONNECTIONS, durationS: DURATION_S });
    const approved = [warm, open, closed].reduce((sum, r) => sum + BigInt(r?.approved ?? 0), 0n);
    const problem = await moneyCheck(svc.url, seeded.accounts, approved, seeded.platformId);
    const ratio = open.achievedPerS / tps;
    const row = {
      scenario: 'card authorization decisions (issuer port), open loop at 0.2× tpcb-like',
      offeredPerS: +rate.toFixed(1), decisionsPerS: open.achievedPerS, p50Ms: open.p50, p90Ms: open.p90, p99Ms: open.p99, maxMs: open.max,
      scheduled: open.scheduled, approvals: open.approvals, errors: open.errors, failures: [...open.failures, ...closed.failures],
      sendLateP99Ms: open.sendLateP99, sendLateMaxMs: open.sendLateMax, maxInFlight: open.maxInFlight, lastAnswerMs: open.lastAnswerMs,
      tpcbTps: Math.round(tps), ratio: +ratio.toFixed(3), money: problem ?? 'exact',
      // What a decision costs, whatever the machine's load: ms of CPU in the API and in Postgres.
      apiCpuMsPerDecision: open.apiCpuMs, postgresCpuMsPerDecision: open.postgresCpuMs, loadAverage: open.loadAverage,
      // The whole server's WAL in the window per decision (exact on a server of the bench's own; pg_waldump reads the range).
      walBytesPerDecision: open.walBytes, walRange: open.wal,
      closed: { connections: CONNECTIONS, decisionsPerS: closed.achievedPerS, ratio: +(closed.achievedPerS / tps).toFixed(3), p50Ms: closed.p50, p99Ms: closed.p99, errors: closed.errors, apiCpuMsPerDecision: closed.apiCpuMs, postgresCpuMsPerDecision: closed.postgresCpuMs, walBytesPerDecision: closed.walBytes, walRange: closed.wal, loadAverage: closed.loadAverage },
    };
    const meets = open.p99 <= TARGET_P99_MS && (FIXED_RATE !== undefined || ratio >= TARGET_RATIO) && open.errors === 0 && open.decisions === open.scheduled && closed.errors === 0 && problem === null;
    return { meets, row: { ...row, target: `open loop at ${TARGET_RATIO}× pgbench tpcb-like: p99 ≤ ${TARGET_P99_MS} ms, every arrival answered, 0 errors, money exact`, meets } };
  } finally {
    await api?.stop().catch(() => undefined);
    await svc.drop();
    await pgb.drop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  benchCardAuthorization().then(
    ({ meets, row }) => {
      mkdirSync(path.join(HERE, 'results'), { recursive: true });
      writeFileSync(path.join(HERE, 'results', 'cards-latest.json'), `${JSON.stringify({ at: new Date().toISOString(), durationS: DURATION_S, connections: CONNECTIONS, ...row }, null, 2)}\n`);
      console.log(JSON.stringify(row, null, 2));
      process.exit(meets ? 0 : 2);
    },
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}

/** bench/run.ts's row for this scenario (its ceiling reused). */
export async function cardAuthorizationRow(tpcbTps: number) {
  const { meets, row } = await benchCardAuthorization({ tpcbTps });
  const c = row.closed;
  return {
    group: 'service' as const, scenario: row.scenario as string, rps: row.decisionsPerS as number, p50: row.p50Ms as number, p99: row.p99Ms as number, errors: row.errors as number,
    ratio: row.ratio as number, ratioTo: 'pgbench tpcb-like', target: row.target as string, pass: meets,
    notes: [
      `offered ${row.offeredPerS}/s (Poisson arrivals, ${row.scheduled} in ${DURATION_S}s), answered ${row.decisionsPerS}/s, p90 ${row.p90Ms} ms, max ${row.maxMs} ms; client late p99 ${row.sendLateP99Ms} ms, ${row.maxInFlight} in flight at most; money ${row.money}`,
      `CPU per decision (open loop): API ${row.apiCpuMsPerDecision} ms, Postgres ${row.postgresCpuMsPerDecision} ms; WAL ${row.walBytesPerDecision} bytes per decision (the whole server's); load average ${row.loadAverage}`,
      `capacity, closed loop (${c.connections} connections): ${c.decisionsPerS}/s = ${c.ratio}× tpcb-like, p50 ${c.p50Ms} ms, p99 ${c.p99Ms} ms, ${c.errors} errors; CPU per decision API ${c.apiCpuMsPerDecision} ms, Postgres ${c.postgresCpuMsPerDecision} ms; load average ${c.loadAverage}`,
      ...(row.failures.length ? [`first failures: ${row.failures.join(' | ')}`] : []),
    ],
  };
}
