import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { newId, platformLabel, resourceKey } from '../../src/platform/ids.js';
import { databaseBefore, type DatabaseBefore } from '../helpers/test-databases.js';

/**
 * Issue 30 (30f): status changes' `resource_id` and ledger journals' `reference_id` are stored as `uuid`,
 * the resource's key (svc_resource_key / resourceKey). The migration turns every id already stored into
 * its key — an odd id (not `<Type>:<uuid>`) into its MD5 key, the platform the stablecoin enablement's
 * history names (bare uuid since 30e, `Platform:<uuid>` before) into the platform's uuid — and keeps the
 * indexes (with their fillfactor) and the journals' append-only trigger.
 */
const MIGRATION = '20270115020000_status_journal_keys';

describe('migration 20270115020000_status_journal_keys', () => {
  let m: DatabaseBefore | undefined;
  afterAll(async () => m?.drop());

  it('stores the key of every resource id, indexes and the append-only trigger kept', async () => {
    m = await databaseBefore(inject('databaseDirectUrl'), MIGRATION, 'sjkeys');
    const url = m.url;

    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const platform = randomUUID();
      await db.query(`INSERT INTO platforms (id, name) VALUES ($1, 'P')`, [platform]);
      const payment = newId('Transaction');
      // The ids as they were stored: a payment's (one written in capitals too), an odd one, the platform's both ways.
      const changes: Array<[machine: string, resource: string]> = [
        ['transaction', payment],
        ['quote', `Quote:${randomUUID().toUpperCase()}`],
        ['customer', 'Customer:abc'],
        ['stablecoin-enablement', platform],
        ['stablecoin-enablement', platformLabel(platform)],
      ];
      for (const [machine, resource] of changes) {
        await db.query(
          `INSERT INTO status_changes (id, platform_id, machine, resource_id, event, from_status, to_status) VALUES (gen_random_uuid(), $1, $2, $3, 'e', 'A', 'B')`,
          [platform, machine, resource],
        );
      }
      const references = [payment, 'Customer:abc', null];
      for (const [i, reference] of references.entries()) {
        await db.query(`INSERT INTO ledger_journals (id, platform_id, idempotency_key, kind, reference_id) VALUES (gen_random_uuid(), $1, $2, 'TEST', $3)`, [platform, `k${i}`, reference]);
      }
      const old = {
        changes: (await db.query(`SELECT id, resource_id FROM status_changes ORDER BY id`)).rows as Array<{ id: string; resource_id: string }>,
        journals: (await db.query(`SELECT id, reference_id FROM ledger_journals ORDER BY id`)).rows as Array<{ id: string; reference_id: string | null }>,
      };

      expect(await m.applyMigration()).toEqual([MIGRATION]);

      const types = await db.query(
        `SELECT table_name || '.' || column_name AS col, data_type AS type, is_nullable AS nullable FROM information_schema.columns
          WHERE table_schema = 'public' AND (table_name, column_name) IN (('status_changes', 'resource_id'), ('ledger_journals', 'reference_id')) ORDER BY 1`,
      );
      expect(types.rows).toEqual([
        { col: 'ledger_journals.reference_id', type: 'uuid', nullable: 'YES' },
        { col: 'status_changes.resource_id', type: 'uuid', nullable: 'NO' },
      ]);

      // Each row keeps its id; its resource is now the key of the id it held (the platform: the key of its label).
      const keyOf = (stored: string) => resourceKey(stored === platform ? platformLabel(stored) : stored);
      const changes2 = (await db.query(`SELECT id, resource_id::text AS resource_id FROM status_changes ORDER BY id`)).rows;
      expect(changes2).toEqual(old.changes.map((r) => ({ id: r.id, resource_id: keyOf(r.resource_id) })));
      const journals2 = (await db.query(`SELECT id, reference_id::text AS reference_id FROM ledger_journals ORDER BY id`)).rows;
      expect(journals2).toEqual(old.journals.map((r) => ({ id: r.id, reference_id: r.reference_id === null ? null : resourceKey(r.reference_id) })));
      // The same keys as the database's own function gives the old ids.
      const sqlKeys = (await db.query(`SELECT svc_resource_key(x)::text AS k FROM unnest($1::text[]) WITH ORDINALITY AS t(x, n) ORDER BY n`, [[payment, 'Customer:abc', platformLabel(platform)]])).rows.map((r) => r.k);
      expect(sqlKeys).toEqual([payment.slice('Transaction:'.length), resourceKey('Customer:abc'), platform]);
      expect((await db.query(`SELECT count(*)::int AS n FROM status_changes WHERE resource_id = $1`, [platform])).rows[0].n).toBe(2);
      expect((await db.query(`SELECT count(*)::int AS n FROM status_changes WHERE resource_id = svc_resource_key('Customer:abc')`)).rows[0].n).toBe(1);

      // The indexes, rebuilt on the uuid with their options.
      const indexes = await db.query(
        `SELECT c.relname AS name, c.reloptions AS options, pg_get_indexdef(c.oid) AS def FROM pg_class c
          WHERE c.relname IN ('status_changes_resource_id_idx', 'ledger_journals_reference_id_idx') ORDER BY 1`,
      );
      expect(indexes.rows).toEqual([
        { name: 'ledger_journals_reference_id_idx', options: ['fillfactor=100'], def: expect.stringContaining('(reference_id)') },
        { name: 'status_changes_resource_id_idx', options: ['fillfactor=100'], def: expect.stringContaining('(resource_id)') },
      ]);

      // Journals are still append-only.
      const journal = old.journals[0]!.id;
      await expect(db.query(`UPDATE ledger_journals SET kind = 'OTHER' WHERE id = $1`, [journal])).rejects.toThrow();
      await expect(db.query(`DELETE FROM ledger_journals WHERE id = $1`, [journal])).rejects.toThrow();
      expect((await db.query(`SELECT count(*)::int AS n FROM ledger_journals`)).rows[0].n).toBe(3);
    } finally {
      await db.end();
    }
  }, 120_000);
});
