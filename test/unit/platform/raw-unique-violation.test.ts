import { describe, expect, it } from 'vitest';
import { isRawUniqueViolation } from '../../../src/platform/db.js';

/**
 * Issue 29 (29e): a unique violation inside a one-statement write is 23505 on PostgreSQL; on Citus the row
 * reaches its shard through the coordinator's COPY, which re-raises the worker's message as XX000.
 */
describe('isRawUniqueViolation', () => {
  it('knows 23505, and the XX000 Citus re-raises with Postgres’s own message', () => {
    expect(isRawUniqueViolation({ code: '23505', message: 'duplicate key value violates unique constraint "x"' })).toBe(true);
    expect(isRawUniqueViolation({ code: 'XX000', message: 'duplicate key value violates unique constraint "card_transactions_platform_id_issuer_transaction_token_key"' })).toBe(true);
  });
  it('refuses anything else', () => {
    expect(isRawUniqueViolation({ code: 'XX000', message: 'ledger journal 1 does not balance' })).toBe(false);
    expect(isRawUniqueViolation({ code: '23514', message: 'duplicate key value violates unique constraint "x"' })).toBe(false);
    expect(isRawUniqueViolation(null)).toBe(false);
    expect(isRawUniqueViolation(new Error('duplicate key value violates unique constraint'))).toBe(false);
  });
});
