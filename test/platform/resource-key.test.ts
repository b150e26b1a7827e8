import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newId, resourceKey } from '../../src/platform/ids.js';
import { withDatabase } from '../helpers/global-setup.js';

/**
 * Issue 30 (30f): a resource's id is stored as a 16-byte key where rows are only found by it. The code
 * (resourceKey) and the database (svc_resource_key, used by triggers, the state machine and migrations) must
 * give every id the same key, or a row written by one would not be found by the other.
 */
describe('resource keys', () => {
  let db: pg.Client;
  beforeAll(async () => {
    db = new pg.Client({ connectionString: withDatabase(inject('databaseDirectUrl'), inject('templateDb')) });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
  });

  it('are the uuid of <Type>:<uuid>, and an MD5 uuid of any other id, the same in the code and in SQL', async () => {
    const ids = [
      newId('Transaction'), newId('InternalAccount'), newId('Customer'), 'Card:01A21CFC-A2E2-74D4-95C8-F87C38B6087E',
      'Customer:abc', 'system:clearing:USD', '01a21cfc-a2e2-74d4-95c8-f87c38b6087e', 'Transaction:01a21cfc-a2e2-74d4-95c8-f87c38b6087', 'x', 'Ünïcode:id',
      'Transaction:01a21cfc-a2e2-74d4-95c8-f87c38b6087e:hold',
    ];
    const sql = (await db.query('SELECT svc_resource_key(x)::text AS k FROM unnest($1::text[]) WITH ORDINALITY AS t(x, n) ORDER BY n', [ids])).rows.map((r) => r.k as string);
    expect(sql).toEqual(ids.map(resourceKey));
    expect(resourceKey(ids[0]!)).toBe(ids[0]!.slice('Transaction:'.length));
    expect(resourceKey(ids[3]!)).toBe('01a21cfc-a2e2-74d4-95c8-f87c38b6087e');
    // A bare uuid (an id stored as uuid) is its own key.
    expect(resourceKey(ids[6]!)).toBe(ids[6]);
    // Not of the form: hashed, so a truncated uuid or a key with a suffix is not taken for a resource.
    for (const odd of [...ids.slice(4, 6), ...ids.slice(7)]) expect(resourceKey(odd)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(new Set(ids.map(resourceKey)).size).toBe(ids.length - 1); // ids[3] and ids[6] are one uuid
  });
});
