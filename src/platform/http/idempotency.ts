import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PrismaClient } from '../db.js';
import type { Redis } from '../redis.js';
import { DomainError, ValidationError } from '../errors.js';
import { claimingDb, IdempotencyKeyTakenError, type IdempotencyClaim } from '../idempotency.js';

/** How a route rebuilds its response when the effect committed but the response was lost (a crash). */
export type IdempotentReplay = (req: FastifyRequest, resourceId: string | undefined) => Promise<{ status: number; body: unknown }>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Honour `Idempotency-Key` on this route (decision A5); `replay` rebuilds a lost response. */
    idempotent?: boolean | { replay: IdempotentReplay };
  }
  interface FastifyRequest {
    idempotency?: IdempotencyClaim;
    idempotencyLease?: { key: string; timer: NodeJS.Timeout };
  }
}

export interface IdempotencyOptions {
  prisma: PrismaClient;
  redis: Redis;
  redisPrefix: string;
  ttlHours: number;
  /** How long the in-flight marker lives without renewal; the owner renews it while it runs. */
  leaseMs: number;
  /** FAULT_INJECTION: honour `x-fault-crash-after-commit` (tests of crash safety only). */
  faultInjection: boolean;
}

const MAX_KEY_LENGTH = 255;

function fingerprintOf(req: FastifyRequest): string {
  const path = req.url.split('?')[0];
  const body = req.body === undefined ? '' : JSON.stringify(req.body);
  return createHash('sha256').update(`${req.method}\n${path}\n${req.principal.platformId}\n${body}`).digest('hex');
}

/**
 * Idempotency-Key (decision A5, docs/decisions.md "Idempotency"). Correctness lives in Postgres: the
 * transaction that commits a request's effect also writes the key's record, so no two requests with
 * one key both commit an effect, and a crash leaves both or neither. A Redis lease, renewed while
 * the owner runs, only answers 409 to a repeat that arrives while the first is still running (and
 * saves it the wasted work); losing Redis loses no guarantee. A repeat after completion replays the
 * stored status and body (`Idempotent-Replayed: true`); if the process died between commit and
 * response, the route's `replay` rebuilds the response from the committed resource.
 */
export function installIdempotency(scope: FastifyInstance, o: IdempotencyOptions) {
  const leases = new Leases(o.redis, o.redisPrefix, o.leaseMs);

  // Most requests carry no key: they pass without a promise or an extra turn (issue 12).
  scope.addHook('preHandler', (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    const route = req.routeOptions.config.idempotent;
    const raw = req.headers['idempotency-key'];
    if (!route || raw === undefined) return done();
    claimKey(req, reply, route, raw).then(() => {
      if (!reply.sent) done();
    }, done);
  });

  /** Claims the request's key, or answers the request from the key's record (then the reply is sent). */
  const claimKey = async (req: FastifyRequest, reply: FastifyReply, route: NonNullable<FastifyRequest['routeOptions']['config']['idempotent']>, raw: string | string[]): Promise<void> => {
    const key = Array.isArray(raw) ? raw[0] ?? '' : raw;
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw new ValidationError([{ field: 'Idempotency-Key', constraint: { minLength: 1, maxLength: MAX_KEY_LENGTH }, message: 'Must be 1 to 255 characters.' }]);
    }
    const platformId = req.principal.platformId;
    const fingerprint = fingerprintOf(req);
    const leaseKey = leases.keyOf(platformId, key);
    const leased = await leases.acquire(leaseKey, req.id);
    const existing = await o.prisma.idempotencyRecord.findUnique({ where: { platformId_key: { platformId, key } } });
    const live = existing && existing.expiresAt > new Date() ? existing : undefined;
    if (live) {
      if (leased) leases.release(leaseKey, req.id);
      if (live.fingerprint !== fingerprint) throw new DomainError(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request.');
      if (live.state === 'DONE' && live.responseStatus !== null) return void replayStored(reply, live.responseStatus, live.responseBody);
      const rebuilt = typeof route === 'object' ? await route.replay(req, live.resourceId ?? undefined).catch(() => undefined) : undefined;
      if (!rebuilt) throw new IdempotencyKeyTakenError();
      const body = JSON.stringify(rebuilt.body);
      await o.prisma.idempotencyRecord.updateMany({ where: { platformId, key, state: 'COMMITTED' }, data: { state: 'DONE', responseStatus: rebuilt.status, responseBody: body } });
      return void replayStored(reply, rebuilt.status, body);
    }
    if (!leased) throw new IdempotencyKeyTakenError();
    const claim: IdempotencyClaim = { platformId, key, fingerprint, expiresAt: new Date(Date.now() + o.ttlHours * 3_600_000), committed: false, taken: false };
    if (o.faultInjection && req.headers['x-fault-crash-after-commit'] === '1') claim.crashAfterCommit = true;
    req.idempotency = claim;
    req.idempotencyLease = { key: leaseKey, timer: leases.keepAlive(leaseKey, req.id) };
    req.ctx = { ...req.ctx, idempotency: claim, baseDb: req.ctx.db, db: claimingDb(req.ctx.db, claim) };
  };

  scope.addHook('onSend', (req, reply, payload, done) => {
    const claim = req.idempotency;
    if (!claim || claim.taken) return done(null, payload);
    storeAnswer(req, reply, payload, claim).then(() => done(null, payload), done);
  });

  /** Records the answer under the request's claimed key (DONE), as the effect did or did not commit. */
  const storeAnswer = async (req: FastifyRequest, reply: FastifyReply, payload: unknown, claim: IdempotencyClaim): Promise<void> => {
    req.idempotency = undefined;
    const status = reply.statusCode;
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : JSON.stringify(payload ?? '');
    if (claim.committed) {
      // A failure after the effect committed keeps the record COMMITTED: the retry rebuilds the success.
      if (status < 400) await o.prisma.idempotencyRecord.updateMany({ where: { platformId: claim.platformId, key: claim.key }, data: { state: 'DONE', responseStatus: status, responseBody: body } });
    } else if (status < 500) {
      // Nothing committed under the key (a 4xx, or a route without a transaction): store the answer.
      await o.prisma.$executeRaw`
        INSERT INTO idempotency_records (platform_id, key, fingerprint, state, response_status, response_body, created_at, expires_at)
        VALUES (${claim.platformId}, ${claim.key}, ${claim.fingerprint}, 'DONE', ${status}, ${body}, ${new Date()}, ${claim.expiresAt})
        ON CONFLICT (platform_id, key) DO NOTHING`;
    }
  };

  const release = (req: FastifyRequest) => {
    const lease = req.idempotencyLease;
    if (!lease) return;
    req.idempotencyLease = undefined;
    clearInterval(lease.timer);
    leases.release(lease.key, req.id);
  };
  scope.addHook('onResponse', (req, _reply, done) => {
    release(req);
    done();
  });
  scope.addHook('onRequestAbort', async (req) => release(req));
}

function replayStored(reply: FastifyReply, status: number, body: string | null) {
  reply.header('idempotent-replayed', 'true');
  reply.status(status).type('application/json');
  return reply.send(body ?? '');
}

const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
/** A Redis call that does not answer in time counts as "no Redis": the lease is only an optimisation. */
const REDIS_WAIT_MS = 500;

/** In-flight markers in Redis. Fail open: without Redis, Postgres alone still refuses a second effect. */
class Leases {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs: number,
  ) {}

  keyOf(platformId: string, key: string): string {
    return `${this.prefix}:idem:${platformId}:${createHash('sha256').update(key).digest('hex')}`;
  }

  async acquire(leaseKey: string, owner: string): Promise<boolean> {
    const answer = await withTimeout(this.redis.set(leaseKey, owner, 'PX', this.ttlMs, 'NX'));
    return answer !== null;
  }

  keepAlive(leaseKey: string, owner: string): NodeJS.Timeout {
    const timer = setInterval(() => void withTimeout(this.redis.eval(RENEW, 1, leaseKey, owner, String(this.ttlMs))), Math.max(50, Math.floor(this.ttlMs / 3)));
    timer.unref();
    return timer;
  }

  release(leaseKey: string, owner: string): void {
    void withTimeout(this.redis.eval(RELEASE, 1, leaseKey, owner));
  }
}

/** `undefined` (treated as success) when Redis fails or is slow. */
async function withTimeout<T>(p: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p.catch(() => undefined), new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), REDIS_WAIT_MS)))]);
  } finally {
    clearTimeout(timer);
  }
}
