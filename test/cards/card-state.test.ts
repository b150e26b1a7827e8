import { describe, expect, it } from 'vitest';
import { CARD_STATES, cardEventFor, cardTransitions } from '../../src/domains/cards/cards.model.js';

describe('card transition table', () => {
  it('allows exactly the spec moves (every event against every state)', () => {
    const allowed: string[] = [];
    for (const [event, t] of Object.entries(cardTransitions)) {
      for (const s of CARD_STATES) if ((t.from as readonly string[]).includes(s)) allowed.push(`${event}:${s}>${t.to}`);
    }
    expect(allowed.sort()).toEqual([
      'activate:PROCESSING>ACTIVE', 'close:ACTIVE>CLOSED', 'close:FROZEN>CLOSED', 'close:PENDING_KYC>CLOSED', 'close:PROCESSING>CLOSED',
      'freeze:ACTIVE>FROZEN', 'issuerReject:PROCESSING>CLOSED', 'kycApproved:PENDING_KYC>PROCESSING', 'unfreeze:FROZEN>ACTIVE',
    ]);
  });

  it('maps every (current, requested) pair to the spec table outcome', () => {
    const outcome = (current: (typeof CARD_STATES)[number], requested: (typeof CARD_STATES)[number] | undefined) => {
      try {
        return cardEventFor(current, requested) ?? 'none';
      } catch (err) {
        return (err as { code: string }).code;
      }
    };
    expect(outcome('ACTIVE', 'FROZEN')).toBe('freeze');
    expect(outcome('FROZEN', 'ACTIVE')).toBe('unfreeze');
    expect(outcome('ACTIVE', 'CLOSED')).toBe('close');
    expect(outcome('FROZEN', 'CLOSED')).toBe('close');
    expect(outcome('ACTIVE', 'ACTIVE')).toBe('INVALID_STATE_TRANSITION');
    expect(outcome('FROZEN', 'FROZEN')).toBe('INVALID_STATE_TRANSITION');
    expect(outcome('CLOSED', 'CLOSED')).toBe('CARD_ALREADY_CLOSED');
    expect(outcome('CLOSED', 'ACTIVE')).toBe('CARD_NOT_MUTABLE');
    expect(outcome('CLOSED', 'FROZEN')).toBe('CARD_NOT_MUTABLE');
    expect(outcome('CLOSED', undefined)).toBe('CARD_NOT_MUTABLE');
    expect(outcome('ACTIVE', undefined)).toBe('none');
    expect(outcome('FROZEN', undefined)).toBe('none');
    // The issuer's and KYC's states are never a PATCH's target; a PROCESSING card can only be closed.
    expect(outcome('ACTIVE', 'PROCESSING')).toBe('INVALID_STATE_TRANSITION');
    expect(outcome('PROCESSING', 'FROZEN')).toBe('INVALID_STATE_TRANSITION');
    expect(outcome('PROCESSING', 'CLOSED')).toBe('close');
  });
});
