import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PrismaClient } from '../db.js';
import { ConflictError, DomainError, ValidationError } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Honour `Idempotency-Key` on this route (decision A5). */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    idempotency?: { platformId: string; key: string };
  }
}

const MAX_KEY_LENGTH = 255;
/** A claim older than this whose request never finished (crashed process) may be taken over. */
const STALE_CLAIM_MS = 60_000;

function fingerprintOf(req: FastifyRequest): string {
  const path = req.url.split('?')[0];
  const body = req.body === undefined ? '' : JSON.stringify(req.body);
  return createHash('sha256').update(`${req.method}\n${path}\n${req.principal.platformId}\n${body}`).digest('hex');
}

/**
 * Idempotency-Key (decision A5): the first request claims the key; a repeat with the same
 * fingerprint replays the stored status and body (`Idempotent-Replayed: true`); a different body is
 * 422 IDEMPOTENCY_KEY_REUSED; a repeat while the first is running is 409 CONFLICT. 5xx answers
 * are not stored, so the retry runs again. Records live IDEMPOTENCY_TTL_HOURS.
 */
export function installIdempotency(scope: FastifyInstance, prisma: PrismaClient, ttlHours: number) {
  scope.addHook('preHandler', async (req: FastifyRequest, reply: FastifyReply) => {
    if (!req.routeOptions.config.idempotent) return;
    const raw = req.headers['idempotency-key'];
    if (raw === undefined) return;
    const key = Array.isArray(raw) ? raw[0] ?? '' : raw;
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw new ValidationError([{ field: 'Idempotency-Key', constraint: { minLength: 1, maxLength: MAX_KEY_LENGTH }, message: 'Must be 1 to 255 characters.' }]);
    }
    const platformId = req.principal.platformId;
    const fingerprint = fingerprintOf(req);
    const now = new Date();
    const expiresAt = new Date(now.getTime() + ttlHours * 3_600_000);
    const claimed = await prisma.$executeRaw`
      INSERT INTO idempotency_records (platform_id, key, fingerprint, state, created_at, expires_at)
      VALUES (${platformId}, ${key}, ${fingerprint}, 'IN_PROGRESS', ${now}, ${expiresAt})
      ON CONFLICT (platform_id, key) DO UPDATE
        SET fingerprint = EXCLUDED.fingerprint, state = 'IN_PROGRESS', created_at = EXCLUDED.created_at,
            expires_at = EXCLUDED.expires_at, response_status = NULL, response_body = NULL
        WHERE idempotency_records.expires_at < ${now}
           OR (idempotency_records.state = 'IN_PROGRESS' AND idempotency_records.created_at < ${new Date(now.getTime() - STALE_CLAIM_MS)}
               AND idempotency_records.fingerprint = EXCLUDED.fingerprint)`;
    if (claimed === 1) {
      req.idempotency = { platformId, key };
      return;
    }
    const existing = await prisma.idempotencyRecord.findUnique({ where: { platformId_key: { platformId, key } } });
    if (!existing) throw new ConflictError('CONFLICT', 'The idempotency key is being processed; retry shortly.');
    if (existing.fingerprint !== fingerprint) {
      throw new DomainError(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request.');
    }
    if (existing.state !== 'DONE' || existing.responseStatus === null) {
      throw new ConflictError('CONFLICT', 'A request with this Idempotency-Key is still in progress.');
    }
    reply.header('idempotent-replayed', 'true');
    reply.status(existing.responseStatus).type('application/json');
    return reply.send(existing.responseBody ?? '');
  });

  scope.addHook('onSend', async (req, reply, payload) => {
    const claim = req.idempotency;
    if (!claim) return payload;
    req.idempotency = undefined;
    const where = { platformId_key: { platformId: claim.platformId, key: claim.key } };
    if (reply.statusCode >= 500) {
      await prisma.idempotencyRecord.delete({ where }).catch(() => undefined);
    } else {
      const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : JSON.stringify(payload ?? '');
      await prisma.idempotencyRecord.update({ where, data: { state: 'DONE', responseStatus: reply.statusCode, responseBody: body } });
    }
    return payload;
  });
}
