/**
 * npm run bench: starts the built API (dist/server.js) as its own process against DATABASE_URL /
 * REDIS_URL (defaults: local svc_bench database, created and migrated here), creates a platform and
 * measures with autocannon. Prints requests/s and latency percentiles per scenario.
 * Scenarios: authenticated GET /config (the baseline) and quote + execute pairs between two
 * internal accounts (the worker settles them meanwhile, as in production).
 */
import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import pg from 'pg';
import { migrate } from '../src/cli/db-migrate.js';
import { createPrisma } from '../src/platform/db.js';
import { createPlatform } from '../src/domains/platforms/platforms.service.js';
import { openInternalAccounts } from '../src/domains/ledger/internal-accounts.service.js';
import { newId } from '../src/platform/ids.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const PORT = Number(process.env.BENCH_PORT ?? 3999);
const SENDERS = Number(process.env.BENCH_SENDERS ?? 20);
const ROOT_URL = process.env.BENCH_DATABASE_ROOT ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const DB = 'svc_bench';

export interface Scenario {
  name: string;
  /** Prepares and returns autocannon request options. */
  setup(ctx: BenchCtx): Promise<Partial<autocannon.Options> & { path?: string }>;
}
export interface BenchCtx {
  databaseUrl: string;
  baseUrl: string;
  auth: string;
  platformId: string;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'GET /config (authenticated)',
    setup: async () => ({ method: 'GET', path: '/2025-10-13/config' }),
  },
  {
    // Each autocannon "request pair": POST /quotes, then POST /quotes/{id}/execute on its answer.
    name: 'POST /quotes + POST execute (pairs)',
    setup: async (ctx) => {
      const { sources, destination } = await moneyAccounts(ctx, SENDERS);
      let next = 0;
      const bodyFor = () => JSON.stringify({ source: { sourceType: 'ACCOUNT', accountId: sources[next++ % sources.length] }, destination: { destinationType: 'ACCOUNT', accountId: destination }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 100 });
      return {
        path: '/2025-10-13/quotes',
        requests: [
          {
            method: 'POST',
            path: '/2025-10-13/quotes',
            setupRequest: (req: any) => ({ ...req, body: bodyFor() }),
            onResponse: (_status: number, resBody: string, context: Record<string, unknown>) => {
              context.quoteId = JSON.parse(resBody).id;
            },
          },
          {
            method: 'POST',
            setupRequest: (req: any, context: Record<string, unknown>) => ({ ...req, path: `/2025-10-13/quotes/${context.quoteId}/execute`, body: '' }),
          },
        ],
      } as Partial<autocannon.Options> & { path: string };
    },
  },
];

/** Funded APPROVED senders' USD accounts (round-robin, as many customers pay at once) and one account to pay into. */
async function moneyAccounts(ctx: BenchCtx, senders: number): Promise<{ sources: string[]; destination: string }> {
  const prisma = createPrisma(ctx.databaseUrl, 2);
  const ids: string[] = [];
  for (const name of ['Bench Receiver', ...Array.from({ length: senders }, (_, i) => `Bench Sender ${i}`)]) {
    const customerId = newId('Customer');
    await prisma.$transaction(async (tx) => {
      await tx.customer.create({ data: { id: customerId, platformId: ctx.platformId, platformCustomerId: customerId, customerType: 'INDIVIDUAL', status: 'APPROVED', currencies: ['USD'], fullName: name, umaAddress: `$${customerId.slice(-12)}@bench.example` } as any });
      await openInternalAccounts(tx, ctx.platformId, customerId, ['USD']);
    });
    ids.push((await prisma.internalAccount.findFirstOrThrow({ where: { customerId } })).id);
  }
  await prisma.$disconnect();
  for (const id of ids.slice(1)) {
    await fetch(`${ctx.baseUrl}/2025-10-13/sandbox/internal-accounts/${id}/fund`, { method: 'POST', headers: { authorization: ctx.auth, 'content-type': 'application/json' }, body: JSON.stringify({ amount: 100_000_000_000 }) });
  }
  return { sources: ids.slice(1), destination: ids[0]! };
}

async function ensureDatabase(): Promise<string> {
  const admin = new pg.Client({ connectionString: ROOT_URL });
  await admin.connect();
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DB]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${DB}"`);
  await admin.end();
  const u = new URL(ROOT_URL);
  u.pathname = `/${DB}`;
  return u.toString();
}

async function waitReady(url: string) {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not become ready');
}

async function main() {
  const databaseUrl = process.env.DATABASE_URL ?? (await ensureDatabase());
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  await migrate(databaseUrl);
  const prisma = createPrisma(databaseUrl, 2);
  const platform = await createPlatform(prisma, { name: 'bench' });
  await prisma.$disconnect();

  const server = spawn(process.execPath, ['dist/server.js'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, PORT: String(PORT), LOG_LEVEL: 'warn', REDIS_PREFIX: 'bench', RATE_LIMIT_MAX: '100000000' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const worker = spawn(process.execPath, ['dist/worker.js'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, LOG_LEVEL: 'warn', REDIS_PREFIX: 'bench', SANDBOX_RAIL_DELAY_SCALE: '0.01' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${PORT}`;
  try {
    await waitReady(baseUrl);
    const auth = `Basic ${Buffer.from(`${platform.clientId}:${platform.clientSecret}`).toString('base64')}`;
    const ctx: BenchCtx = { databaseUrl, baseUrl, auth, platformId: platform.platformId };
    console.log(`bench: ${DURATION_S}s per scenario, ${CONNECTIONS} connections, node ${process.version}`);
    for (const s of SCENARIOS) {
      const { path = '/', ...opts } = await s.setup(ctx);
      const result = await autocannon({ url: `${baseUrl}${path}`, connections: CONNECTIONS, duration: DURATION_S, ...opts, headers: { authorization: auth, 'content-type': 'application/json', ...(opts.headers ?? {}) } });
      if (result.non2xx > 0) console.warn(`${s.name}: ${result.non2xx} non-2xx answers — the figures below are not valid`);
      console.log(
        `${s.name.padEnd(40)} ${result.requests.average.toFixed(0).padStart(7)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  (${result.requests.total} requests, ${result.non2xx} non-2xx, ${result.errors} errors)`,
      );
    }
  } finally {
    server.kill('SIGTERM');
    worker.kill('SIGTERM');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
