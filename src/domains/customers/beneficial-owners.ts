import { z } from 'zod';
import type { Ctx } from '../../deps.js';
import { NotFoundError, ValidationError, type FieldError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { decodeCursor, paginationQuery, toPage, type Page } from '../../platform/http/pagination.js';
import { toFieldErrors } from '../../platform/http/validate.js';
import type { BeneficialOwner, Prisma } from '../../generated/prisma/client.js';
import { address, country, e164, email, ID_TYPES, ITIN_PATTERN, oneOf, OWNER_ROLES, pastDate, SSN_PATTERN, text } from './customers.fields.js';
import { getActiveCustomer } from './customers.service.js';
import { getConfig } from '../platforms/index.js';

/** Beneficial owners of BUSINESS customers (spec "BeneficialOwner"; decisions B§5.6). */

const opt = <S extends z.ZodType>(s: S) => s.nullish();

/**
 * Spec says "number", the reference service an integer (decisions B§13.11; the spec wins): any
 * number from 0 to 100 with at most two decimals, kept as basis points.
 */
const percentage = () =>
  z
    .number()
    .min(0)
    .max(100)
    .refine((p) => Math.abs(p * 100 - Math.round(p * 100)) < 1e-9, { message: 'At most two decimals.' });

const personalInfoFields = {
  middleName: opt(text()),
  birthDate: opt(pastDate()),
  nationality: opt(country()),
  email: opt(email()),
  phoneNumber: opt(e164()),
  address: opt(address()),
  idType: opt(oneOf(ID_TYPES)),
  identifier: opt(z.string().trim().min(1, 'Must not be empty.').max(64)),
  countryOfIssuance: opt(country()),
};

/** Name, roles and share are needed to create an owner; the rest is enforced at verification (like customers). */
export const createOwnerBody = z.strictObject({
  customerId: z.string().min(1).max(200),
  roles: z.array(oneOf(OWNER_ROLES)).min(1).max(OWNER_ROLES.length),
  ownershipPercentage: percentage(),
  personalInfo: z.strictObject({ firstName: text(), lastName: text(), ...personalInfoFields }),
});

export const patchOwnerBody = z.strictObject({
  roles: z.array(oneOf(OWNER_ROLES)).min(1).max(OWNER_ROLES.length).optional(),
  ownershipPercentage: percentage().optional(),
  personalInfo: z.strictObject({ firstName: text().optional(), lastName: text().optional(), ...personalInfoFields }).optional(),
});

export const listOwnersQuery = z.strictObject({ ...paginationQuery, customerId: z.string().min(1).max(200) });
export const ownerIdParams = z.object({ id: z.string().min(1).max(200) });

function identifierErrors(info: Record<string, any>): FieldError[] {
  const errors: FieldError[] = [];
  const p = 'personalInfo.';
  if (info.identifier != null && info.idType == null) errors.push({ field: `${p}idType`, message: 'Required with identifier.' });
  if (info.idType != null && info.identifier == null) errors.push({ field: `${p}identifier`, message: 'Required with idType.' });
  if (typeof info.identifier === 'string') {
    if (info.idType === 'SSN' && !SSN_PATTERN.test(info.identifier)) errors.push({ field: `${p}identifier`, constraint: { format: 'us-ssn' }, message: 'An SSN must look like ###-##-####.' });
    if (info.idType === 'ITIN' && !ITIN_PATTERN.test(info.identifier)) errors.push({ field: `${p}identifier`, constraint: { format: 'us-itin' }, message: 'An ITIN must look like 9##-##-#### with a valid group number.' });
  }
  return errors;
}

function parseOwner<S extends z.ZodType>(schema: S, raw: unknown, mergedInfo: (info: Record<string, any>) => Record<string, any>): z.output<S> {
  const input = raw ?? {};
  const result = schema.safeParse(input);
  const obj = (result.success ? result.data : input) as Record<string, any>;
  const info = typeof obj?.personalInfo === 'object' && obj.personalInfo !== null ? obj.personalInfo : {};
  const errors = [...(result.success ? [] : toFieldErrors(result.error)), ...identifierErrors(mergedInfo(info))];
  const seen = new Set<string>();
  const unique = errors.filter((e) => (seen.has(e.field) ? false : (seen.add(e.field), true)));
  if (unique.length) throw new ValidationError(unique);
  return result.data as z.output<S>;
}

const compactInfo = (info: Record<string, unknown>) => Object.fromEntries(Object.entries(info).filter(([, v]) => v !== undefined && v !== null));
const toBps = (p: number) => Math.round(p * 100);

async function assertTotalShare(ctx: Ctx, customerId: string, bps: number, exceptId?: string): Promise<void> {
  const others = await ctx.db.beneficialOwner.findMany({ where: { customerId, ...(exceptId ? { id: { not: exceptId } } : {}) }, select: { ownershipBps: true } });
  const total = others.reduce((s, o) => s + o.ownershipBps, 0) + bps;
  if (total > 10_000) throw new ValidationError([{ field: 'ownershipPercentage', constraint: { maximum: (10_000 - total + bps) / 100 }, message: 'The owners of one business cannot hold more than 100% together.' }]);
}

export const ownerNotFound = () => new NotFoundError('NOT_FOUND', 'Beneficial owner not found.');

/** POST /beneficial-owners. Errors: 400 INVALID_INPUT (also: customer is not a BUSINESS, shares above 100%), 404 USER_NOT_FOUND, 410 CUSTOMER_DELETED. */
export async function createOwner(ctx: Ctx, raw: unknown): Promise<BeneficialOwner> {
  const body = parseOwner(createOwnerBody, raw, (i) => i);
  const customer = await getActiveCustomer(ctx, body.customerId);
  if (customer.customerType !== 'BUSINESS') throw new ValidationError([{ field: 'customerId', message: 'Beneficial owners belong to BUSINESS customers.' }]);
  const bps = toBps(body.ownershipPercentage);
  await assertTotalShare(ctx, customer.id, bps);
  const { platform } = await getConfig(ctx);
  const now = ctx.clock.now();
  return ctx.db.beneficialOwner.create({
    data: {
      id: newId('BeneficialOwner'),
      customerId: customer.id,
      roles: [...new Set(body.roles)],
      ownershipBps: bps,
      personalInfo: compactInfo(body.personalInfo) as Prisma.InputJsonValue,
      // Regulated platforms verify their customers themselves (spec "Customer").
      kycStatus: platform.isRegulated ? 'APPROVED' : 'UNVERIFIED',
      createdAt: now,
      updatedAt: now,
    } as Prisma.BeneficialOwnerUncheckedCreateInput,
  });
}

/** Errors: 404 NOT_FOUND (also another platform's owner). */
export async function getOwner(ctx: Ctx, id: string): Promise<BeneficialOwner> {
  const o = await ctx.db.beneficialOwner.findFirst({ where: { id } });
  if (!o) throw ownerNotFound();
  return o;
}

/** PATCH /beneficial-owners/{id}: partial; personalInfo merges key by key (null removes). Errors: 400, 404, 410. */
export async function patchOwner(ctx: Ctx, id: string, raw: unknown): Promise<BeneficialOwner> {
  const owner = await getOwner(ctx, id);
  await getActiveCustomer(ctx, owner.customerId);
  const stored = owner.personalInfo as Record<string, unknown>;
  const merge = (patch: Record<string, any>) => compactInfo({ ...stored, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) });
  const body = parseOwner(patchOwnerBody, raw, merge);
  const bps = body.ownershipPercentage === undefined ? undefined : toBps(body.ownershipPercentage);
  if (bps !== undefined) await assertTotalShare(ctx, owner.customerId, bps, id);
  return ctx.db.beneficialOwner.update({
    where: { platformId_id: { platformId: ctx.platformId, id } },
    data: {
      ...(body.roles ? { roles: [...new Set(body.roles)] } : {}),
      ...(bps !== undefined ? { ownershipBps: bps } : {}),
      ...(body.personalInfo ? { personalInfo: merge(body.personalInfo) as Prisma.InputJsonValue } : {}),
      updatedAt: ctx.clock.now(),
    },
  });
}

/** GET /beneficial-owners?customerId= (required): newest first like every list. Errors: 404 USER_NOT_FOUND. */
export async function listOwners(ctx: Ctx, q: z.infer<typeof listOwnersQuery>): Promise<Page<BeneficialOwner>> {
  const customer = await ctx.db.customer.findFirst({ where: { id: q.customerId }, select: { id: true } });
  if (!customer) throw new NotFoundError('USER_NOT_FOUND', 'Customer not found.');
  const before = decodeCursor(q.cursor);
  const rows = await ctx.db.beneficialOwner.findMany({
    where: { customerId: q.customerId, ...(before ? { id: { lt: before } } : {}) },
    orderBy: { id: 'desc' },
    take: q.limit + 1,
  });
  return toPage(rows, q.limit, (r) => r);
}
