import type { Ctx } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { isUniqueViolation } from '../../platform/db.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { recordEvent } from '../../platform/outbox.js';
import { decodeCursor, toPage, type Page } from '../../platform/http/pagination.js';
import { Prisma, type Customer, type Verification } from '../../generated/prisma/client.js';
import { PROVIDER_REQUIRED_CUSTOMER_FIELDS } from '../platforms/index.js';
import { ownerStatusMachine, type OwnerEvent, getActiveCustomer, moveCustomerStatus, unverifiedChannels } from '../customers/index.js';
import { jsonValue, statusColumn, transition, transitionWhere } from '../../platform/state-machine.js';
import { documentsOfCustomer, markDocumentsSubmitted } from '../documents/index.js';
import {
  evaluateRequirements, OPEN_STATUSES, verificationMachine,
  type VerificationError, type VerificationEvent, type VerificationStatus,
} from './verification.model.js';
import { syncLookups } from '../../platform/tenant-lookups.js';

export function verificationResource(v: Verification) {
  return {
    id: v.id,
    customerId: v.customerId,
    verificationStatus: v.status,
    errors: v.errors as unknown as VerificationError[],
    createdAt: v.createdAt.toISOString(),
    updatedAt: v.updatedAt.toISOString(),
  };
}

export const verificationNotFound = () => new NotFoundError('NOT_FOUND', 'Verification not found.');

/** Errors: 404 NOT_FOUND (also another platform's verification). */
export async function getVerification(ctx: Ctx, id: string): Promise<Verification> {
  const v = await ctx.db.verification.findFirst({ where: { id } });
  if (!v) throw verificationNotFound();
  return v;
}

export async function listVerifications(ctx: Ctx, q: { customerId?: string; verificationStatus?: string; limit: number; cursor?: string }): Promise<Page<Verification>> {
  const before = decodeCursor(q.cursor);
  const rows = await ctx.db.verification.findMany({
    where: {
      ...(q.customerId ? { customerId: q.customerId } : {}),
      ...(q.verificationStatus ? { status: q.verificationStatus } : {}),
      ...(before ? { id: { lt: before } } : {}),
    },
    orderBy: { id: 'desc' },
    take: q.limit + 1,
  });
  return toPage(rows, q.limit, (r) => r);
}

const dateOnly = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null);

/** What the customer must provide, evaluated now (pure rules in verification.model.ts). */
async function unmetRequirements(ctx: Ctx, c: Customer): Promise<VerificationError[]> {
  const [owners, documents] = await Promise.all([
    ctx.db.beneficialOwner.findMany({ where: { customerId: c.id }, orderBy: { id: 'asc' } }),
    documentsOfCustomer(ctx.db, c.id),
  ]);
  const providerFields = [...new Set(c.currencies.flatMap((cur) => PROVIDER_REQUIRED_CUSTOMER_FIELDS[cur] ?? []))];
  return evaluateRequirements({
    customer: { ...c, birthDate: dateOnly(c.birthDate), address: c.address as Record<string, any> | null, businessInfo: c.businessInfo as Record<string, any> | null },
    owners: owners.map((o) => ({ id: o.id, roles: o.roles, ownershipBps: o.ownershipBps, personalInfo: o.personalInfo as Record<string, any> })),
    documents: documents.map((d) => ({ id: d.id, holderId: d.holderId, documentType: d.documentType, side: d.side, datedOn: (d.issuedOn ?? d.createdAt).toISOString().slice(0, 10) })),
    providerFields,
    now: ctx.clock.now(),
  });
}

/** Customers with something to verify: UNVERIFIED, HOLD, or PENDING without an open case (sandbox `001`). */
function assertVerifiable(c: Customer): void {
  if (c.status === 'APPROVED' || c.status === 'REJECTED') {
    throw new ConflictError('CONFLICT', `The customer's verification status is already ${c.status}.`);
  }
  const pending = unverifiedChannels(c);
  if (pending.length) throw new ConflictError('CONFLICT', `Verify the customer's ${pending.join(' and ')} first.`, { unverifiedChannels: pending });
}

const openCaseConflict = () => new ConflictError('CONFLICT', 'A verification of this customer is already in progress.');

/**
 * POST /verifications: evaluates every requirement at once. Unmet → RESOLVE_ERRORS listing each;
 * met → IN_PROGRESS: the customer moves to PENDING (CUSTOMER.*_PENDING), owners to PENDING, the
 * documents are frozen, and the provider's decision is queued. VERIFICATION.<status> is emitted
 * either way. Errors: 404 USER_NOT_FOUND, 410, 409 CONFLICT (already decided, contact channels
 * unverified, or a case already open).
 */
export async function submitVerification(ctx: Ctx, customerId: string, enqueue: (v: Verification) => Promise<void>): Promise<Verification> {
  const c = await getActiveCustomer(ctx, customerId);
  assertVerifiable(c);
  if (await ctx.db.verification.findFirst({ where: { customerId, status: { in: [...OPEN_STATUSES] } }, select: { id: true } })) throw openCaseConflict();
  const errors = await unmetRequirements(ctx, c);
  const status: VerificationStatus = errors.length ? 'RESOLVE_ERRORS' : 'IN_PROGRESS';
  const v = await openCase(ctx, c, status, errors, 'DIRECT', async (tx, now) => {
    if (status === 'IN_PROGRESS') await markDocumentsSubmitted(tx, c.id, now);
  });
  if (v.status === 'IN_PROGRESS') await enqueue(v);
  return v;
}

/**
 * Creates a case in one transaction with its event (after `alsoInTx`, the caller's own writes); an
 * IN_PROGRESS case also submits the customer and its owners. Shared by the direct flow and the hosted page.
 */
export async function openCase(
  ctx: Ctx,
  c: Customer,
  status: VerificationStatus,
  errors: VerificationError[],
  channel: 'DIRECT' | 'HOSTED',
  alsoInTx?: (tx: TenantTx, now: Date) => Promise<void>,
): Promise<Verification> {
  const now = ctx.clock.now();
  try {
    return await ctx.db.$transaction(async (tx) => {
      await alsoInTx?.(tx, now);
      const v = await tx.verification.create({
        data: { id: newId('Verification'), customerId: c.id, status, errors: errors as unknown as Prisma.InputJsonValue, channel, createdAt: now, updatedAt: now } as Prisma.VerificationUncheckedCreateInput,
      });
      await syncLookups(tx, 'verifications', null, v);
      await recordEvent(tx, `VERIFICATION.${status}`, verificationResource(v));
      if (status === 'IN_PROGRESS') {
        const fresh = await tx.customer.findFirstOrThrow({ where: { id: c.id } });
        if (fresh.status !== 'PENDING') await moveCustomerStatus(ctx, tx, fresh, 'submit');
        await moveOwners(ctx, tx, c.id, 'submit');
      }
      return v;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw openCaseConflict();
    throw err;
  }
}

const ownerStatus = statusColumn(ownerStatusMachine, 'beneficial_owners', 'kyc_status');
const verificationStatus = statusColumn(verificationMachine, 'verifications', 'status', { notFound: verificationNotFound });

/** Moves every owner of the customer (or those of `ids`) that the event can move, in one statement. */
async function moveOwners(ctx: Ctx, tx: TenantTx, customerId: string, event: OwnerEvent, ids?: string[]): Promise<void> {
  await transitionWhere(tx, ctx, ownerStatus, event, Prisma.sql`"customer_id" = ${customerId}${ids ? Prisma.sql` AND "id" = ANY(${ids}::text[])` : Prisma.empty}`);
}

/**
 * Moves a case through the verification machine and records VERIFICATION.<status> with the full
 * Verification, in the caller's transaction.
 */
export async function moveVerification(ctx: Ctx, tx: TenantTx, v: Verification, event: VerificationEvent, errors: VerificationError[] = []): Promise<Verification> {
  return transition(tx, ctx, verificationStatus, event, v.id, {
    from: v.status,
    set: { errors: jsonValue(errors), decisionCount: Prisma.sql`"decision_count" + 1` },
    events: (moved) => ({ type: `VERIFICATION.${moved.status}`, data: verificationResource(moved) }),
  });
}

export { moveOwners };
