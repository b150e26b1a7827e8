import { DomainError } from '../../platform/errors.js';

/** One execution's share of a corridor's daily volume: minor units of the sending currency. */
export interface VolumeClaim {
  sendingCurrency: string;
  receivingCurrency: string;
  amount: bigint;
}

/** The UTC calendar day an execution counts on (REF: "daily"), as the DATE column holds it. */
export const utcDay = (now: Date): string => now.toISOString().slice(0, 10);

/** Whole seconds until the next UTC midnight, when the day's volume starts again (Retry-After). */
export function secondsUntilNextUtcDay(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

/** REF Error429 DAILY_VOLUME_LIMIT_EXCEEDED: "would exceed the configured daily volume limit for this trade corridor or withdrawal currency". */
export class DailyVolumeLimitExceededError extends DomainError {
  constructor(claim: VolumeClaim, limit: bigint, used: bigint, now: Date) {
    const retryAfterSeconds = secondsUntilNextUtcDay(now);
    super(
      429,
      'DAILY_VOLUME_LIMIT_EXCEEDED',
      `The amount would exceed the daily volume limit of ${limit} ${claim.sendingCurrency} for ${claim.sendingCurrency} to ${claim.receivingCurrency}.`,
      {
        sendingCurrency: claim.sendingCurrency,
        receivingCurrency: claim.receivingCurrency,
        limit: Number(limit),
        used: Number(used),
        remaining: Number(limit > used ? limit - used : 0n),
        requested: Number(claim.amount),
        retryAfterSeconds,
      },
      { 'retry-after': String(retryAfterSeconds) },
    );
  }
}
