import { describe, expect, it } from 'vitest';
import { IllegalTransitionError, nextStatus, type Lifecycle } from '../../src/platform/state-machine.js';
import {
  fiatAmountOf, gridOperationsLifecycle, operationEventFor, operationLifecycle, providerAccountLifecycle,
} from '../../src/domains/stablecoin/issuance.model.js';
import { issuerScenarioFor } from '../../src/adapters/stablecoin-issuer/sandbox/index.js';

/** The issuance lifecycles' documented moves (REF "Stablecoins"; docs/decisions.md anchor 26), every event against every status. */
const OPEN = ['CREATED', 'PENDING_FUNDING', 'PENDING_PROVIDER', 'PROCESSING'];
const DOCUMENTED: Array<{ lifecycle: Lifecycle; moves: string[]; terminal: string[] }> = [
  {
    lifecycle: operationLifecycle,
    moves: [
      'awaitFunding: CREATED>PENDING_FUNDING',
      'fund: CREATED>PENDING_PROVIDER', 'fund: PENDING_FUNDING>PENDING_PROVIDER',
      'process: CREATED>PROCESSING', 'process: PENDING_FUNDING>PROCESSING', 'process: PENDING_PROVIDER>PROCESSING',
      ...OPEN.map((s) => `complete: ${s}>COMPLETED`),
      ...OPEN.map((s) => `fail: ${s}>FAILED`),
      'expire: PENDING_FUNDING>EXPIRED',
    ],
    terminal: ['COMPLETED', 'FAILED', 'EXPIRED'],
  },
  {
    lifecycle: providerAccountLifecycle,
    moves: ['invalidate: ACTIVE>INVALID', 'revoke: ACTIVE>REVOKED', 'revoke: INVALID>REVOKED', 'reactivate: INVALID>ACTIVE'],
    terminal: ['REVOKED'],
  },
  {
    lifecycle: gridOperationsLifecycle,
    moves: [
      'request: NOT_ENABLED>PENDING_APPROVAL',
      'approve: PENDING_APPROVAL>ENABLING', 'approve: DISABLED>ENABLING',
      'enable: PENDING_APPROVAL>ENABLED', 'enable: ENABLING>ENABLED',
      'disable: PENDING_APPROVAL>DISABLED', 'disable: ENABLING>DISABLED', 'disable: ENABLED>DISABLED',
    ],
    terminal: [],
  },
];

describe('stablecoin issuance lifecycles', () => {
  for (const { lifecycle, moves, terminal } of DOCUMENTED) {
    it(`${lifecycle.name}: every event from every status lands where documented, or is refused`, () => {
      const documented = new Map(moves.map((m) => {
        const [event, pair] = m.split(': ');
        const [from, to] = pair!.split('>');
        return [`${event}|${from}`, to!];
      }));
      for (const event of Object.keys(lifecycle.transitions)) {
        for (const from of lifecycle.statuses) {
          const to = documented.get(`${event}|${from}`);
          if (to) expect(nextStatus(lifecycle, event, from)).toBe(to);
          else expect(() => nextStatus(lifecycle, event, from)).toThrow(IllegalTransitionError);
        }
      }
      expect(Object.keys(lifecycle.transitions).flatMap((e) => lifecycle.transitions[e]!.from.map((f) => `${e}|${f}`)).sort()).toEqual([...documented.keys()].sort());
      expect([...lifecycle.terminal].sort()).toEqual([...terminal].sort());
    });
  }
});

describe('the issuer answer as a move', () => {
  it('never moves backwards, never on a repeat, never on a provider that does not know the operation', () => {
    expect(operationEventFor('CREATED', 'AWAITING_FUNDS')).toBe('awaitFunding');
    expect(operationEventFor('PENDING_FUNDING', 'AWAITING_FUNDS')).toBeNull();
    expect(operationEventFor('PROCESSING', 'PENDING')).toBeNull();
    expect(operationEventFor('PENDING_FUNDING', 'COMPLETED')).toBe('complete');
    expect(operationEventFor('COMPLETED', 'FAILED')).toBeNull();
    expect(operationEventFor('EXPIRED', 'PENDING')).toBeNull();
    expect(operationEventFor('PROCESSING', 'PENDING', true)).toBeNull();
  });
});

describe('REF amount rule: a token amount must convert exactly to a whole fiat cent', () => {
  it('converts 6-decimal amounts in multiples of 10^4 and refuses the rest', () => {
    expect(fiatAmountOf(25_000_000n, 6, 2)).toBe(2500n);
    expect(fiatAmountOf(10_000n, 6, 2)).toBe(1n);
    expect(fiatAmountOf(10_001n, 6, 2)).toBeUndefined();
    expect(fiatAmountOf(5n, 2, 2)).toBe(5n);
    expect(fiatAmountOf(1n, 0, 2)).toBe(100n);
  });
  it('the sandbox issuer picks its scenario from the fiat amount', () => {
    expect(issuerScenarioFor(902n)).toBe('REJECTED');
    expect(issuerScenarioFor(1903n)).toBe('UNAVAILABLE');
    expect(issuerScenarioFor(904n)).toBe('FAILS_AFTER_FUNDING');
    expect(issuerScenarioFor(2500n)).toBe('OK');
  });
});
