/**
 * Formatting and parsing of money and time for the dashboard. Amounts are integers in minor units
 * (the API's form); arithmetic is done on bigint only, never on floats.
 */

export interface Currency {
  code: string;
  name?: string;
  symbol?: string;
  decimals: number;
}

/** Crypto assets the server knows (not in ISO 4217); other codes take the browser's ISO data. */
const CRYPTO_DECIMALS: Record<string, number> = { USDC: 6, USDT: 6, BTC: 8, USDB: 6 };

export function decimalsOf(code: string): number {
  if (code in CRYPTO_DECIMALS) return CRYPTO_DECIMALS[code]!;
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

export function toBigInt(amount: number | bigint | string): bigint {
  if (typeof amount === 'bigint') return amount;
  if (typeof amount === 'number') {
    if (!Number.isSafeInteger(amount)) throw new RangeError(`not an exact integer amount: ${amount}`);
    return BigInt(amount);
  }
  if (!/^-?\d+$/.test(amount)) throw new RangeError(`not an integer amount: ${amount}`);
  return BigInt(amount);
}

function separators(locale?: string): { group: string; decimal: string } {
  const parts = new Intl.NumberFormat(locale, { useGrouping: true }).formatToParts(1234567.5);
  return { group: parts.find((p) => p.type === 'group')?.value ?? ',', decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.' };
}

/** `123456` with 2 decimals → `1,234.56` (the viewer's separators); exact for any size. */
export function formatMinor(amount: number | bigint | string, decimals: number, locale?: string): string {
  const v = toBigInt(amount);
  const negative = v < 0n;
  const abs = negative ? -v : v;
  const scale = 10n ** BigInt(decimals);
  const whole = abs / scale;
  const frac = abs % scale;
  const { group, decimal } = separators(locale);
  const wholeStr = whole.toString().replace(/\B(?=(\d{3})+(?!\d))/g, group);
  const fracStr = decimals > 0 ? decimal + frac.toString().padStart(decimals, '0') : '';
  return `${negative ? '-' : ''}${wholeStr}${fracStr}`;
}

/** `1,234.56 USD`. */
export function formatMoney(amount: number | bigint | string, currency: Currency | string, locale?: string): string {
  const c = typeof currency === 'string' ? { code: currency, decimals: decimalsOf(currency) } : currency;
  return `${formatMinor(amount, c.decimals, locale)} ${c.code}`;
}

export type ParseResult = { ok: true; minor: bigint } | { ok: false; error: string };

/**
 * A major-unit amount typed by a person (`12.5`, `1,000.25`, `1 000`) → minor units. Refuses more
 * fraction digits than the currency has, negative numbers and anything not a plain decimal.
 */
export function parseMajor(input: string, decimals: number): ParseResult {
  const s = input.trim().replace(/[\s,_]/g, '');
  if (s === '') return { ok: false, error: 'Enter an amount.' };
  const m = /^(\d+)(?:\.(\d*))?$/.exec(s);
  if (!m) return { ok: false, error: 'Use digits and at most one decimal point.' };
  const frac = m[2] ?? '';
  if (frac.length > decimals) return { ok: false, error: decimals === 0 ? 'This currency has no decimals.' : `At most ${decimals} decimal${decimals === 1 ? '' : 's'}.` };
  const minor = BigInt(m[1]!) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
  return { ok: true, minor };
}

/** Sums amounts per currency code, exactly. */
export function sumByCurrency(items: Array<{ amount: number | bigint | string; currency: string }>): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const i of items) out.set(i.currency, (out.get(i.currency) ?? 0n) + toBigInt(i.amount));
  return out;
}

/** `completed / (completed + failed)` as a percentage with one decimal, or `—` when nothing settled. */
export function successRate(completed: number, failed: number): string {
  const total = completed + failed;
  if (total === 0) return '—';
  const permille = Math.round((completed * 1000) / total);
  return `${Math.floor(permille / 10)}.${permille % 10}%`;
}

export function formatBps(bps: number): string {
  return `${Math.floor(bps / 100)}.${String(bps % 100).padStart(2, '0')}%`;
}

/** A timestamp in the viewer's time zone (or `timeZone`), with the zone's name. */
export function formatDateTime(iso: string | null | undefined, opts: { timeZone?: string; locale?: string } = {}): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  return new Intl.DateTimeFormat(opts.locale, { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', second: '2-digit', timeZone: opts.timeZone, timeZoneName: 'short' }).format(d);
}

export function viewerTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** `YYYY-MM-DD` of the instant in the viewer's zone (or `timeZone`). */
export function dayKey(d: Date, timeZone?: string): string {
  return new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit', timeZone }).format(d);
}

/** Midnight of the viewer's local day containing `now`, `daysBack` days earlier. */
export function startOfLocalDay(now: Date, daysBack = 0): Date {
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() - daysBack, 0, 0, 0, 0);
}

/** The last `n` local day keys, oldest first, ending with today's. */
export function lastDays(now: Date, n: number): string[] {
  const out: string[] = [];
  for (let i = n - 1; i >= 0; i--) out.push(dayKey(startOfLocalDay(now, i)));
  return out;
}

/** A `YYYY-MM-DD` from a date input, as the ISO instant of that local midnight (or the next one for an end date). */
export function localDateToIso(date: string, endOfDay = false): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return undefined;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + (endOfDay ? 1 : 0), 0, 0, 0, endOfDay ? -1 : 0);
  return d.toISOString();
}

export function shortId(id: string): string {
  const i = id.indexOf(':');
  const rest = i >= 0 ? id.slice(i + 1) : id;
  return rest.length > 13 ? `…${rest.slice(-12)}` : rest;
}
