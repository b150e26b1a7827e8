import { describe, expect, it } from 'vitest';
import { longFunctions } from '../../../scripts/function-lengths.js';

// Issue 24 / house style: functions stay short (TigerBeetle's 70 lines); branch in the caller, compute in pure leaves.
describe('function lengths', () => {
  it('no function in src/domains/payments runs past 70 lines', () => {
    expect(longFunctions('src/domains/payments', 70)).toEqual([]);
  });

  it('the check finds a long function (it is not vacuous)', () => {
    expect(longFunctions('src/domains/payments', 20).length).toBeGreaterThan(0);
  });
});
