import { describe, expect, it } from 'vitest';
import { JsonText, OneStatement } from '../../../src/platform/one-statement.js';

/** The JSON an insert sends (its rows, as json_populate_recordset reads them) and the columns it names. */
describe('OneStatement.insert', () => {
  it('writes snake_case columns, bigints as strings, dates as ISO strings, pre-serialized payloads as they are', () => {
    const s = new OneStatement();
    const at = new Date('2026-11-24T12:00:00.123Z');
    s.insert('w', 'webhook_events', [
      { id: 'Webhook:1', platformId: 'Platform:1', attemptCount: 0, createdAt: at, data: new JsonText('{"amount":12,"ok":true}') },
      { id: 'Webhook:2', platformId: 'Platform:1', skipped: undefined, amount: 9007199254740993n, nested: { big: 5n, when: at, list: [1, 'two'] }, fn: () => 1 },
    ]);
    const sql = s.sql('1');
    expect(sql).toContain('INSERT INTO webhook_events (id, platform_id, attempt_count, created_at, data, amount, nested) SELECT id, platform_id, attempt_count, created_at, data, amount, nested FROM json_populate_recordset(NULL::webhook_events, $1::json)');
    expect(JSON.parse(s.values[0] as string)).toEqual([
      { id: 'Webhook:1', platform_id: 'Platform:1', attempt_count: 0, created_at: '2026-11-24T12:00:00.123Z', data: { amount: 12, ok: true } },
      // A nested bigint becomes a number (amounts are below 2^53, decision A19); undefined and functions are left out.
      { id: 'Webhook:2', platform_id: 'Platform:1', amount: '9007199254740993', nested: { big: 5, when: '2026-11-24T12:00:00.123Z', list: [1, 'two'] } },
    ]);
  });

  it('escapes text as JSON does', () => {
    const s = new OneStatement();
    const text = 'quote " backslash \\ newline \n tab \t unicode é \u2028';
    s.insert('c', 'customers', [{ fullName: text }]);
    expect(JSON.parse(s.values[0] as string)).toEqual([{ full_name: text }]);
  });

  it('refuses a key that is not an identifier', () => {
    expect(() => new OneStatement().insert('c', 'customers', [{ 'bad key; DROP': 1 }])).toThrow(/not an SQL identifier/);
  });
});
