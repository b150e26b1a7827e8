import { describe, expect, it } from 'vitest';
import { REF_INCOMING_FAILURE_REASONS, REF_OUTGOING_FAILURE_REASONS, wireFailureReason } from '../../../src/domains/payments/failure-reasons.js';

describe('failureReason on the wire (REF enums)', () => {
  it('REF\'s own values pass unchanged and carry no failureDetail', () => {
    for (const r of REF_OUTGOING_FAILURE_REASONS) expect(wireFailureReason('OUTGOING', r)).toEqual({ failureReason: r });
    for (const r of REF_INCOMING_FAILURE_REASONS) expect(wireFailureReason('INCOMING', r)).toEqual({ failureReason: r });
  });

  it('the server\'s causes REF has no value for read QUOTE_EXECUTION_FAILED with the cause in failureDetail', () => {
    expect(wireFailureReason('OUTGOING', 'USER_CANCELLATION')).toEqual({ failureReason: 'QUOTE_EXECUTION_FAILED', failureDetail: 'USER_CANCELLATION' });
    expect(wireFailureReason('OUTGOING', 'PLATFORM_REJECTED')).toEqual({ failureReason: 'QUOTE_EXECUTION_FAILED', failureDetail: 'PLATFORM_REJECTED' });
    // A rail adapter's own reason.
    expect(wireFailureReason('OUTGOING', 'BENEFICIARY_BANK_OFFLINE')).toEqual({ failureReason: 'QUOTE_EXECUTION_FAILED', failureDetail: 'BENEFICIARY_BANK_OFFLINE' });
    // An outgoing-only value on an incoming payment is not in REF's incoming enum.
    expect(wireFailureReason('INCOMING', 'PAYOUT_RETURNED')).toEqual({ failureReason: 'QUOTE_EXECUTION_FAILED', failureDetail: 'PAYOUT_RETURNED' });
  });

  it('no recorded reason: nothing is served', () => {
    expect(wireFailureReason('OUTGOING', null)).toEqual({});
  });
});
