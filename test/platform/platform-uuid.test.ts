import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { queueOf } from '../../src/platform/queue.js';
import { platformLabel } from '../../src/platform/ids.js';
import { PAYMENTS_QUEUE, submitJobId } from '../../src/domains/payments/transactions.jobs.js';
import { createTestEnv, eventually, type TestEnv } from '../helpers/app.js';
import { aFundedUsdPayer, expectLedgerConsistent } from '../helpers/builders.js';
import { databaseBefore, type DatabaseBefore } from '../helpers/test-databases.js';

/**
 * Issue 30 (30e): `platform_id` and `platforms.id` are stored as `uuid`. The migration turns every
 * `Platform:<uuid>` already stored into its uuid and keeps every row and foreign key; a payment job queued
 * before the upgrade (naming `Platform:<uuid>`) still runs; operators still see `Platform:<uuid>`.
 */
const MIGRATION = '20270114000000_platform_id_uuid';

describe('migration 20270114000000_platform_id_uuid', () => {
  let m: DatabaseBefore | undefined;
  afterAll(async () => m?.drop());

  it('turns every stored Platform:<uuid> into its uuid, every row and foreign key kept', async () => {
    m = await databaseBefore(inject('databaseDirectUrl'), MIGRATION, 'puuid');
    const url = m.url;

    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const [a, b] = [randomUUID(), randomUUID()];
      for (const [id, n] of [[a, 'A'], [b, 'B']] as const) {
        await db.query(`INSERT INTO platforms (id, name) VALUES ($1, $2)`, [platformLabel(id), n]);
        await db.query(
          `INSERT INTO platform_credentials (id, platform_id, client_id, secret_hash, permissions) VALUES ($1, $2, $3, 'h', '{}')`,
          [`Token:${randomUUID()}`, platformLabel(id), `cli_${n}`],
        );
        await db.query(`INSERT INTO platform_currencies (platform_id, currency_code, min_amount, max_amount) VALUES ($1, 'USD', 1, 100)`, [platformLabel(id)]);
        await db.query(`INSERT INTO tenant_lookups (kind, value, platform_id) VALUES ('PLATFORM_CLIENT_ID', $1, $2)`, [`cli_${n}`, platformLabel(id)]);
      }
      const fks = async () => (await db.query(`SELECT count(*)::int AS n FROM pg_constraint WHERE contype = 'f'`)).rows[0].n as number;
      const fkCount = await fks();
      expect(fkCount).toBeGreaterThan(10);

      expect(await m.applyMigration()).toEqual([MIGRATION]);

      const types = await db.query<{ type: string; n: number }>(
        `SELECT data_type AS type, count(*)::int AS n FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'platform_id' GROUP BY 1`,
      );
      expect(types.rows).toEqual([{ type: 'uuid', n: expect.any(Number) }]);
      expect(types.rows[0]!.n).toBeGreaterThanOrEqual(61);
      expect((await db.query(`SELECT data_type FROM information_schema.columns WHERE table_name = 'platforms' AND column_name = 'id'`)).rows[0].data_type).toBe('uuid');

      expect((await db.query(`SELECT id::text, name FROM platforms ORDER BY name`)).rows).toEqual([{ id: a, name: 'A' }, { id: b, name: 'B' }]);
      expect((await db.query(`SELECT platform_id::text AS p, client_id FROM platform_credentials ORDER BY client_id`)).rows).toEqual([{ p: a, client_id: 'cli_A' }, { p: b, client_id: 'cli_B' }]);
      expect((await db.query(`SELECT platform_id::text AS p FROM tenant_lookups ORDER BY value`)).rows).toEqual([{ p: a }, { p: b }]);
      expect((await db.query(`SELECT count(*)::int AS n FROM platform_currencies WHERE platform_id = ANY($1::uuid[])`, [[a, b]])).rows[0].n).toBe(2);

      // The same foreign keys, still enforced.
      expect(await fks()).toBe(fkCount);
      await expect(
        db.query(`INSERT INTO platform_credentials (id, platform_id, client_id, secret_hash, permissions) VALUES ($1, $2, 'cli_C', 'h', '{}')`, [`Token:${randomUUID()}`, randomUUID()]),
      ).rejects.toMatchObject({ code: '23503' });
      // The version read's function takes the platform as a uuid.
      expect((await db.query(`SELECT count(*)::int AS n FROM svc_transaction_versions(ARRAY['Transaction:x'], $1::uuid)`, [a])).rows[0].n).toBe(0);
    } finally {
      await db.end();
    }
  }, 120_000);
});

describe('platform ids as uuid, through the service', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
  }, 180_000);
  afterAll(async () => {
    await env.close();
  });

  it('a payment whose submission was queued before the upgrade (Platform:<uuid> in the job) is still paid out', async () => {
    const workers = env.startWorkers();
    const p = await env.platform();
    const { usd, dest } = await aFundedUsdPayer(env, p);
    await workers.close();
    expect(p.platformId).toMatch(/^[0-9a-f-]{36}$/);

    const res = await p.request({
      method: 'POST',
      url: '/quotes',
      payload: { source: { sourceType: 'ACCOUNT', accountId: usd }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'RECEIVING', lockedCurrencyAmount: 1_500, immediatelyExecute: true },
    });
    expect(res.statusCode, res.body).toBe(201);
    const transactionId = res.json().transactionId as string;

    // The job the API queued is replaced by the one an older release queued for the same payment.
    const queue = queueOf(env.deps, PAYMENTS_QUEUE);
    await eventually(async () => (await queue.getWaitingCount()) > 0);
    await queue.drain(true);
    await queue.add('submit', { platformId: platformLabel(p.platformId), transactionId }, { jobId: submitJobId(transactionId) });

    const running = env.startWorkers();
    try {
      await eventually(async () => (await p.request({ method: 'GET', url: `/transactions/${transactionId}` })).json().status === 'COMPLETED', 30_000);
    } finally {
      await running.close();
    }
    await expectLedgerConsistent(env, p.platformId);
  }, 120_000);
});
