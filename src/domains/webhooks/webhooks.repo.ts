import type { Ctx } from '../../deps.js';
import { NotFoundError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { statusColumn, transition, type SetColumns } from '../../platform/state-machine.js';
import { Prisma, type WebhookEvent } from '../../generated/prisma/client.js';
import { deliveryLifecycle, type DeliveryEvent } from './webhooks.model.js';

export const eventNotFound = () => new NotFoundError('WEBHOOK_EVENT_NOT_FOUND', 'Webhook event not found.');

export const deliveryStatus = statusColumn(deliveryLifecycle, 'webhook_events', 'delivery_status', { notFound: eventNotFound });

const EVENT_FOR_OUTCOME = { DELIVERED: 'deliver', FAILED: 'fail', PENDING: 'retry' } as const satisfies Record<string, DeliveryEvent>;

/** Writes one attempt and the event's resulting delivery status (a move of the delivery lifecycle) together. */
export async function recordAttempt(
  ctx: Ctx,
  eventId: string,
  url: string,
  r: { outcome: string; httpStatus: number | null; latencyMs: number; error: string | null },
  status: keyof typeof EVENT_FOR_OUTCOME,
  nextAttemptAt: Date | null = null,
): Promise<WebhookEvent> {
  const now = ctx.clock.now();
  const set: SetColumns<WebhookEvent> = {
    attemptCount: Prisma.sql`"attempt_count" + 1`,
    lastAttemptAt: now,
    nextAttemptAt,
    lastError: r.error,
    ...(status === 'DELIVERED' ? { deliveredAt: now } : {}),
  };
  return ctx.db.$transaction(async (tx) => {
    await tx.webhookAttempt.create({
      data: { id: newId('WebhookAttempt'), eventId, url, httpStatus: r.httpStatus, latencyMs: r.latencyMs, outcome: r.outcome, error: r.error, attemptedAt: now } as any,
    });
    return transition(tx, ctx, deliveryStatus, EVENT_FOR_OUTCOME[status], eventId, { set });
  });
}
