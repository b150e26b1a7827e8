import { newId } from './ids.js';
import type { TenantTx } from './db.js';
import type { Prisma } from '../generated/prisma/client.js';

/**
 * Records a webhook event in the same database transaction as the state change that caused it
 * (transactional outbox). If the transaction rolls back, the event never existed; once it commits,
 * the relay (webhooks.jobs.ts) is guaranteed to pick it up.
 */
export async function recordEvent(tx: TenantTx, type: string, data: unknown): Promise<string> {
  const id = newId('Webhook');
  await tx.webhookEvent.create({
    data: { id, type, data: toJson(data) } as Prisma.WebhookEventUncheckedCreateInput,
  });
  return id;
}

/** One event for the outbox: its spec type (e.g. `CARD.STATE_CHANGE`) and its payload. */
export interface OutboxEvent {
  type: string;
  data: unknown;
}

/** recordEvent for several events at once: one statement (the status moves of src/platform/state-machine.ts use it). */
export async function recordEvents(tx: TenantTx, events: readonly OutboxEvent[]): Promise<string[]> {
  const rows = events.map((e) => ({ id: newId('Webhook'), type: e.type, data: toJson(e.data) }));
  if (rows.length) await tx.webhookEvent.createMany({ data: rows as Prisma.WebhookEventCreateManyInput[] });
  return rows.map((r) => r.id);
}

/** JSON-safe snapshot: bigints become numbers (amounts below 2^53, decision A19), dates ISO strings. */
export function toJson(value: unknown): Prisma.InputJsonValue {
  return JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)));
}
