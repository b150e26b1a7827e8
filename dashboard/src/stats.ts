import { dayKey, toBigInt } from './format';
import type { Transaction } from './types';

/** Figures of the overview, computed exactly (bigint) from the transactions the API listed. */
export interface Overview {
  todayByStatus: Record<string, number>;
  completedToday: number;
  failedToday: number;
  /** Platform fee revenue of completed payments, per sending currency (minor units). */
  feeRevenueToday: Map<string, bigint>;
  feeRevenuePeriod: Map<string, bigint>;
  /** Completed outgoing volume per local day and currency (minor units). */
  volume: Map<string, Map<string, bigint>>;
  currencies: string[];
}

export function computeOverview(txs: Transaction[], days: string[], now: Date): Overview {
  const today = dayKey(now);
  const todayByStatus: Record<string, number> = {};
  const feeRevenueToday = new Map<string, bigint>();
  const feeRevenuePeriod = new Map<string, bigint>();
  const volume = new Map<string, Map<string, bigint>>(days.map((d) => [d, new Map()]));
  const count = new Map<string, number>();
  let completedToday = 0;
  let failedToday = 0;
  for (const t of txs) {
    const day = dayKey(new Date(t.createdAt));
    const cur = t.sentAmount.currency.code;
    if (day === today) {
      todayByStatus[t.status] = (todayByStatus[t.status] ?? 0) + 1;
      if (t.status === 'COMPLETED') completedToday++;
      if (t.status === 'FAILED') failedToday++;
    }
    if (t.status !== 'COMPLETED') continue;
    const fee = toBigInt(t.platformFees ?? 0);
    if (t.type !== 'INCOMING') {
      feeRevenuePeriod.set(cur, (feeRevenuePeriod.get(cur) ?? 0n) + fee);
      if (day === today) feeRevenueToday.set(cur, (feeRevenueToday.get(cur) ?? 0n) + fee);
    }
    const perDay = volume.get(day);
    if (perDay) {
      perDay.set(cur, (perDay.get(cur) ?? 0n) + toBigInt(t.sentAmount.amount));
      count.set(cur, (count.get(cur) ?? 0) + 1);
    }
  }
  const currencies = [...count.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([c]) => c);
  return { todayByStatus, completedToday, failedToday, feeRevenueToday, feeRevenuePeriod, volume, currencies };
}

/** Bar heights in whole percent of the largest value (exact integer division). */
export function barHeights(values: bigint[]): number[] {
  const max = values.reduce((m, v) => (v > m ? v : m), 0n);
  if (max === 0n) return values.map(() => 0);
  return values.map((v) => Number((v * 100n) / max));
}
