import { describe, expect, it } from 'vitest';
import { IllegalTransitionError, nextStatus } from '../../src/platform/state-machine.js';
import { eventTowards, internalAccountLifecycle as l, type InternalAccountEvent } from '../../src/domains/ledger/internal-accounts.model.js';
import { secondsUntilNextUtcDay, utcDay } from '../../src/domains/limits/daily-volume.model.js';

/** Issue 25: REF's InternalAccountStatus moves, written out apart from the table; every other pair is refused. */
const MOVES = ['activate: PENDING>ACTIVE', 'fail: PENDING>FAILED', 'freeze: ACTIVE>FROZEN', 'unfreeze: FROZEN>ACTIVE', 'close: ACTIVE>CLOSED', 'close: FROZEN>CLOSED'];

describe('internal account lifecycle', () => {
  it('allows exactly the documented moves, and CLOSED and FAILED are terminal', () => {
    for (const event of Object.keys(l.transitions) as InternalAccountEvent[]) {
      for (const from of l.statuses) {
        const documented = MOVES.find((m) => m.startsWith(`${event}: ${from}>`));
        if (documented) expect(nextStatus(l, event, from)).toBe(documented.split('>')[1]);
        else expect(() => nextStatus(l, event, from)).toThrow(IllegalTransitionError);
      }
    }
    expect([...l.terminal].sort()).toEqual(['CLOSED', 'FAILED']);
  });

  it('finds the operator\'s event towards a status: ACTIVE is activate from PENDING and unfreeze from FROZEN', () => {
    expect(eventTowards('PENDING', 'ACTIVE')).toBe('activate');
    expect(eventTowards('FROZEN', 'ACTIVE')).toBe('unfreeze');
    expect(eventTowards('ACTIVE', 'ACTIVE')).toBeUndefined();
    expect(eventTowards('CLOSED', 'FROZEN')).toBeUndefined();
  });
});

describe('daily volume day', () => {
  it('counts on the UTC day and retries at the next UTC midnight', () => {
    const now = new Date('2026-12-05T23:59:30.500Z');
    expect(utcDay(now)).toBe('2026-12-05');
    expect(secondsUntilNextUtcDay(now)).toBe(30);
    expect(secondsUntilNextUtcDay(new Date('2026-12-05T00:00:00.000Z'))).toBe(86_400);
  });
});
