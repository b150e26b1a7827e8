import { describe, expect, it } from 'vitest';
import { TickBatch } from '../../../src/platform/tick-batch.js';

/** A store of rows [key, value]; records every loadMany call. */
function store(rows: Record<string, string>, fail?: Error) {
  const calls: string[][] = [];
  const batch = new TickBatch<string, { key: string; value: string }>(
    async (keys) => {
      calls.push(keys);
      if (fail) throw fail;
      return keys.filter((k) => k in rows).map((k) => [k, rows[k]!]);
    },
    (k) => k,
    (row) => row[0] as string,
    (row) => ({ key: row[0] as string, value: row[1] as string }),
    3,
  );
  return { batch, calls };
}

describe('TickBatch (src/platform/tick-batch.ts)', () => {
  it('answers the loads asked for in one turn with one call, each with its own row or undefined', async () => {
    const { batch, calls } = store({ a: 'A', b: 'B' });
    const [a, missing, b] = await Promise.all([batch.load('a'), batch.load('x'), batch.load('b')]);
    expect(calls).toEqual([['a', 'x', 'b']]);
    expect(a).toEqual({ key: 'a', value: 'A' });
    expect(b).toEqual({ key: 'b', value: 'B' });
    expect(missing).toBeUndefined();
  });

  it('asks once for a key asked twice, and gives each caller a value of its own', async () => {
    const { batch, calls } = store({ a: 'A' });
    const [one, two] = await Promise.all([batch.load('a'), batch.load('a')]);
    expect(calls).toEqual([['a']]);
    expect(one).toEqual(two);
    expect(one).not.toBe(two);
  });

  it('keeps nothing between turns: a later load is a new call', async () => {
    const rows: Record<string, string> = { a: 'old' };
    const { batch, calls } = store(rows);
    expect(await batch.load('a')).toEqual({ key: 'a', value: 'old' });
    rows.a = 'new';
    expect(await batch.load('a')).toEqual({ key: 'a', value: 'new' });
    expect(calls).toEqual([['a'], ['a']]);
  });

  it('splits a turn with more loads than maxBatch into several calls', async () => {
    const { batch, calls } = store({ a: '1', b: '2', c: '3', d: '4', e: '5' });
    const values = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((k) => batch.load(k)));
    expect(values.map((v) => v?.value)).toEqual(['1', '2', '3', '4', '5']);
    expect(calls).toEqual([['a', 'b', 'c'], ['d', 'e']]);
  });

  it('fails every load of a call that failed, and the next turn calls again', async () => {
    const boom = new Error('connection lost');
    const failing = store({ a: 'A' }, boom);
    const results = await Promise.allSettled([failing.batch.load('a'), failing.batch.load('b')]);
    expect(results).toEqual([{ status: 'rejected', reason: boom }, { status: 'rejected', reason: boom }]);
    await expect(failing.batch.load('a')).rejects.toBe(boom);
    expect(failing.calls).toEqual([['a', 'b'], ['a']]);
  });
});
