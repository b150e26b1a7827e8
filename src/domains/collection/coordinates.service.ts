import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { Prisma, type CollectionCoordinates } from '../../generated/prisma/client.js';
import type { TenantTx } from '../../platform/db.js';
import { newId } from '../../platform/ids.js';
import { recordEvents } from '../../platform/outbox.js';
import { statusColumn, tryTransition } from '../../platform/state-machine.js';
import type { CollectionAdapter, OpenCoordinatesResult } from '../../adapters/collection/port.js';
import { internalAccountResource } from '../ledger/index.js';
import { COLLECTING_ACCOUNT_TYPES, coordinatesLifecycle, retryDelayMs } from './collection.model.js';
import { perPlatformGroup } from '../../platform/platform-groups.js';
import { syncLookups } from '../../platform/tenant-lookups.js';

/**
 * The coordinates sweep (issue 26 item 1): Postgres owes, the provider is asked outside any transaction.
 *   1. accounts due (collection_accounts_due, filled by a trigger on every new or closed internal account):
 *      a PENDING row per collection rail of a new account; the coordinates of a closed one close
 *   2. coordinates due (PENDING: open; CLOSING: close), leased with FOR UPDATE SKIP LOCKED so two workers
 *      never ask twice at once, then the answer committed through the one transition()
 * INTERNAL_ACCOUNT.FUNDING_INSTRUCTIONS_UPDATED (the full account) whenever the open set changes.
 */
const coordinatesStatus = statusColumn(coordinatesLifecycle, 'collection_coordinates', 'status');
type Db = Pick<TenantTx, '$queryRaw' | '$executeRaw'>;

interface DueAccount {
  id: string;
  platform_id: string;
  currency: string;
  type: string;
  status: string;
}

/**
 * Step 1, one transaction per platform group (issue 29, 29a: each statement on one shard): the due rows
 * are deleted with what they owed written, or not at all.
 */
async function takeDueAccounts(deps: AppDeps, adapter: CollectionAdapter, batch: number): Promise<number> {
  return perPlatformGroup(deps.prisma, 'collection_accounts_due', (platforms) => deps.prisma.$transaction(async (tx) => {
    const due = await tx.$queryRaw<Array<{ platform_id: string; internal_account_id: string }>>`
      SELECT platform_id, internal_account_id FROM collection_accounts_due WHERE platform_id = ANY(${platforms})
       ORDER BY created_at LIMIT ${batch} FOR UPDATE SKIP LOCKED`;
    if (due.length === 0) return 0;
    const ids = due.map((d) => d.internal_account_id);
    const named = [...new Set(due.map((d) => d.platform_id))];
    const accounts = await tx.$queryRaw<DueAccount[]>`
      SELECT id, platform_id, currency, type, status FROM internal_accounts WHERE platform_id = ANY(${named}) AND id = ANY(${ids})`;
    for (const a of accounts) {
      if (a.status === 'CLOSED' || a.status === 'FAILED') await closeAccountCoordinates(tx, ctxFor(deps, a.platform_id), a.id);
      else if (COLLECTING_ACCOUNT_TYPES.includes(a.type)) await oweCoordinates(tx, adapter, a, deps.clock.now());
    }
    await tx.$executeRaw`DELETE FROM collection_accounts_due WHERE platform_id = ANY(${named}) AND internal_account_id = ANY(${ids})`;
    return due.length;
  }));
}

async function oweCoordinates(tx: Db, adapter: CollectionAdapter, a: DueAccount, now: Date): Promise<void> {
  for (const rail of adapter.railsFor(a.currency)) {
    await tx.$executeRaw`
      INSERT INTO collection_coordinates (id, platform_id, internal_account_id, currency, rail, adapter_id, status, next_attempt_at, created_at, updated_at)
      VALUES (${newId('CollectionCoordinates')}, ${a.platform_id}, ${a.id}, ${a.currency}, ${rail}, ${adapter.id}, 'PENDING', ${now}, ${now}, ${now})
      ON CONFLICT (platform_id, internal_account_id, rail) DO NOTHING`;
  }
}

/** A closed account's coordinates: OPEN ones are closed at the provider (CLOSING), PENDING ones abandoned. */
async function closeAccountCoordinates(tx: Db, ctx: Ctx, accountId: string): Promise<void> {
  const rows = await tx.$queryRaw<Array<{ id: string; status: string }>>`
    SELECT id, status FROM collection_coordinates WHERE internal_account_id = ${accountId} AND platform_id = ${ctx.platformId} AND status IN ('PENDING', 'OPEN')`;
  for (const r of rows) {
    if (r.status === 'OPEN') await tryTransition(tx, ctx, coordinatesStatus, 'close', r.id, { set: { nextAttemptAt: ctx.clock.now() } });
    else await tryTransition(tx, ctx, coordinatesStatus, 'abandon', r.id, { set: { nextAttemptAt: null } });
  }
  await refreshInstructions(tx, ctx, accountId);
}

/**
 * The account's fundingPaymentInstructions from its OPEN coordinates (ordered by rail); when they changed,
 * INTERNAL_ACCOUNT.FUNDING_INSTRUCTIONS_UPDATED with the full account (REF's payload), in the same transaction.
 */
async function refreshInstructions(tx: Db, ctx: Ctx, accountId: string): Promise<void> {
  const changed = await tx.$queryRaw<Array<{ id: string }>>`
    WITH open AS (
      SELECT COALESCE(jsonb_agg(c.instructions ORDER BY c.rail), '[]'::jsonb) AS list
        FROM collection_coordinates c WHERE c.platform_id = ${ctx.platformId} AND c.internal_account_id = ${accountId} AND c.status = 'OPEN')
    UPDATE internal_accounts a SET funding_payment_instructions = open.list, updated_at = ${ctx.clock.now()}
      FROM open
     WHERE a.id = ${accountId} AND a.platform_id = ${ctx.platformId} AND a.funding_payment_instructions IS DISTINCT FROM open.list
    RETURNING a.id`;
  if (changed.length === 0) return;
  const account = await (tx as TenantTx).internalAccount.findFirstOrThrow({ where: { id: accountId, platformId: ctx.platformId } });
  await recordEvents(tx, ctx.platformId, [{ type: 'INTERNAL_ACCOUNT.FUNDING_INSTRUCTIONS_UPDATED', data: internalAccountResource(account) }]);
}

/** Step 2's lease: due rows pushed out by the lease, so a crashed worker's rows come back after it. */
async function leaseDueCoordinates(deps: AppDeps, batch: number, platforms: string[]): Promise<CollectionCoordinates[]> {
  const now = deps.clock.now();
  const leaseUntil = new Date(now.getTime() + 2 * deps.config.PROVIDER_TIMEOUT_MS + 1000);
  const ids = await deps.prisma.$queryRaw<Array<{ id: string; platform_id: string }>>`
    UPDATE collection_coordinates SET next_attempt_at = ${leaseUntil}, attempts = attempts + 1
     WHERE platform_id = ANY(${platforms}) AND (platform_id, id) IN (SELECT platform_id, id FROM collection_coordinates
                   WHERE platform_id = ANY(${platforms}) AND next_attempt_at <= ${now} AND status IN ('PENDING', 'CLOSING')
                   ORDER BY next_attempt_at LIMIT ${batch} FOR UPDATE SKIP LOCKED)
    RETURNING id, platform_id`;
  if (ids.length === 0) return [];
  return deps.prisma.collectionCoordinates.findMany({ where: { platformId: { in: [...new Set(ids.map((r) => r.platform_id))] }, id: { in: ids.map((r) => r.id) } } });
}

/** Who payers must name on a wire: the customer's name, else the platform's (its own accounts). */
async function holderOf(deps: AppDeps, c: CollectionCoordinates): Promise<{ customerId: string | null; name: string }> {
  const [row] = await deps.prisma.$queryRaw<Array<{ customer_id: string | null; name: string | null }>>`
    SELECT a.customer_id, COALESCE(cu.full_name, cu.business_info->>'legalName', p.name) AS name
      FROM internal_accounts a JOIN platforms p ON p.id = a.platform_id LEFT JOIN customers cu ON cu.platform_id = a.platform_id AND cu.id = a.customer_id
     WHERE a.platform_id = ${c.platformId} AND a.id = ${c.internalAccountId}`;
  return { customerId: row?.customer_id ?? null, name: row?.name || 'Account holder' };
}

type Opened = { c: CollectionCoordinates; r: OpenCoordinatesResult };

/**
 * The answers for one account, committed together: the OPEN and REJECTED moves and the account's new
 * instructions in one transaction, so opening three rails is one FUNDING_INSTRUCTIONS_UPDATED, not three.
 */
async function applyOpenings(deps: AppDeps, adapter: CollectionAdapter, answers: Opened[]): Promise<void> {
  const now = deps.clock.now();
  for (const { c, r } of answers.filter((a) => a.r.status === 'PENDING')) {
    const waitMs = r.pollAfterMs ?? retryDelayMs(c.attempts, deps.config.COLLECTION_RETRY_BASE_MS, deps.config.COLLECTION_RETRY_MAX_MS);
    await deps.prisma.collectionCoordinates.updateMany({ where: { platformId: c.platformId, id: c.id, status: 'PENDING' }, data: { nextAttemptAt: new Date(now.getTime() + waitMs), updatedAt: now } });
  }
  const final = answers.filter((a) => a.r.status !== 'PENDING');
  if (final.length === 0) return;
  const ctx = ctxFor(deps, final[0]!.c.platformId);
  const lost = await deps.prisma.$transaction(async (tx) => {
    const missed: Opened[] = [];
    for (const { c, r } of final) {
      const moved = r.status === 'REJECTED'
        ? await tryTransition(tx, ctx, coordinatesStatus, 'reject', c.id, { set: { nextAttemptAt: null, lastError: 'REJECTED by the provider' } })
        : await tryTransition(tx, ctx, coordinatesStatus, 'open', c.id, { set: { reference: r.reference!, instructions: Prisma.sql`${JSON.stringify(r.instructions)}::jsonb`, nextAttemptAt: null, lastError: null } });
      if (moved) await syncLookups(tx, 'collection_coordinates', c, moved);
      if (!moved && r.status === 'OPEN') missed.push({ c, r });
    }
    await refreshInstructions(tx, ctx, final[0]!.c.internalAccountId);
    return missed;
  });
  // The account closed while the provider was opening: what it opened must not take money.
  for (const { c, r } of lost) await adapter.closeCoordinates({ coordinatesId: c.id, reference: r.reference!, rail: c.rail }).catch(() => undefined);
}

async function failAttempt(deps: AppDeps, c: CollectionCoordinates, err: unknown): Promise<void> {
  deps.logger.warn({ err, coordinatesId: c.id, rail: c.rail }, 'collection coordinates attempt failed; retried later');
  const retryable = !(err && typeof err === 'object' && (err as { retryable?: unknown }).retryable === false);
  const message = String(err instanceof Error ? err.message : err).slice(0, 500);
  if (!retryable && c.status === 'PENDING') {
    await tryTransition(deps.prisma, ctxFor(deps, c.platformId), coordinatesStatus, 'reject', c.id, { set: { nextAttemptAt: null, lastError: message } });
    return;
  }
  const waitMs = retryDelayMs(c.attempts, deps.config.COLLECTION_RETRY_BASE_MS, deps.config.COLLECTION_RETRY_MAX_MS);
  await deps.prisma.collectionCoordinates.updateMany({ where: { platformId: c.platformId, id: c.id, status: c.status }, data: { nextAttemptAt: new Date(deps.clock.now().getTime() + waitMs), lastError: message } });
}

async function closeOne(deps: AppDeps, adapter: CollectionAdapter, c: CollectionCoordinates): Promise<void> {
  try {
    await adapter.closeCoordinates({ coordinatesId: c.id, reference: c.reference ?? '', rail: c.rail });
    await tryTransition(deps.prisma, ctxFor(deps, c.platformId), coordinatesStatus, 'closed', c.id, { set: { nextAttemptAt: null } });
  } catch (err) {
    await failAttempt(deps, c, err);
  }
}

/** One account's due PENDING coordinates: the provider asked per rail, the answers committed together. */
async function openAccount(deps: AppDeps, adapter: CollectionAdapter, rows: CollectionCoordinates[]): Promise<void> {
  const holder = await holderOf(deps, rows[0]!);
  const answers: Opened[] = [];
  for (const c of rows) {
    try {
      const r = await adapter.openCoordinates({
        coordinatesId: c.id, internalAccountId: c.internalAccountId, customerId: holder.customerId, accountHolderName: holder.name,
        currency: c.currency, rail: c.rail, isPlatformAccount: holder.customerId === null,
      });
      answers.push({ c, r });
    } catch (err) {
      await failAttempt(deps, c, err);
    }
  }
  try {
    await applyOpenings(deps, adapter, answers);
  } catch (err) {
    for (const { c } of answers) await failAttempt(deps, c, err);
  }
}

/** The loop (src/domains/collection/index.ts): how many accounts and coordinates it handled. */
export async function sweepCoordinates(deps: AppDeps): Promise<number> {
  const adapter = deps.adapters.collection;
  // No provider: the due accounts wait (a provider configured later serves them).
  if (!adapter) return 0;
  const batch = deps.config.COLLECTION_SWEEP_BATCH;
  const accounts = await takeDueAccounts(deps, adapter, batch);
  const coordinates = await perPlatformGroup(deps.prisma, 'collection_coordinates', async (platforms) => {
    const due = await leaseDueCoordinates(deps, batch, platforms);
    const byAccount = new Map<string, CollectionCoordinates[]>();
    for (const c of due) {
      if (c.status === 'CLOSING') await closeOne(deps, adapter, c);
      else byAccount.set(c.internalAccountId, [...(byAccount.get(c.internalAccountId) ?? []), c]);
    }
    for (const rows of byAccount.values()) await openAccount(deps, adapter, rows);
    return due.length;
  });
  return accounts + coordinates;
}

/** An account's coordinates as the platform may see them (open or not), by rail. */
export async function listAccountCoordinates(ctx: Ctx, internalAccountId: string): Promise<CollectionCoordinates[]> {
  return ctx.db.collectionCoordinates.findMany({ where: { internalAccountId }, orderBy: { rail: 'asc' } });
}
