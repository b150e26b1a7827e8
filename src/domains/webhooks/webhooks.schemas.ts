import { z } from 'zod';
import { paginationQuery } from '../../platform/http/pagination.js';
import { DELIVERY_STATUSES, eventLabel, eventPayload } from './webhooks.model.js';
import type { EventWithAttempts } from './webhooks.service.js';

export const listEventsQuery = z.object({
  ...paginationQuery,
  type: z.string().max(100).optional(),
  deliveryStatus: z.enum(DELIVERY_STATUSES).optional(),
  /** Only events about this resource (`data.id`, e.g. a transaction id); ours, for the dashboard. */
  resourceId: z.string().min(1).max(200).optional(),
  startDate: z.iso.datetime({ offset: true }).transform((s) => new Date(s)).optional(),
  endDate: z.iso.datetime({ offset: true }).transform((s) => new Date(s)).optional(),
});

export const eventIdParams = z.object({ eventId: z.string().min(1).max(200) });

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function eventResource(e: EventWithAttempts) {
  return {
    id: eventLabel(e.id),
    type: e.type,
    timestamp: e.createdAt.toISOString(),
    data: eventPayload(e),
    deliveryStatus: e.deliveryStatus,
    attemptCount: e.attemptCount,
    lastAttemptAt: iso(e.lastAttemptAt),
    nextAttemptAt: iso(e.nextAttemptAt),
    deliveredAt: iso(e.deliveredAt),
    // Fetched newest first (to keep the latest), shown oldest first.
    attempts: [...e.attempts].reverse().map((a) => ({
      attemptedAt: a.attemptedAt.toISOString(),
      url: a.url,
      httpStatus: a.httpStatus,
      latencyMs: a.latencyMs,
      outcome: a.outcome,
      error: a.error,
    })),
  };
}
