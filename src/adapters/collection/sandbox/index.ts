import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { PrismaClient } from '../../../platform/db.js';
import type { InboundWebhook, InboundWebhookAnswer } from '../../common.js';
import { CollectionError, type CollectionAdapter, type CollectionAdapterContext, type CollectionCredit } from '../port.js';
import { creditToWire, creditWire, dispatchCollectionMessage } from '../protocol.js';
import { SANDBOX_COLLECTION_RAILS, sandboxCoordinates } from './coordinates.js';

/**
 * The sandbox collection bank (decision A2: deterministic and documented). Coordinates are derived from
 * the internal account and the rail (./coordinates.ts) and OPEN at once; REJECTED for a rail it does not
 * serve. A credit enters through simulateCredit (POST /sandbox/internal-accounts/{id}/credits): the bank
 * records it (its own table, what listCredits answers — the reconciliation poll) and pushes it, signed
 * (HMAC-SHA256 with SECRET, header x-sandbox-collection-signature), to handleWebhook, which verifies it
 * like any push to `/adapters/collection-sandbox/webhooks`. `push: false` records without pushing (a
 * lost webhook: only the poll brings it).
 */
export const SANDBOX_COLLECTION_SIGNATURE = 'x-sandbox-collection-signature';
const DEFAULT_SECRET = 'sandbox-collection-secret';

export interface SandboxCollection extends CollectionAdapter {
  simulateCredit(credit: Omit<CollectionCredit, 'creditId' | 'receivedAt'> & { creditId?: string }, opts?: { push?: boolean }): Promise<{ credit: CollectionCredit; answer?: InboundWebhookAnswer }>;
}

export function signSandboxCollection(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export function createSandboxCollection(settings: Record<string, string>, context: CollectionAdapterContext, db: PrismaClient): SandboxCollection {
  const secret = settings.SECRET ?? DEFAULT_SECRET;
  const adapter: SandboxCollection = {
    id: context.adapterId,
    railsFor: (currency) => SANDBOX_COLLECTION_RAILS[currency] ?? [],
    async openCoordinates(req) {
      if (!(SANDBOX_COLLECTION_RAILS[req.currency] ?? []).includes(req.rail)) return { status: 'REJECTED' };
      const c = sandboxCoordinates(req);
      return c ? { status: 'OPEN', reference: c.reference, instructions: c.instructions } : { status: 'REJECTED' };
    },
    async closeCoordinates() {},
    async listCredits(req, opts) {
      opts?.signal?.throwIfAborted();
      const after = req.cursor && /^\d{1,18}$/.test(req.cursor) ? BigInt(req.cursor) : 0n;
      const rows = await db.sandboxCollectionCredit.findMany({ where: { seq: { gt: after } }, orderBy: { seq: 'asc' }, take: req.limit });
      const credits = rows.map((r) => {
        const parsed = creditWire.safeParse(r.payload);
        if (!parsed.success) throw new CollectionError(`sandbox collection credit ${r.creditId} is unreadable`, false);
        return parsed.data;
      });
      return { credits, nextCursor: String(rows.at(-1)?.seq ?? after) };
    },
    async handleWebhook(request: InboundWebhook) {
      const given = Buffer.from(request.headers[SANDBOX_COLLECTION_SIGNATURE] ?? '', 'utf8');
      const expected = Buffer.from(signSandboxCollection(secret, request.rawBody.toString('utf8')), 'utf8');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return { status: 401, body: { error: { code: 'SIGNATURE_INVALID', message: `missing or invalid ${SANDBOX_COLLECTION_SIGNATURE}` } } };
      }
      return dispatchCollectionMessage(request.rawBody, context);
    },
    async simulateCredit(input, opts) {
      const credit: CollectionCredit = { ...input, creditId: input.creditId ?? `sbx_credit_${randomUUID()}`, receivedAt: context.clock.now() };
      const wire = creditToWire(credit);
      // The bank keeps the first report of a credit id: a repeated simulation re-sends the same credit.
      await db.sandboxCollectionCredit.createMany({ data: [{ creditId: credit.creditId, payload: wire }], skipDuplicates: true });
      const stored = await db.sandboxCollectionCredit.findUniqueOrThrow({ where: { creditId: credit.creditId } });
      const body = JSON.stringify({ kind: 'CREDIT', ...(stored.payload as object) });
      const kept = creditWire.parse(stored.payload);
      if (opts?.push === false) return { credit: kept };
      const answer = await adapter.handleWebhook!({ headers: { [SANDBOX_COLLECTION_SIGNATURE]: signSandboxCollection(secret, body) }, rawBody: Buffer.from(body) });
      return { credit: kept, answer };
    },
  };
  return adapter;
}
