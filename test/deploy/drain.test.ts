import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';
import { composeCommand, dockerfileExec, ensureBuilt, freePort, startImageCommand, type Proc } from '../helpers/image-processes.js';
import { ctxFor } from '../../src/deps.js';
import { recordEvent } from '../../src/platform/outbox.js';
import { eventLabel } from '../../src/domains/webhooks/webhooks.model.js';

/**
 * SIGTERM drains: the image's own entry command (Dockerfile ENTRYPOINT, i.e. tini, + the command
 * docker-compose.yml and the Kubernetes manifests run) as a real child process. Nothing here waits
 * for a duration: work is held open by the test (a webhook endpoint that answers when told, a row
 * lock) until the signal has been received.
 */
let env: TestEnv;
const overrides = { SANDBOX_RAIL_DELAY_SCALE: '0.05', PAYMENT_STALE_MS: '500', QUOTE_EXPIRY_SWEEP_INTERVAL_MS: '200', PAYMENT_POLL_MIN_MS: '50', WEBHOOK_CONCURRENCY: '2' };

beforeAll(async () => {
  ensureBuilt();
  env = await createTestEnv(overrides);
}, 300_000);
afterAll(() => env?.close());

function processEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...overrides,
    DATABASE_URL: env.config.DATABASE_URL,
    DATABASE_PREPARED_STATEMENTS: String(env.config.DATABASE_PREPARED_STATEMENTS),
    REDIS_URL: env.config.REDIS_URL,
    REDIS_PREFIX: env.config.REDIS_PREFIX,
    LOG_LEVEL: 'info',
    OUTBOX_RELAY_INTERVAL_MS: '50',
    // Longer than any test step: the drain is never cut short by the grace timer here.
    SHUTDOWN_TIMEOUT_MS: '120000',
    ...extra,
  };
}

/** A webhook endpoint that holds every request until release(); open() answers at once from then on. */
async function gatedEndpoint() {
  const held: Array<{ id: string; type: string; res: ServerResponse }> = [];
  const answered: Array<{ id: string; type: string }> = [];
  let open = false;
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const { id, type } = JSON.parse(Buffer.concat(chunks).toString()) as { id: string; type: string };
      if (open) {
        answered.push({ id, type });
        res.writeHead(200).end('ok');
      } else held.push({ id, type, res });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    held,
    answered,
    release() {
      open = true;
      for (const h of held.splice(0)) {
        answered.push({ id: h.id, type: h.type });
        h.res.writeHead(200).end('ok');
      }
    },
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

const logged = (p: Proc, msg: string) => eventually(async () => p.logs.some((l) => l.msg === msg), 30_000);

describe('the image entry command', () => {
  it('runs node under tini, with no npm or shell between them', () => {
    expect(dockerfileExec('ENTRYPOINT')).toEqual(['/usr/bin/tini', '--']);
    expect(dockerfileExec('CMD')).toEqual(['node', 'dist/server.js']);
    expect(composeCommand('api')).toEqual(['node', 'dist/server.js']);
    expect(composeCommand('worker')).toEqual(['node', 'dist/worker.js']);
  });
});

describe('worker: SIGTERM finishes the jobs in hand, leaves the rest queued, and exits 0', () => {
  it('webhook deliveries in flight complete; payouts in hand settle; a restarted worker does the rest, each exactly once', async () => {
    const hook = await gatedEndpoint();
    const p = await env.platform();
    // Set-up needs a worker (beneficiary checks): an in-process one, stopped before the real test.
    const setup = env.startWorkers();
    const dest = await anActiveExternalAccount(p, usdBankAccount('555666777'));
    const c = await anApprovedCustomer(env, p, ['USD']);
    await fund(p, c.accounts.USD!, 1_000_000);
    await setup.close();
    await env.deps.prisma.platform.update({ where: { id: p.platformId }, data: { webhookEndpoint: hook.url } });
    await env.deps.prisma.webhookEvent.updateMany({ where: { platformId: p.platformId }, data: { relayedAt: new Date() } });

    const db = ctxFor(env.deps, p.platformId).db;
    const eventIds: string[] = [];
    for (let i = 0; i < 6; i++) eventIds.push(eventLabel(await db.$transaction((tx) => recordEvent(tx, 'X.DRAIN', { i }))));
    const transactionIds: string[] = [];
    for (let i = 0; i < 8; i++) {
      const q = (await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1_000 + i } })).json();
      expect((await p.request({ method: 'POST', url: `/quotes/${q.id}/execute` })).statusCode).toBe(200);
      transactionIds.push(q.transactionId);
    }

    const healthPort = await freePort();
    const first = startImageCommand(composeCommand('worker'), processEnv({ WORKER_HEALTH_PORT: String(healthPort), HOST: '127.0.0.1' }));
    try {
      // Two deliveries (WEBHOOK_CONCURRENCY) are now in flight, held by the endpoint.
      await eventually(async () => hook.held.length === 2, 30_000);
      // The worker's health port answers while it runs.
      const health = await fetch(`http://127.0.0.1:${healthPort}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok', staleLoops: [], stoppedQueues: [] });

      first.child.kill('SIGTERM');
      await logged(first, 'shutting down: draining jobs in hand');
      hook.release();
      expect(await first.exited).toBe(0);
      expect(first.logs.some((l) => l.msg === 'worker stopped')).toBe(true);
    } finally {
      if (first.child.exitCode === null) first.child.kill('SIGKILL');
    }
    // The two deliveries that were in flight were answered and recorded as delivered, not cut off.
    const deliveredAfterFirst = await env.deps.prisma.webhookEvent.findMany({ where: { platformId: p.platformId, type: 'X.DRAIN', deliveryStatus: 'DELIVERED' }, select: { id: true } });
    expect(deliveredAfterFirst.map((e) => eventLabel(e.id)).sort()).toEqual([...new Set(hook.answered.filter((a) => a.type === 'X.DRAIN').map((a) => a.id))].sort());
    const deliveredAny = await env.deps.prisma.webhookEvent.count({ where: { platformId: p.platformId, deliveryStatus: 'DELIVERED' } });
    expect(deliveredAny).toBe(new Set(hook.answered.map((a) => a.id)).size);
    expect(deliveredAny).toBeGreaterThanOrEqual(2);

    const second = startImageCommand(composeCommand('worker'), processEnv());
    try {
      // Ready first: on a loaded machine the rest may be done before its handlers are in place, and a
      // SIGTERM before them ends it 143, not 0.
      await logged(second, 'worker ready');
      await eventually(async () => (await env.deps.prisma.webhookEvent.count({ where: { platformId: p.platformId, type: 'X.DRAIN', deliveryStatus: 'DELIVERED' } })) === 6, 60_000);
      await eventually(async () => (await env.deps.prisma.transaction.count({ where: { id: { in: transactionIds }, status: 'COMPLETED' } })) === 8, 60_000);
    } finally {
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    }
    // Every event reached the endpoint exactly once; every payout settled exactly once.
    const counts = new Map<string, number>();
    for (const a of hook.answered) counts.set(a.id, (counts.get(a.id) ?? 0) + 1);
    expect(hook.answered.filter((a) => a.type === 'X.DRAIN').map((a) => a.id).sort()).toEqual([...eventIds].sort());
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    const settles = await env.deps.prisma.ledgerJournal.groupBy({ by: ['referenceId'], where: { platformId: p.platformId, kind: 'PAYMENT_SETTLE' }, _count: true });
    expect(settles).toHaveLength(8);
    expect(settles.every((s) => s._count === 1)).toBe(true);
    await expectLedgerConsistent(env, p.platformId);
    await hook.close();
  }, 180_000);
});

describe('API: SIGTERM answers the requests in flight, then exits 0', () => {
  it('a request blocked inside the server when the signal arrives still gets its response', async () => {
    const p = await env.platform();
    const port = await freePort();
    const api = startImageCommand(dockerfileExec('CMD'), processEnv({ PORT: String(port), HOST: '127.0.0.1' }));
    const locker = new pg.Client({ connectionString: env.config.DATABASE_URL });
    await locker.connect();
    try {
      await eventually(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200, 60_000, 100);
      // Hold the platform's row: PATCH /config waits on it inside the server.
      await locker.query('BEGIN');
      await locker.query('SELECT id FROM platforms WHERE id = $1 FOR UPDATE', [p.platformId]);
      const inFlight = fetch(`http://127.0.0.1:${port}/2025-10-13/config`, {
        method: 'PATCH',
        headers: { authorization: p.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ umaDomain: 'drain.example.com' }),
      });
      await eventually(async () => {
        // On the Citus rehearsal (TEST_CITUS_WORKERS; 29f) `platforms` is a reference table: the update waits on a
        // node holding a copy, and the coordinator's backend waits for that node's answer (citus_lock_waits, as in
        // test/platform/transition.test.ts).
        const waits = process.env.TEST_CITUS_WORKERS
          ? "SELECT ((SELECT count(*) FROM citus_lock_waits) + (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'))::int AS n"
          : "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'";
        const r = await locker.query(waits);
        return r.rows[0].n >= 1;
      }, 30_000);

      api.child.kill('SIGTERM');
      await logged(api, 'shutting down: finishing requests in flight');
      await locker.query('COMMIT');
      const res = await inFlight;
      expect(res.status).toBe(200);
      // The answer closes its keep-alive connection, so the server stops now, not at the idle timeout.
      expect(res.headers.get('connection')).toBe('close');
      expect(((await res.json()) as { umaDomain: string }).umaDomain).toBe('drain.example.com');
      expect(await api.exited).toBe(0);
      expect(api.logs.some((l) => l.msg === 'server stopped')).toBe(true);
    } finally {
      await locker.end().catch(() => undefined);
      if (api.child.exitCode === null) api.child.kill('SIGKILL');
    }
  }, 120_000);

  it('refuses to start on an unmigrated database with a sentence, not a stack trace', async () => {
    const empty = `svc_t_${Math.floor(Date.now() / 1000)}_empty${Math.random().toString(16).slice(2, 8)}`;
    const admin = new pg.Client({ connectionString: env.config.DATABASE_DIRECT_URL ?? env.config.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${empty}"`);
    try {
      const u = new URL(env.config.DATABASE_URL);
      u.pathname = `/${empty}`;
      const api = startImageCommand(dockerfileExec('CMD'), processEnv({ DATABASE_URL: u.toString(), PORT: String(await freePort()), LOG_LEVEL: 'warn' }));
      expect(await api.exited).toBe(1);
      expect(api.output()).toContain('The database has no schema yet: run `npm run db:migrate`');
      expect(api.output()).not.toMatch(/PrismaClient|\n\s+at /);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${empty}" WITH (FORCE)`);
      await admin.end();
    }
  }, 60_000);
});
