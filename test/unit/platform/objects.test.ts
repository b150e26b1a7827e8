import { describe, expect, it } from 'vitest';
import { merged } from '../../../src/platform/objects.js';

/** merged() is the money path's `{ ...a, ...b }`: the same object, key for key and in the same order. */
describe('merged', () => {
  const cases: Array<[string, object[]]> = [
    ['disjoint keys', [{ a: 1, b: 2 }, { c: 3 }]],
    ['later keys win, in the first key order', [{ a: 1, b: 2, c: 3 }, { b: 20, d: 4 }]],
    ['three parts', [{ a: 1, b: { nested: true } }, { b: null }, { a: undefined, e: 5n }]],
    ['keys that need quoting', [{ 'we"ird\u2028': 1, 'x y': 2 }, { '0': 'digit', "it's": 3 }]],
    ['empty parts', [{}, { a: 1 }, {}]],
  ];
  for (const [name, parts] of cases) {
    it(name, () => {
      const out = (merged as (...p: object[]) => object)(...parts);
      const spread = parts.reduce((acc, p) => ({ ...acc, ...p }), {});
      expect(Object.keys(out)).toEqual(Object.keys(spread));
      expect(out).toEqual(spread);
    });
  }

  it('copies the values, not the parts: a later change to a part does not show', () => {
    const a = { status: 'PENDING', amount: 100n };
    const out = merged(a, { status: 'PROCESSING' });
    a.amount = 5n;
    expect(out).toEqual({ status: 'PROCESSING', amount: 100n });
    expect(a.status).toBe('PENDING');
  });

  it('keeps an own "__proto__" key a property, as the spread does, and the prototype plain', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": 1}, "a": 2}') as object;
    const out = merged(parsed, { b: 3 }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__', 'a', 'b']);
    expect((out as { polluted?: number }).polluted).toBeUndefined();
  });

  it('gives the same answer for many shapes (past its cache of compiled shapes too)', () => {
    for (let i = 0; i < 1100; i++) {
      const a = { [`k${i}`]: i, shared: 'a' };
      const out = merged(a, { shared: 'b', [`m${i}`]: -i });
      expect(out).toEqual({ [`k${i}`]: i, shared: 'b', [`m${i}`]: -i });
    }
  });
});
