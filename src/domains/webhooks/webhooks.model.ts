export const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'FAILED', 'UNDELIVERABLE'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export type AttemptOutcome = 'DELIVERED' | 'FAILED' | 'TIMEOUT' | 'CONNECTION_ERROR';

/** Event types that are never retried (decision §7.3). */
export const NO_RETRY_TYPES = new Set(['TEST']);

export interface Envelope {
  id: string;
  type: string;
  timestamp: string;
  data: unknown;
}

/** Decision A7: a 2xx, or a 409 (receiver already has this id), ends the retries. */
export function isDelivered(httpStatus: number): boolean {
  return (httpStatus >= 200 && httpStatus < 300) || httpStatus === 409;
}

/** Exponential backoff: base, 2×base, 4×base … capped at max (30 s doubling to 30 min by default). */
export function retryDelayMs(attemptsMade: number, baseMs: number, maxMs: number): number {
  const exp = Math.min(attemptsMade - 1, 30);
  return Math.min(baseMs * 2 ** Math.max(exp, 0), maxMs);
}

/** The exact bytes that are signed and sent. */
export function serializeEnvelope(e: Envelope): string {
  return JSON.stringify({ id: e.id, type: e.type, timestamp: e.timestamp, data: e.data });
}
