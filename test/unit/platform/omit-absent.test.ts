import { describe, expect, it } from 'vitest';
import { omitAbsent } from '../../../src/platform/http/omit-absent.js';

describe('omitAbsent (src/platform/http/omit-absent.ts)', () => {
  it('drops the optional keys that are null or undefined, keeps every other key in its order', () => {
    const out = omitAbsent({ id: 'a', customerId: null, quoteId: null, note: undefined, count: 0, flag: false, text: '', refund: { status: null } }, ['quoteId', 'note', 'count', 'flag', 'text', 'refund']);
    expect(Object.keys(out)).toEqual(['id', 'customerId', 'count', 'flag', 'text', 'refund']);
    // Required-nullable keys keep their null; falsy values are values; nested objects are left alone.
    expect(JSON.stringify(out)).toBe('{"id":"a","customerId":null,"count":0,"flag":false,"text":"","refund":{"status":null}}');
  });

  it('writes the same JSON as deleting the absent keys from a copy did', () => {
    const resource = { a: 1, b: null, c: undefined, d: 'x', e: null, f: [null], g: undefined };
    const optional = ['b', 'c', 'f'] as const;
    const before: Record<string, unknown> = { ...resource };
    for (const k of optional) if (before[k] === null || before[k] === undefined) delete before[k];
    expect(JSON.stringify(omitAbsent(resource, optional))).toBe(JSON.stringify(before));
  });
});
