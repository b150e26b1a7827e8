import type { Ctx } from '../../deps.js';
import { newId } from '../../platform/ids.js';
import type { WebhookEvent } from '../../generated/prisma/client.js';

/** Writes one attempt and the event's resulting delivery state together. */
export async function recordAttempt(
  ctx: Ctx,
  eventId: string,
  url: string,
  r: { outcome: string; httpStatus: number | null; latencyMs: number; error: string | null },
  status: string,
  nextAttemptAt: Date | null = null,
): Promise<WebhookEvent> {
  const now = ctx.clock.now();
  const [, updated] = await ctx.db.$transaction([
    ctx.db.webhookAttempt.create({
      data: { id: newId('WebhookAttempt'), eventId, url, httpStatus: r.httpStatus, latencyMs: r.latencyMs, outcome: r.outcome, error: r.error, attemptedAt: now } as any,
    }),
    ctx.db.webhookEvent.update({
      where: { id: eventId },
      data: {
        attemptCount: { increment: 1 },
        lastAttemptAt: now,
        deliveryStatus: status,
        nextAttemptAt,
        lastError: r.error,
        ...(status === 'DELIVERED' ? { deliveredAt: now } : {}),
      },
    }),
  ]);
  return updated;
}
