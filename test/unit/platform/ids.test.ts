import { describe, expect, it } from 'vitest';
import { validate, version } from 'uuid';
import { isId, newId } from '../../../src/platform/ids.js';

describe('newId (src/platform/ids.ts)', () => {
  it('gives valid, distinct UUIDv7 ids that sort by creation, also many within one millisecond', () => {
    const ids = Array.from({ length: 5000 }, () => newId('Transaction'));
    for (const id of ids.slice(0, 300)) {
      expect(isId('Transaction', id)).toBe(true);
      const uuid = id.slice('Transaction:'.length);
      expect(validate(uuid) && version(uuid)).toBe(7);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});
