import { isId, type ResourceType } from '../../platform/ids.js';
import { defineLifecycle, type EventOf } from '../../platform/state-machine.js';

export const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'FAILED', 'UNDELIVERABLE'] as const;

/**
 * A webhook event's delivery (decisions A7, §7.3; issue 11). Each attempt ends in one move; a failed
 * attempt inside the retry window stays PENDING (`retry`). No status is final: the platform may
 * redeliver any event (POST /webhooks/{id}/redeliver).
 */
export const deliveryLifecycle = defineLifecycle({
  name: 'webhook-delivery',
  label: 'The webhook event',
  statuses: DELIVERY_STATUSES,
  transitions: {
    deliver: { from: ['PENDING'], to: 'DELIVERED' },
    retry: { from: ['PENDING'], to: 'PENDING' },
    fail: { from: ['PENDING'], to: 'FAILED' },
    /** No endpoint is configured: kept, not dropped, for a redelivery once one is set. */
    markUndeliverable: { from: ['PENDING'], to: 'UNDELIVERABLE' },
    redeliver: { from: ['PENDING', 'DELIVERED', 'FAILED', 'UNDELIVERABLE'], to: 'PENDING' },
  },
  terminal: [],
});
export type DeliveryEvent = EventOf<typeof deliveryLifecycle>;

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

/**
 * The API's name of an event: `Webhook:<uuid>`. The row keeps the bare uuid (webhook_events.id is a `uuid`,
 * issue 30, 30f); every response, envelope, cursor and job names the event by this.
 */
export function eventLabel(id: string): string {
  return `Webhook:${id}`;
}

/** The row id of the event the API names `Webhook:<uuid>`; null for any other string (no such event). */
export function eventKey(id: string): string | null {
  return isId('Webhook', id) ? id.slice('Webhook:'.length).toLowerCase() : null;
}

/**
 * The resource type an event's type names (the part before the first dot), where that is certain: a payload
 * cut down by retention keeps its resource's id only for the other types (svc_pruned_payload). The same pairs
 * as the database's svc_event_resource_type (migration 20270115010000; test/platform/webhooks.test.ts).
 */
export const EVENT_RESOURCE_TYPES: Readonly<Record<string, ResourceType>> = {
  OUTGOING_PAYMENT: 'Transaction',
  INCOMING_PAYMENT: 'Transaction',
  INTERNAL_ACCOUNT: 'InternalAccount',
  EXTERNAL_ACCOUNT: 'ExternalAccount',
  CUSTOMER: 'Customer',
  CARD: 'Card',
  CARD_TRANSACTION: 'CardTransaction',
};

/**
 * An event's payload as listed and (re)delivered. Retention (src/platform/retention.ts) cuts a payload down to
 * its resource's `status` and `type`, and its `id` where the event's type cannot give it back; otherwise the
 * id is `<type of the event's resource>:<resource_id>`, put back here in front (the order the stored
 * `{id, type, status}` of earlier cuts read in), so nothing is stored twice (issue 30, 30c, 30f).
 */
export function eventPayload(e: { type: string; data: unknown; resourceId: string | null; prunedAt: Date | null }): unknown {
  if (!e.prunedAt || e.resourceId === null || !e.data || typeof e.data !== 'object' || 'id' in e.data) return e.data;
  const type = EVENT_RESOURCE_TYPES[e.type.split('.', 1)[0]!];
  return type ? { id: `${type}:${e.resourceId}`, ...(e.data as object) } : e.data;
}

/** The exact bytes that are signed and sent. */
export function serializeEnvelope(e: Envelope): string {
  return JSON.stringify({ id: e.id, type: e.type, timestamp: e.timestamp, data: e.data });
}
