import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { DomainError } from '../../../src/platform/errors.js';
import {
  applicableFees, defaultPaymentRail, DEFAULT_SERVICE_FEE_SCHEDULE, serviceFeeSchedule, validatePlatformFeeOverride,
  type ActiveFeeConfig, type ServiceFeeSchedule,
} from '../../../src/domains/fees/fee-rules.js';

const BASE_ENV = { DATABASE_URL: 'postgresql://x', REDIS_URL: 'redis://x' };
const NO_SERVICE: ServiceFeeSchedule = { crossCurrencyBps: 0, crossCurrencyFixed: {}, railFixed: {}, railBps: {} };

const cross = (over: Partial<ActiveFeeConfig> = {}): ActiveFeeConfig => ({
  feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', rail: null, direction: null, originator: null,
  variableFeeBps: 30, fixedFeeAmount: 50n, fixedFeeCurrency: 'USD', ...over,
});
const railFee = (over: Partial<ActiveFeeConfig> = {}): ActiveFeeConfig => ({
  feeType: 'RAIL', sourceCurrency: null, rail: 'ACH', direction: 'OUT', originator: 'SVC',
  variableFeeBps: 10, fixedFeeAmount: 25n, fixedFeeCurrency: 'USD', ...over,
});

const fees = (configs: ActiveFeeConfig[], sending: string, receiving: string, rail: string | null, service = NO_SERVICE) =>
  applicableFees({ configs, sendingCurrency: sending, receivingCurrency: receiving, rail, service });

function failure(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError');
}

describe('which platform fees apply', () => {
  it('a cross-currency fee applies only when the currencies differ and its source is the sending currency', () => {
    expect(fees([cross()], 'USD', 'EUR', 'SEPA')).toMatchObject({ platformFee: { fixed: 50n, bps: 30 }, platformFeeTypes: ['CROSS_CURRENCY_TRANSACTION'] });
    expect(fees([cross()], 'USD', 'USD', 'ACH')).toMatchObject({ platformFee: { fixed: 0n, bps: 0 }, platformFeeTypes: [] });
    expect(fees([cross({ sourceCurrency: 'EUR' })], 'USD', 'MXN', 'SPEI').platformFeeTypes).toEqual([]);
  });

  it('a rail fee applies only on its rail, direction OUT and originator SVC, whatever the currencies', () => {
    expect(fees([railFee()], 'USD', 'USD', 'ACH')).toMatchObject({ platformFee: { fixed: 25n, bps: 10 }, platformFeeTypes: ['RAIL'] });
    expect(fees([railFee()], 'USD', 'USD', 'WIRE').platformFeeTypes).toEqual([]);
    expect(fees([railFee()], 'USD', 'USD', null).platformFeeTypes).toEqual([]);
    expect(fees([railFee({ direction: 'IN' })], 'USD', 'USD', 'ACH').platformFeeTypes).toEqual([]);
    expect(fees([railFee({ originator: 'BANK' })], 'USD', 'USD', 'ACH').platformFeeTypes).toEqual([]);
  });

  it('when both apply the platform receives the sum of fixed fees and of rates', () => {
    const r = fees([cross(), railFee({ rail: 'WIRE', variableFeeBps: 5, fixedFeeAmount: 1000n })], 'USD', 'EUR', 'WIRE');
    expect(r.platformFee).toEqual({ fixed: 1050n, bps: 35 });
    expect(r.platformFeeTypes).toEqual(['CROSS_CURRENCY_TRANSACTION', 'RAIL']);
  });

  it('an override replaces every platform fee that would otherwise apply', () => {
    const r = applicableFees({
      configs: [cross(), railFee()],
      override: { platformFixedFee: { amount: 7, currency: 'USD' }, platformVariableFeeBps: 0 },
      sendingCurrency: 'USD', receivingCurrency: 'EUR', rail: 'ACH', service: NO_SERVICE,
    });
    expect(r).toEqual({ platformFee: { fixed: 7n, bps: 0 }, serviceFee: { fixed: 0n, bps: 0 }, platformFeeTypes: ['OVERRIDE'] });
  });
});

describe('platform fees that cannot be charged are 501 NOT_IMPLEMENTED', () => {
  it('a cross-currency fee on a non-USD sending currency', () => {
    const e = failure(() => fees([cross({ sourceCurrency: 'EUR', fixedFeeCurrency: 'EUR' })], 'EUR', 'USD', 'ACH'));
    expect(e).toMatchObject({ status: 501, code: 'NOT_IMPLEMENTED' });
    expect(e.message).toContain('CROSS_CURRENCY_TRANSACTION');
    expect(e.details).toMatchObject({ feeConfig: { feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'EUR' } });
  });

  it('a rail fee on a payment sent in another currency than USD', () => {
    const e = failure(() => fees([railFee()], 'EUR', 'USD', 'ACH'));
    expect(e).toMatchObject({ status: 501, code: 'NOT_IMPLEMENTED' });
    expect(e.message).toContain('RAIL fee (ACH, OUT, SVC)');
  });

  it('a fixed fee in another currency than USD', () => {
    expect(failure(() => fees([railFee({ fixedFeeCurrency: 'EUR' })], 'USD', 'USD', 'ACH'))).toMatchObject({ status: 501 });
  });

  it('configs that do not apply never fail the payment', () => {
    expect(fees([railFee()], 'EUR', 'GBP', 'FASTER_PAYMENTS').platformFee).toEqual({ fixed: 0n, bps: 0 });
    expect(fees([cross()], 'EUR', 'USD', 'ACH', NO_SERVICE).platformFeeTypes).toEqual([]);
  });
});

describe('the service fee', () => {
  const service = DEFAULT_SERVICE_FEE_SCHEDULE;

  it('defaults: 50 bps across currencies, fixed rail fees on the US rails when sending USD', () => {
    expect(fees([], 'USD', 'EUR', 'SEPA', service).serviceFee).toEqual({ fixed: 0n, bps: 50 });
    expect(fees([], 'USD', 'USD', 'ACH', service).serviceFee).toEqual({ fixed: 25n, bps: 0 });
    expect(fees([], 'USD', 'USD', 'RTP', service).serviceFee).toEqual({ fixed: 50n, bps: 0 });
    expect(fees([], 'USD', 'USD', 'FEDNOW', service).serviceFee).toEqual({ fixed: 50n, bps: 0 });
    expect(fees([], 'USD', 'USD', 'WIRE', service).serviceFee).toEqual({ fixed: 1500n, bps: 0 });
    expect(fees([], 'USD', 'MXN', 'SPEI', service).serviceFee).toEqual({ fixed: 0n, bps: 50 });
    expect(fees([], 'EUR', 'EUR', 'SEPA', service).serviceFee).toEqual({ fixed: 0n, bps: 0 });
  });

  it('a USD-denominated rail fee is not charged in another sending currency unless configured for it', () => {
    expect(fees([], 'EUR', 'USD', 'ACH', service).serviceFee).toEqual({ fixed: 0n, bps: 50 });
    const custom = serviceFeeSchedule(loadConfig({ ...BASE_ENV, SERVICE_FEE_SCHEDULE: JSON.stringify({ railFixed: { ACH: 30, 'ACH:EUR': 20 }, railBps: { ACH: 5 }, crossCurrencyFixed: { EUR: 100 } }) }));
    expect(fees([], 'EUR', 'USD', 'ACH', custom).serviceFee).toEqual({ fixed: 120n, bps: 55 });
    expect(fees([], 'USD', 'USD', 'ACH', custom).serviceFee).toEqual({ fixed: 30n, bps: 5 });
  });

  it('SERVICE_FEE_SCHEDULE replaces defaults field by field', () => {
    expect(serviceFeeSchedule(loadConfig(BASE_ENV))).toEqual(DEFAULT_SERVICE_FEE_SCHEDULE);
    const s = serviceFeeSchedule(loadConfig({ ...BASE_ENV, SERVICE_FEE_SCHEDULE: '{"crossCurrencyBps":20}' }));
    expect(s).toEqual({ ...DEFAULT_SERVICE_FEE_SCHEDULE, crossCurrencyBps: 20 });
    expect(serviceFeeSchedule(loadConfig({ ...BASE_ENV, SERVICE_FEE_SCHEDULE: '{"railFixed":{}}' })).railFixed).toEqual({});
  });

  it('an invalid SERVICE_FEE_SCHEDULE stops start-up with a message naming it', () => {
    expect(() => loadConfig({ ...BASE_ENV, SERVICE_FEE_SCHEDULE: '{not json' })).toThrow(/SERVICE_FEE_SCHEDULE: must be a JSON object/);
    expect(() => loadConfig({ ...BASE_ENV, SERVICE_FEE_SCHEDULE: '{"crossCurrencyBps":-1}' })).toThrow(/SERVICE_FEE_SCHEDULE\.crossCurrencyBps/);
    expect(() => loadConfig({ ...BASE_ENV, SERVICE_FEE_SCHEDULE: '{"railFixed":{"ACH":1.5}}' })).toThrow(/SERVICE_FEE_SCHEDULE\.railFixed\.ACH/);
    expect(() => loadConfig({ ...BASE_ENV, SERVICE_FEE_SCHEDULE: '{"crossCurrencyFixed":{"XYZ":1}}' })).toThrow(/SERVICE_FEE_SCHEDULE\.crossCurrencyFixed/);
    expect(() => loadConfig({ ...BASE_ENV, SERVICE_FEE_SCHEDULE: '{"railFixed":{"ACH:XYZ":1}}' })).toThrow(/SERVICE_FEE_SCHEDULE\.railFixed/);
    expect(() => loadConfig({ ...BASE_ENV, SERVICE_FEE_SCHEDULE: '{"railfixed":{}}' })).toThrow(/SERVICE_FEE_SCHEDULE/);
  });

  it('FX settings are validated at start: unknown provider ids and out-of-range values stop it', () => {
    expect(() => loadConfig({ ...BASE_ENV, FX_PROVIDER: 'acme' })).toThrow(/FX_PROVIDER/);
    expect(() => loadConfig({ ...BASE_ENV, FX_SPREAD_BPS: '5000' })).toThrow(/FX_SPREAD_BPS/);
    expect(() => loadConfig({ ...BASE_ENV, FX_CACHE_TTL_SECONDS: '0' })).toThrow(/FX_CACHE_TTL_SECONDS/);
    expect(loadConfig(BASE_ENV)).toMatchObject({ FX_PROVIDER: 'sandbox', FX_SPREAD_BPS: 50, FX_CACHE_TTL_SECONDS: 300 });
  });
});

describe('default payment rail per destination currency', () => {
  it('names the domestic rail, the chain for crypto, SWIFT otherwise', () => {
    expect(['USD', 'EUR', 'GBP', 'MXN', 'BRL', 'INR', 'KES', 'NGN', 'USDC', 'USDT', 'BTC', 'JPY'].map(defaultPaymentRail)).toEqual([
      'ACH', 'SEPA', 'FASTER_PAYMENTS', 'SPEI', 'PIX', 'UPI', 'MOBILE_MONEY', 'BANK_TRANSFER', 'BASE', 'TRON', 'LIGHTNING', 'SWIFT',
    ]);
  });
});

describe('platformFeeOverride validation', () => {
  const valid = { platformFixedFee: { amount: 100, currency: 'USD' }, platformVariableFeeBps: 25 };
  const fieldsOf = (o: unknown, sending = 'USD') => {
    const e = failure(() => validatePlatformFeeOverride(o, sending));
    expect(e).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    return (e.details as any).errors.map((x: any) => x.field);
  };

  it('accepts both components, 0 waiving one', () => {
    expect(validatePlatformFeeOverride(valid, 'USD')).toEqual(valid);
    expect(validatePlatformFeeOverride({ platformFixedFee: { amount: 0, currency: 'USD' }, platformVariableFeeBps: 10_000 }, 'USD').platformVariableFeeBps).toBe(10_000);
  });

  it('requires both fields', () => {
    expect(fieldsOf({ platformVariableFeeBps: 1 })).toEqual(['platformFeeOverride.platformFixedFee']);
    expect(fieldsOf({ platformFixedFee: valid.platformFixedFee })).toEqual(['platformFeeOverride.platformVariableFeeBps']);
    expect(fieldsOf({ platformFixedFee: { currency: 'USD' }, platformVariableFeeBps: 1 })).toEqual(['platformFeeOverride.platformFixedFee.amount']);
    expect(fieldsOf('free')).toEqual(['platformFeeOverride']);
  });

  it('refuses negative values and more than 10000 bps', () => {
    expect(fieldsOf({ ...valid, platformFixedFee: { amount: -1, currency: 'USD' } })).toEqual(['platformFeeOverride.platformFixedFee.amount']);
    expect(fieldsOf({ ...valid, platformVariableFeeBps: -1 })).toEqual(['platformFeeOverride.platformVariableFeeBps']);
    expect(fieldsOf({ ...valid, platformVariableFeeBps: 10_001 })).toEqual(['platformFeeOverride.platformVariableFeeBps']);
    expect(fieldsOf({ ...valid, platformVariableFeeBps: 1.5 })).toEqual(['platformFeeOverride.platformVariableFeeBps']);
  });

  it('requires the fixed fee in the sending currency', () => {
    expect(fieldsOf({ ...valid, platformFixedFee: { amount: 1, currency: 'EUR' } })).toEqual(['platformFeeOverride.platformFixedFee.currency']);
  });

  it('is refused when the sending currency is not USD', () => {
    expect(fieldsOf({ ...valid, platformFixedFee: { amount: 1, currency: 'EUR' } }, 'EUR')).toEqual(['platformFeeOverride']);
    expect(fieldsOf(valid, 'EUR')).toEqual(['platformFeeOverride']);
  });
});
