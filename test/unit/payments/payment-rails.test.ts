import { describe, expect, it } from 'vitest';
import { REF_PAYMENT_RAILS, wireDestination, wirePaymentRail } from '../../../src/domains/payments/payment-rails.js';

describe('paymentRail on the wire (REF PaymentRail)', () => {
  it('REF\'s rails are served; Lightning and chains are left out', () => {
    for (const r of REF_PAYMENT_RAILS) expect(wirePaymentRail(r)).toBe(r);
    for (const r of ['LIGHTNING', 'BASE', 'SOLANA', 'TRON', 'SPARK', 'POLYGON', 'ETHEREUM']) expect(wirePaymentRail(r)).toBeUndefined();
    expect(wirePaymentRail(null)).toBeUndefined();
  });

  it('a destination keeps REF\'s rail and loses any other, nothing else changes', () => {
    expect(wireDestination({ destinationType: 'ACCOUNT', accountId: 'ExternalAccount:1', paymentRail: 'ACH' })).toEqual({ destinationType: 'ACCOUNT', accountId: 'ExternalAccount:1', paymentRail: 'ACH' });
    expect(wireDestination({ destinationType: 'ACCOUNT', accountId: 'ExternalAccount:2', currency: 'USDC', paymentRail: 'BASE' })).toEqual({ destinationType: 'ACCOUNT', accountId: 'ExternalAccount:2', currency: 'USDC' });
    expect(wireDestination({ destinationType: 'UMA_ADDRESS', umaAddress: '$a@b.c' })).toEqual({ destinationType: 'UMA_ADDRESS', umaAddress: '$a@b.c' });
    expect(wireDestination(null)).toBeNull();
  });
});
