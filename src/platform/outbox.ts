import { newUuid } from './ids.js';
import type { TenantTx } from './db.js';
import type { Prisma } from '../generated/prisma/client.js';

/**
 * Records a webhook event in the same database transaction as the state change that caused it
 * (transactional outbox). If the transaction rolls back, the event never existed; once it commits,
 * the relay (webhooks.jobs.ts) is guaranteed to pick it up.
 */
export async function recordEvent(tx: TenantTx, type: string, data: unknown): Promise<string> {
  const id = newUuid();
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

/**
 * recordEvent for several events at once, in one statement (raw SQL: Prisma's createMany would wrap
 * itself in a savepoint). Raw SQL is not scoped by tenantDb, hence `platformId`. Used by transition()
 * (src/platform/state-machine.ts).
 */
export async function recordEvents(db: Pick<TenantTx, '$executeRaw'>, platformId: string, events: readonly OutboxEvent[]): Promise<string[]> {
  const rows = events.map((e) => ({ id: newUuid(), type: e.type, data: toJson(e.data) }));
  if (rows.length === 0) return [];
  await db.$executeRaw`
    INSERT INTO "webhook_events" ("id", "platform_id", "type", "data")
    SELECT e."id", ${platformId}::uuid, e."type", e."data" FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS e("id" uuid, "type" text, "data" jsonb)`;
  return rows.map((r) => r.id);
}

/** JSON-safe snapshot: bigints become numbers (amounts below 2^53, decision A19), dates ISO strings. */
export function toJson(value: unknown): Prisma.InputJsonValue {
  return JSON.parse(jsonText(value));
}

/**
 * JSON.stringify with bigints as numbers. Without a replacer first: a replacer costs a call per value
 * (the money path's rows have hundreds), and only a value holding a bigint needs it.
 */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? Number(v) : v));
  }
}
