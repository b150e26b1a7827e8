import { describe, expect, it } from 'vitest';
import { expectedSettlementAt, railChoice, reconciliationInstructions, withOnChainTransaction } from '../../../src/domains/payments/ref-reads.js';
import { rejectionErrorType } from '../../../src/domains/verification/verification.model.js';

/** REF's transaction reads (issue 25), derived from the row. */
describe('REF transaction reads', () => {
  const createdAt = new Date('2026-01-01T00:00:00Z');

  it('rail choice: MANUAL when the platform named the rail, AUTO otherwise, nothing without a rail; the timeline rounds up to seconds', () => {
    const timing = (rail: string) => ({ WIRE: 86_400_000, ACH: 1_500 })[rail] ?? 0;
    expect(railChoice('WIRE', 'WIRE', timing)).toEqual({ railSelectionMode: 'MANUAL', settlementTimelineSeconds: 86_400 });
    expect(railChoice('ACH', undefined, timing)).toEqual({ railSelectionMode: 'AUTO', settlementTimelineSeconds: 2 });
    expect(railChoice(null, 'WIRE', timing)).toEqual({ railSelectionMode: null, settlementTimelineSeconds: null });
  });

  it('expectedSettlementAt is creation plus the timeline, absent for instant rails and unknown timelines', () => {
    expect(expectedSettlementAt({ paymentRail: 'WIRE', settlementTimelineSeconds: 3_600, createdAt })).toBe('2026-01-01T01:00:00.000Z');
    expect(expectedSettlementAt({ paymentRail: 'RTP', settlementTimelineSeconds: 1, createdAt })).toBeUndefined();
    expect(expectedSettlementAt({ paymentRail: 'WIRE', settlementTimelineSeconds: null, createdAt })).toBeUndefined();
  });

  it('a wallet leg carries its hash as onChainTransaction once completed, never as reconciliationInstructions', () => {
    const wallet = { paymentRail: 'BASE', railReference: '0xabc', status: 'COMPLETED' };
    expect(withOnChainTransaction({ accountId: 'ExternalAccount:1' }, wallet)).toEqual({ accountId: 'ExternalAccount:1', onChainTransaction: { transactionHash: '0xabc', network: 'BASE' } });
    expect(withOnChainTransaction({ accountId: 'ExternalAccount:1' }, { ...wallet, status: 'PROCESSING' })).toEqual({ accountId: 'ExternalAccount:1' });
    expect(withOnChainTransaction({ accountId: 'ExternalAccount:1' }, { ...wallet, paymentRail: 'ACH' })).toEqual({ accountId: 'ExternalAccount:1' });
    expect(reconciliationInstructions(wallet)).toBeUndefined();
    expect(reconciliationInstructions({ paymentRail: 'ACH', railReference: 'TRACE-1' })).toEqual({ reference: 'TRACE-1' });
    expect(reconciliationInstructions({ paymentRail: 'ACH', railReference: null })).toBeUndefined();
  });

  it('a provider\'s rejection cause is REF\'s type when REF has it, else APPLICANT_REJECTED', () => {
    expect(rejectionErrorType('APPLICANT_SANCTIONED')).toBe('APPLICANT_SANCTIONED');
    expect(rejectionErrorType('WRONG_DOCUMENT_TYPE')).toBe('WRONG_DOCUMENT_TYPE');
    expect(rejectionErrorType('SOMETHING_ELSE')).toBe('APPLICANT_REJECTED');
    expect(rejectionErrorType(undefined)).toBe('APPLICANT_REJECTED');
  });
});
