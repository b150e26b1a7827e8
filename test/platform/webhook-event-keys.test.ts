import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { eventPayload } from '../../src/domains/webhooks/webhooks.model.js';
import { newUuid, resourceKey } from '../../src/platform/ids.js';
import { databaseBefore, type DatabaseBefore } from '../helpers/test-databases.js';

/**
 * Issue 30 (30f): webhook events keep their own id and their resource's as `uuid`. The migration turns every
 * stored `Webhook:<uuid>` (events and their attempts) and resource id into its key, keeps the attempts' foreign
 * key, and puts a resource's id back into a payload cut down before (30c) wherever the event's type cannot give
 * it back — so every event, whole or cut down, still lists with the ids it had.
 */
const MIGRATION = '20270115010000_webhook_event_keys';

describe('migration 20270115010000_webhook_event_keys', () => {
  let m: DatabaseBefore | undefined;
  afterAll(async () => m?.drop());

  it('turns event ids, resource ids and attempts into keys; every event lists as before', async () => {
    m = await databaseBefore(inject('databaseDirectUrl'), MIGRATION, 'evkeys');
    const url = m.url;

    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const platform = newUuid();
      await db.query(`INSERT INTO platforms (id, name, webhook_endpoint) VALUES ($1, 'P', 'https://hooks.example.com/x')`, [platform]);
      const [e1, e2, e3, e4] = [newUuid(), newUuid(), newUuid(), newUuid()];
      const transaction = `Transaction:${newUuid()}`;
      const upload = `BulkCustomerImport:${newUuid()}`;
      const insert = (id: string, type: string, data: object) =>
        db.query(`INSERT INTO webhook_events (id, platform_id, type, data, created_at, relayed_at, delivery_status) VALUES ($1, $2, $3, $4, now() - interval '40 days', now() - interval '40 days', 'DELIVERED')`, [`Webhook:${id}`, platform, type, JSON.stringify(data)]);
      // A whole event; three cut down as 30c cut them (the resource's id only in resource_id).
      await insert(e1, 'OUTGOING_PAYMENT.COMPLETED', { id: transaction, status: 'COMPLETED', type: 'OUTGOING', description: 'whole' });
      await insert(e2, 'OUTGOING_PAYMENT.COMPLETED', { id: transaction, status: 'COMPLETED', type: 'OUTGOING' });
      await insert(e3, 'BULK_UPLOAD.COMPLETED', { id: upload, status: 'COMPLETED' });
      await insert(e4, 'CUSTOMER.UPDATED', { id: 'Customer:legacy-1', status: 'ACTIVE' });
      await db.query(`UPDATE webhook_events SET data = data - 'id', pruned_at = now() WHERE id = ANY($1::text[])`, [[e2, e3, e4].map((e) => `Webhook:${e}`)]);
      await db.query(`INSERT INTO webhook_attempts (id, platform_id, event_id, url, latency_ms, outcome) VALUES ($1, $2, $3, 'https://hooks.example.com/x', 3, 'DELIVERED')`, [`WebhookAttempt:${randomUUID()}`, platform, `Webhook:${e1}`]);

      expect(await m.applyMigration()).toEqual([MIGRATION]);

      const types = await db.query(`SELECT table_name || '.' || column_name AS c, data_type FROM information_schema.columns
        WHERE (table_name, column_name) IN (('webhook_events', 'id'), ('webhook_events', 'resource_id'), ('webhook_attempts', 'event_id')) ORDER BY 1`);
      expect(types.rows).toEqual([
        { c: 'webhook_attempts.event_id', data_type: 'uuid' },
        { c: 'webhook_events.id', data_type: 'uuid' },
        { c: 'webhook_events.resource_id', data_type: 'uuid' },
      ]);
      const rows = (await db.query(`SELECT id::text, type, data, resource_id::text AS "resourceId", pruned_at AS "prunedAt" FROM webhook_events ORDER BY id`)).rows;
      expect(rows.map((r) => r.id)).toEqual([e1, e2, e3, e4]);
      expect(rows.map((r) => r.resourceId)).toEqual([resourceKey(transaction), resourceKey(transaction), resourceKey(upload), resourceKey('Customer:legacy-1')]);
      // Stored: the id only where the type does not give it back; listed: every id as it was.
      expect(rows.map((r) => r.data)).toEqual([
        { id: transaction, status: 'COMPLETED', type: 'OUTGOING', description: 'whole' },
        { status: 'COMPLETED', type: 'OUTGOING' },
        { id: upload, status: 'COMPLETED' },
        { id: 'Customer:legacy-1', status: 'ACTIVE' },
      ]);
      expect(rows.map((r) => (eventPayload(r) as { id: string }).id)).toEqual([transaction, transaction, upload, 'Customer:legacy-1']);
      expect(JSON.stringify(eventPayload(rows[1]))).toBe(`{"id":"${transaction}","type":"OUTGOING","status":"COMPLETED"}`);

      // The attempt follows its event; the foreign key is back and enforced.
      expect((await db.query(`SELECT event_id::text AS e FROM webhook_attempts`)).rows).toEqual([{ e: e1 }]);
      await expect(
        db.query(`INSERT INTO webhook_attempts (id, platform_id, event_id, url, latency_ms, outcome) VALUES ($1, $2, $3, 'u', 1, 'DELIVERED')`, [`WebhookAttempt:${randomUUID()}`, platform, randomUUID()]),
      ).rejects.toMatchObject({ code: '23503' });
      // A new event gets its resource's key from its payload, as before.
      const e5 = newUuid();
      await db.query(`INSERT INTO webhook_events (id, platform_id, type, data) VALUES ($1, $2, 'OUTGOING_PAYMENT.PENDING', $3)`, [e5, platform, JSON.stringify({ id: transaction })]);
      expect((await db.query(`SELECT resource_id::text AS r FROM webhook_events WHERE id = $1`, [e5])).rows[0].r).toBe(resourceKey(transaction));
    } finally {
      await db.end();
    }
  }, 120_000);
});
