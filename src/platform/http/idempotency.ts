import { createHash, hash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PrismaClient } from '../db.js';
import type { Redis } from '../redis.js';
import { DomainError, ValidationError } from '../errors.js';
import { claimingDb, IdempotencyKeyTakenError, type IdempotencyClaim } from '../idempotency.js';
import { platformLabel } from '../ids.js';

/** How a route rebuilds its response when the effect committed but the response was lost (a crash). */
export type IdempotentReplay = (req: FastifyRequest, resourceId: string | undefined) => Promise<{ status: number; body: unknown }>;

/**
 * How a route honours `Idempotency-Key`. `replay` rebuilds a response from the committed resource.
 * `claimedByEffect`: the route's effect writes the key's record in its own statement (the money path's
 * `claimsCte`, or the claiming transaction) and writes nothing before it, so the key costs nothing on
 * the happy path — no lease, no pre-read, no stored body — and a repeat is answered from the record
 * the effect (or an earlier refusal) found through the unique index.
 */
export type IdempotentRoute = boolean | { replay: IdempotentReplay; claimedByEffect?: boolean };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Honour `Idempotency-Key` on this route (decision A5); `replay` rebuilds a lost response. */
    idempotent?: IdempotentRoute;
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
  // crypto.hash (Node ≥ 20.12; engines ≥ 20.19): the same digest without a Hash object per request.
  // The platform as `Platform:<uuid>`, as before its column became a uuid (30e): a key sent across the upgrade keeps its fingerprint.
  return hash('sha256', `${req.method}\n${path}\n${platformLabel(req.principal.platformId)}\n${body}`, 'hex');
}

/**
 * Idempotency-Key (decision A5, docs/decisions.md "Idempotency"). Correctness lives in Postgres: the
 * transaction that commits a request's effect also writes the key's record, so no two requests with
 * one key both commit an effect, and a crash leaves both or neither. A repeat after completion replays
 * the stored status and body (`Idempotent-Replayed: true`), or, when only the effect's record exists
 * (a route `claimedByEffect`, or a process that died between commit and response), the route's
 * `replay` rebuilds the response from the committed resource.
 *
 * Routes `claimedByEffect` (the money-moving POSTs, issue 24) take nothing more on the happy path than
 * a request without a key: the effect's own statement writes the record, and a repeat is told apart
 * only when the effect (or a refusal before it) meets the record through the unique index — a repeat
 * in flight waits there for the first to commit, then is answered from it. Other routes keep a Redis
 * lease, renewed while the owner runs, which answers 409 to a repeat in flight and saves it the
 * wasted work (losing Redis loses no guarantee), a read of the record first, and their answer stored.
 */
export function installIdempotency(scope: FastifyInstance, o: IdempotencyOptions) {
  const leases = new Leases(o.redis, o.redisPrefix, o.leaseMs);

  // Most requests carry no key: they pass without a promise or an extra turn (issue 12).
  scope.addHook('preHandler', (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    const route = req.routeOptions.config.idempotent;
    const raw = req.headers['idempotency-key'];
    if (!route || raw === undefined) return done();
    if (typeof route === 'object' && route.claimedByEffect) {
      try {
        claimFor(req, keyOf(raw));
      } catch (err) {
        return done(err as Error);
      }
      return done();
    }
    claimKey(req, reply, route, raw).then(() => {
      if (!reply.sent) done();
    }, done);
  });

  /** The request's claim on its key, carried by its context to the statement of its effect. */
  const claimFor = (req: FastifyRequest, key: string): IdempotencyClaim => {
    const claim: IdempotencyClaim = { platformId: req.principal.platformId, key, fingerprint: fingerprintOf(req), expiresAt: new Date(Date.now() + o.ttlHours * 3_600_000), committed: false, taken: false };
    if (o.faultInjection && req.headers['x-fault-crash-after-commit'] === '1') claim.crashAfterCommit = true;
    req.idempotency = claim;
    // Object.assign, not a spread: keys added after a spread cost Node 20's V8 a new hidden class each (docs/decisions.md, 24m).
    req.ctx = Object.assign({}, req.ctx, { idempotency: claim, baseDb: req.ctx.db, db: claimingDb(req.ctx.db, claim) });
    return claim;
  };

  /** Claims the request's key, or answers the request from the key's record (then the reply is sent). */
  const claimKey = async (req: FastifyRequest, reply: FastifyReply, route: IdempotentRoute, raw: string | string[]): Promise<void> => {
    const key = keyOf(raw);
    const platformId = req.principal.platformId;
    const leaseKey = leases.keyOf(platformId, key);
    const leased = await leases.acquire(leaseKey, req.id);
    const existing = await o.prisma.idempotencyRecord.findUnique({ where: { platformId_key: { platformId, key } } });
    if (existing && existing.expiresAt > new Date()) {
      if (leased) leases.release(leaseKey, req.id);
      return answerFromRecord(req, reply, route, existing, fingerprintOf(req));
    }
    if (!leased) throw new IdempotencyKeyTakenError();
    claimFor(req, key);
    req.idempotencyLease = { key: leaseKey, timer: leases.keepAlive(leaseKey, req.id) };
  };

  /** Answers a repeat from its key's live record: the stored answer, or one rebuilt from the committed resource. */
  const answerFromRecord = async (req: FastifyRequest, reply: FastifyReply, route: IdempotentRoute, record: StoredRecord, fingerprint: string): Promise<void> => {
    if (record.fingerprint !== fingerprint) throw new DomainError(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request.');
    if (record.state === 'DONE' && record.responseStatus !== null) return void replayStored(reply, record.responseStatus, record.responseBody);
    const rebuilt = typeof route === 'object' ? await route.replay(req, record.resourceId ?? undefined).catch(() => undefined) : undefined;
    if (!rebuilt) throw new IdempotencyKeyTakenError();
    const body = JSON.stringify(rebuilt.body);
    // Stored, so that later repeats get these very bytes (the resource moves on; the answer does not).
    await o.prisma.idempotencyRecord.updateMany({ where: { platformId: record.platformId, key: record.key, state: 'COMMITTED' }, data: { state: 'DONE', responseStatus: rebuilt.status, responseBody: body } });
    return void replayStored(reply, rebuilt.status, body);
  };

  // A route claimedByEffect learns it is a repeat when its effect meets the key's record (taken), or
  // when it is refused before reaching its effect (a repeat of an execute finds its quote executed):
  // then the record, if there is one, answers it.
  scope.addHook('onRoute', (opts) => {
    const route = opts.config?.idempotent;
    if (typeof route !== 'object' || !route.claimedByEffect) return;
    const handler = opts.handler;
    opts.handler = async function (this: FastifyInstance, req: FastifyRequest, reply: FastifyReply) {
      try {
        return await handler.call(this, req, reply);
      } catch (err) {
        const claim = req.idempotency;
        if (!claim || claim.committed || !(claim.taken || (err instanceof DomainError && err.status < 500))) throw err;
        const record = await o.prisma.idempotencyRecord.findUnique({ where: { platformId_key: { platformId: claim.platformId, key: claim.key } } });
        if (!record || record.expiresAt <= new Date()) throw err;
        // Answered from the record: nothing of this request is stored under the key.
        claim.taken = true;
        await answerFromRecord(req, reply, route, record, claim.fingerprint);
        return reply;
      }
    };
  });

  scope.addHook('onSend', (req, reply, payload, done) => {
    const claim = req.idempotency;
    if (!claim || claim.taken) return done(null, payload);
    storeAnswer(req, reply, payload, claim).then(() => done(null, payload), done);
  });

  /** Records the answer under the request's claimed key (DONE), as the effect did or did not commit. */
  const storeAnswer = async (req: FastifyRequest, reply: FastifyReply, payload: unknown, claim: IdempotencyClaim): Promise<void> => {
    req.idempotency = undefined;
    const status = reply.statusCode;
    const route = req.routeOptions.config.idempotent;
    // The effect's record answers repeats by rebuilding the response: nothing more to write.
    if (claim.committed && typeof route === 'object' && route.claimedByEffect) return;
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

type StoredRecord = { platformId: string; key: string; fingerprint: string; state: string; responseStatus: number | null; responseBody: string | null; resourceId: string | null };

function keyOf(raw: string | string[]): string {
  const key = Array.isArray(raw) ? raw[0] ?? '' : raw;
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new ValidationError([{ field: 'Idempotency-Key', constraint: { minLength: 1, maxLength: MAX_KEY_LENGTH }, message: 'Must be 1 to 255 characters.' }]);
  }
  return key;
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
    return `${this.prefix}:idem:${platformLabel(platformId)}:${createHash('sha256').update(key).digest('hex')}`;
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
