import type { TenantDb, TenantTx } from './db.js';
import { ConflictError } from './errors.js';

/**
 * The Idempotency-Key of one request on its way through the services (docs/decisions.md
 * "Idempotency"). The record is written by the transaction that commits the request's effect, so a
 * crash leaves either nothing (the retry runs afresh) or the effect and its record together (the
 * retry replays); two requests with one key cannot both commit an effect, whatever their timing.
 */
export interface IdempotencyClaim {
  platformId: string;
  key: string;
  fingerprint: string;
  expiresAt: Date;
  /** A transaction of this request committed the record (and with it the request's effect). */
  committed: boolean;
  /** The key was already committed by another request: this one's effect was rolled back. */
  taken: boolean;
  /** What the request created or acted on, so a response lost in a crash can be rebuilt. */
  resourceId?: string;
  /** Test-only fault (FAULT_INJECTION): the process dies right after the effect committed. */
  crashAfterCommit?: boolean;
}

/** Another request with this key committed first; this request's transaction rolled back. */
export class IdempotencyKeyTakenError extends ConflictError {
  constructor() {
    super('CONFLICT', 'A request with this Idempotency-Key was already processed or is in progress; retry to get its response.');
  }
}

/** Marks the resource a request's effect concerns (the created quote, customer, …). */
export function noteIdempotentResource(ctx: { idempotency?: IdempotencyClaim }, resourceId: string): void {
  if (ctx.idempotency && !ctx.idempotency.committed) ctx.idempotency.resourceId = resourceId;
}

/**
 * A tenant client whose interactive transactions write the claim as their last statement, until
 * one of them commits. A request's effect is therefore its first committed transaction: services
 * that commit preparatory writes first (idempotent on their own) run them outside the claim with
 * `ctx.db.$transaction` on a context without `idempotency` (see `withoutClaim`).
 */
export function claimingDb(db: TenantDb, claim: IdempotencyClaim): TenantDb {
  return new Proxy(db, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop !== '$transaction') return typeof value === 'function' ? value.bind(target) : value;
      return (arg: unknown, opts?: unknown) => {
        if (typeof arg !== 'function' || claim.committed) return (value as Function).call(target, arg, opts);
        const fn = arg as (tx: TenantTx) => Promise<unknown>;
        return (value as Function)
          .call(
            target,
            async (tx: TenantTx) => {
              const result = await fn(tx);
              await insertClaim(tx, claim);
              return result;
            },
            opts,
          )
          .then((result: unknown) => {
            claimCommitted(claim);
            return result;
          });
      };
    },
  });
}

/** The context as it is without the claim: for transactions that must not carry the request's key. */
export function withoutClaim<C extends { idempotency?: IdempotencyClaim; db: TenantDb; baseDb?: TenantDb }>(ctx: C): C {
  if (!ctx.idempotency) return ctx;
  return { ...ctx, idempotency: undefined, db: ctx.baseDb ?? ctx.db };
}

/** The effect carrying the claim committed (the test-only crash fault fires here). */
export function claimCommitted(claim: IdempotencyClaim): void {
  claim.committed = true;
  if (claim.crashAfterCommit) process.kill(process.pid, 'SIGKILL');
}

/** Another request committed the key first: this request's effect rolled back; its error. */
export function takenError(claim: IdempotencyClaim): IdempotencyKeyTakenError {
  claim.taken = true;
  return new IdempotencyKeyTakenError();
}

/**
 * The claims' INSERT for a one-statement write (src/platform/one-statement.ts), one row per claim:
 * RETURNING a row for each record this statement wrote, so the statement can require them all. The
 * same text for any number of claims (arrays, one prepared statement). One key twice in the list is
 * an error of the statement (a row cannot be written twice), not a refusal.
 */
export function claimsInsertSql(claims: IdempotencyClaim[], param: (v: unknown) => string, now: Date): string {
  const column = <T>(f: (c: IdempotencyClaim) => T) => param(claims.map(f));
  return `INSERT INTO idempotency_records (platform_id, key, fingerprint, state, resource_id, created_at, expires_at)
    SELECT c.platform_id, c.key, c.fingerprint, 'COMMITTED', c.resource_id, ${param(now)}::timestamptz, c.expires_at
      FROM unnest(${column((c) => c.platformId)}::uuid[], ${column((c) => c.key)}::text[], ${column((c) => c.fingerprint)}::text[], ${column((c) => c.resourceId ?? null)}::text[],
                  ${column((c) => c.expiresAt.toISOString())}::timestamptz[]) AS c(platform_id, key, fingerprint, resource_id, expires_at)
    ON CONFLICT (platform_id, key) DO UPDATE
      SET fingerprint = EXCLUDED.fingerprint, state = 'COMMITTED', resource_id = EXCLUDED.resource_id,
          created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, response_status = NULL, response_body = NULL
      WHERE idempotency_records.expires_at < EXCLUDED.created_at
    RETURNING 1`;
}

async function insertClaim(tx: TenantTx, c: IdempotencyClaim): Promise<void> {
  const now = new Date();
  // An expired record of the same key is replaced; a live one means another request committed this
  // key first (its insert made ours wait until it committed): roll back and let the retry replay.
  const written = await tx.$executeRaw`
    INSERT INTO idempotency_records (platform_id, key, fingerprint, state, resource_id, created_at, expires_at)
    VALUES (${c.platformId}, ${c.key}, ${c.fingerprint}, 'COMMITTED', ${c.resourceId ?? null}, ${now}, ${c.expiresAt})
    ON CONFLICT (platform_id, key) DO UPDATE
      SET fingerprint = EXCLUDED.fingerprint, state = 'COMMITTED', resource_id = EXCLUDED.resource_id,
          created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, response_status = NULL, response_body = NULL
      WHERE idempotency_records.expires_at < ${now}`;
  if (written !== 1) throw takenError(c);
}
