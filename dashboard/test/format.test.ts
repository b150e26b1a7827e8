import { describe, expect, it } from 'vitest';
import { dayKey, decimalsOf, formatBps, formatDateTime, formatMinor, formatMoney, lastDays, localDateToIso, parseMajor, successRate, sumByCurrency, toBigInt } from '../src/format';

describe('money formatting (bigint, never floats)', () => {
  it('places the decimal point by the currency decimals and groups thousands', () => {
    expect(formatMinor(123456, 2, 'en-US')).toBe('1,234.56');
    expect(formatMinor(5, 2, 'en-US')).toBe('0.05');
    expect(formatMinor(0, 2, 'en-US')).toBe('0.00');
    expect(formatMinor(-1050, 2, 'en-US')).toBe('-10.50');
    expect(formatMinor(1234, 0, 'en-US')).toBe('1,234');
    expect(formatMinor(100_000_001, 8, 'en-US')).toBe('1.00000001');
    expect(formatMinor(1_500_000, 6, 'en-US')).toBe('1.500000');
    expect(formatMinor(1234567, 3, 'en-US')).toBe('1,234.567');
  });

  it('is exact beyond 2^53 and for values a float would round', () => {
    expect(formatMinor('123456789012345678901', 2, 'en-US')).toBe('1,234,567,890,123,456,789.01');
    expect(formatMinor(9_007_199_254_740_991, 2, 'en-US')).toBe('90,071,992,547,409.91');
    // 0.1 + 0.2 style errors cannot happen: sums are bigint.
    expect(sumByCurrency([{ amount: 10, currency: 'USD' }, { amount: 20, currency: 'USD' }, { amount: 1, currency: 'EUR' }])).toEqual(new Map([['USD', 30n], ['EUR', 1n]]));
    expect(() => toBigInt(1.5)).toThrow(RangeError);
    expect(() => toBigInt(2 ** 60)).toThrow(RangeError);
  });

  it('uses the viewer locale separators', () => {
    expect(formatMinor(123456, 2, 'de-DE')).toBe('1.234,56');
  });

  it('formats with the currency code and knows crypto decimals', () => {
    expect(formatMoney(2550, { code: 'USD', decimals: 2 }, 'en-US')).toBe('25.50 USD');
    expect(formatMoney(1, 'BTC', 'en-US')).toBe('0.00000001 BTC');
    expect(decimalsOf('JPY')).toBe(0);
    expect(decimalsOf('USDC')).toBe(6);
    expect(decimalsOf('KWD')).toBe(3);
  });
});

describe('parsing amounts typed in major units', () => {
  it('turns major units into exact minor units', () => {
    expect(parseMajor('12.34', 2)).toEqual({ ok: true, minor: 1234n });
    expect(parseMajor('1,234.5', 2)).toEqual({ ok: true, minor: 123450n });
    expect(parseMajor(' 7 ', 2)).toEqual({ ok: true, minor: 700n });
    expect(parseMajor('0.1', 2)).toEqual({ ok: true, minor: 10n });
    expect(parseMajor('100', 0)).toEqual({ ok: true, minor: 100n });
    expect(parseMajor('0.00000001', 8)).toEqual({ ok: true, minor: 1n });
    expect(parseMajor('90071992547409.93', 2)).toEqual({ ok: true, minor: 9007199254740993n });
  });

  it('refuses too many decimals, signs and junk', () => {
    expect(parseMajor('1.234', 2)).toEqual({ ok: false, error: 'At most 2 decimals.' });
    expect(parseMajor('1.5', 0)).toEqual({ ok: false, error: 'This currency has no decimals.' });
    expect(parseMajor('-5', 2).ok).toBe(false);
    expect(parseMajor('1e3', 2).ok).toBe(false);
    expect(parseMajor('', 2).ok).toBe(false);
    expect(parseMajor('1.2.3', 2).ok).toBe(false);
  });
});

describe('rates, bps and times', () => {
  it('success rate with one decimal, and a dash when nothing settled', () => {
    expect(successRate(0, 0)).toBe('—');
    expect(successRate(1, 0)).toBe('100.0%');
    expect(successRate(2, 1)).toBe('66.7%');
    expect(successRate(1, 2)).toBe('33.3%');
  });

  it('basis points as percent', () => {
    expect(formatBps(30)).toBe('0.30%');
    expect(formatBps(10_000)).toBe('100.00%');
    expect(formatBps(5)).toBe('0.05%');
  });

  it('shows times in the given zone with its name', () => {
    const iso = '2026-03-01T23:30:00.000Z';
    expect(formatDateTime(iso, { timeZone: 'UTC', locale: 'en-US' })).toMatch(/Mar 1, 2026.*11:30:00\sPM.*UTC/);
    expect(formatDateTime(iso, { timeZone: 'Asia/Tokyo', locale: 'en-US' })).toMatch(/Mar 2, 2026.*8:30:00\sAM.*GMT\+9/);
    expect(formatDateTime(null)).toBe('—');
    expect(dayKey(new Date(iso), 'UTC')).toBe('2026-03-01');
    expect(dayKey(new Date(iso), 'Asia/Tokyo')).toBe('2026-03-02');
  });

  it('lists the last days oldest first, ending today, and turns date inputs into local instants', () => {
    const now = new Date(2026, 2, 3, 15, 0, 0);
    expect(lastDays(now, 3)).toEqual([dayKey(new Date(2026, 2, 1)), dayKey(new Date(2026, 2, 2)), dayKey(new Date(2026, 2, 3))]);
    expect(localDateToIso('2026-03-03')).toBe(new Date(2026, 2, 3).toISOString());
    expect(localDateToIso('2026-03-03', true)).toBe(new Date(2026, 2, 4, 0, 0, 0, -1).toISOString());
    expect(localDateToIso('03/03/2026')).toBeUndefined();
  });
});
