import type { Ctx } from '../../deps.js';
import { BadRequestError } from '../../platform/errors.js';
import { newUuid, resourceKey } from '../../platform/ids.js';
import { encodeKeyset } from '../../platform/http/keyset.js';
import type { Page } from '../../platform/http/pagination.js';
import { afterKeyset, decodeKeyset, keysetOrder, toKeysetPage } from '../../platform/http/keyset.js';
import type { WebhookAttempt, WebhookEvent } from '../../generated/prisma/client.js';
import { deliveryOptions, postEnvelope } from './webhooks.delivery.js';
import { eventKey, eventLabel, eventPayload } from './webhooks.model.js';
import { enqueueDelivery } from './webhooks.jobs.js';
import { deliveryStatus, eventNotFound, recordAttempt } from './webhooks.repo.js';
import { transition } from '../../platform/state-machine.js';

export type EventWithAttempts = WebhookEvent & { attempts: WebhookAttempt[] };

export interface ListEventsQuery {
  limit: number;
  cursor?: string;
  type?: string;
  deliveryStatus?: string;
  resourceId?: string;
  startDate?: Date;
  endDate?: Date;
}

/** Attempts shown per event; the full history stays in the database. */
export const ATTEMPTS_SHOWN = 50;
const attemptsInclude = { attempts: { orderBy: { attemptedAt: 'desc' as const }, take: ATTEMPTS_SHOWN } };

/**
 * Newest first, by id; with a time window by (createdAt, id). Each filter has an index
 * `(platform_id, filter, id)` that also gives the order (issue 30): `resourceId` is the events' own
 * `resource_id` column (the key of the payload's `id`, computed by Postgres at insert), not a path into the
 * JSON. A key is one resource's (its uuid): the events found are shown only if they name that very id (a
 * transaction's uuid asked for as a customer's finds nothing). Cursors name events as the API does.
 */
export async function listEvents(ctx: Ctx, q: ListEventsQuery): Promise<Page<EventWithAttempts>> {
  const byTime = Boolean(q.startDate || q.endDate);
  const before = decodeKeyset(q.cursor);
  if (before) before.id = eventKey(before.id) ?? badCursor();
  if (before && byTime && !before.at) {
    const row = await ctx.db.webhookEvent.findFirst({ where: { id: before.id }, select: { createdAt: true } });
    if (row) before.at = row.createdAt;
  }
  const rows = await ctx.db.webhookEvent.findMany({
    where: {
      ...(q.type ? { type: q.type } : {}),
      ...(q.deliveryStatus ? { deliveryStatus: q.deliveryStatus } : {}),
      ...(q.resourceId ? { resourceId: resourceKey(q.resourceId) } : {}),
      ...(byTime ? { createdAt: { ...(q.startDate ? { gte: q.startDate } : {}), ...(q.endDate ? { lte: q.endDate } : {}) } } : {}),
      ...afterKeyset(before, 'desc', byTime),
    },
    orderBy: keysetOrder('desc', byTime),
    take: q.limit + 1,
    include: attemptsInclude,
  });
  if (q.resourceId && rows.length > 0 && (eventPayload(rows[0]!) as { id?: unknown } | null)?.id !== q.resourceId) return { data: [], hasMore: false };
  const page = toKeysetPage(rows, q.limit, byTime, (r) => r);
  if (page.nextCursor) {
    const last = page.data[page.data.length - 1]!;
    page.nextCursor = encodeKeyset({ id: eventLabel(last.id), createdAt: last.createdAt }, byTime);
  }
  return page;
}

function badCursor(): never {
  throw new BadRequestError('INVALID_INPUT', 'cursor is not valid.', { errors: [{ field: 'cursor', message: 'Not a cursor returned by this API.' }] });
}

/** Errors: 404 WEBHOOK_EVENT_NOT_FOUND (also for another platform's event). */
export async function getEvent(ctx: Ctx, id: string): Promise<EventWithAttempts> {
  const key = eventKey(id);
  if (!key) throw eventNotFound();
  const row = await ctx.db.webhookEvent.findFirst({ where: { id: key }, include: attemptsInclude });
  if (!row) throw eventNotFound();
  return row;
}

/** Queues the same event (same `id`) for delivery again, with a fresh retry window. */
export async function redeliverEvent(ctx: Ctx, id: string): Promise<EventWithAttempts> {
  const key = eventKey(id);
  if (!key) throw eventNotFound();
  const now = ctx.clock.now();
  // Recorded first (PENDING, due now, a fresh window): if the enqueue below is lost, the sweeper queues it.
  const event = await transition(ctx.db, ctx, deliveryStatus, 'redeliver', key, { set: { nextAttemptAt: now, retryWindowStartedAt: now, lastError: null, relayedAt: now } });
  await enqueueDelivery(ctx, [{ id: event.id, platformId: ctx.platformId, attemptCount: event.attemptCount, due: now }]);
  return getEvent(ctx, id);
}

export interface TestDeliveryResult {
  url: string;
  response_status: number;
  response_body: string;
}

/**
 * POST /sandbox/webhooks/test: delivers a TEST event now and reports what the endpoint answered.
 * Errors: 400 WEBHOOK_ENDPOINT_NOT_SET, 400 WEBHOOK_DELIVERY_ERROR. TEST events are never retried.
 */
export async function sendTestEvent(ctx: Ctx): Promise<TestDeliveryResult> {
  const platform = await ctx.db.platform.findFirstOrThrow({});
  const url = platform.webhookEndpoint;
  if (!url) throw new BadRequestError('WEBHOOK_ENDPOINT_NOT_SET', 'No webhook endpoint is configured; set webhookEndpoint with PATCH /config.');
  const now = ctx.clock.now();
  const event = await ctx.db.webhookEvent.create({
    data: { id: newUuid(), type: 'TEST', data: {}, createdAt: now, relayedAt: now } as any,
  });
  const result = await postEnvelope(url, { id: eventLabel(event.id), type: 'TEST', timestamp: now.toISOString(), data: {} }, ctx.signer, deliveryOptions(ctx.config));
  await recordAttempt(ctx, event.id, url, result, result.outcome === 'DELIVERED' ? 'DELIVERED' : 'FAILED');
  const body = { url, response_status: result.httpStatus ?? 0, response_body: result.responseBody ?? '' };
  if (result.outcome !== 'DELIVERED') {
    throw new BadRequestError('WEBHOOK_DELIVERY_ERROR', `Delivery to the webhook endpoint failed: ${result.error}.`, body);
  }
  return body;
}

/**
 * One delivery, now, of an event written already relayed (REF's in-flow INCOMING_PAYMENT.PENDING, issue 25: the
 * platform's answer is a decision, so it is sent once and never retried — decisions §7.3). The attempt is
 * recorded (DELIVERED on 2xx, else FAILED). Answers the HTTP status (null: no answer) and the body as JSON.
 */
export async function deliverInFlow(ctx: Ctx, eventId: string, timeoutMs: number): Promise<{ httpStatus: number | null; body: unknown }> {
  const [platform, event] = await Promise.all([ctx.db.platform.findFirstOrThrow({}), ctx.db.webhookEvent.findFirstOrThrow({ where: { id: eventId } })]);
  const url = platform.webhookEndpoint;
  if (!url) return { httpStatus: null, body: null };
  const envelope = { id: eventLabel(event.id), type: event.type, timestamp: event.createdAt.toISOString(), data: event.data };
  const result = await postEnvelope(url, envelope, ctx.signer, { ...deliveryOptions(ctx.config), timeoutMs });
  // A refusal (403) or a request for more information (422) is an answer, not a failed delivery.
  const answered = result.outcome === 'DELIVERED' || result.httpStatus === 403 || result.httpStatus === 422;
  try {
    await recordAttempt(ctx, event.id, url, answered ? { ...result, outcome: 'DELIVERED', error: null } : result, answered ? 'DELIVERED' : 'FAILED');
  } catch (err) {
    // The delivery sweep sent it meanwhile (this call outlasted JOB_SWEEP_GRACE_MS) and recorded DELIVERED: the answer stands.
    if ((err as { code?: unknown } | null)?.code !== 'INVALID_STATE_TRANSITION') throw err;
  }
  let body: unknown = null;
  try {
    body = result.responseBody ? JSON.parse(result.responseBody) : null;
  } catch {
    body = null;
  }
  return { httpStatus: result.httpStatus, body };
}
