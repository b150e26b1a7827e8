import { randomBytes } from 'node:crypto';
import type { Ctx } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { isUniqueViolation } from '../../platform/db.js';
import { ConflictError, DomainError, NotFoundError, type FieldError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { noteIdempotentResource } from '../../platform/idempotency.js';
import { decodeCursor, toPage, type Page } from '../../platform/http/pagination.js';
import { Prisma, type Customer } from '../../generated/prisma/client.js';
import { openInternalAccounts } from '../ledger/index.js';
import { getConfig, type PlatformConfigView } from '../platforms/index.js';
import {
  contactChannelMachine, customerEventType, customerStatusMachine, initialStatus, regionOf, requiresContactVerification,
  type ChannelEvent, type ChannelState, type ContactChannel, type CustomerEvent, type CustomerStatus,
} from './customers.model.js';
import { consentToStore } from './end-user-terms.js';
import { customerResource, type CustomerView } from './customers.resource.js';
import {
  createCustomerBody, DUE_DILIGENCE_FIELDS, parseCustomerInput, patchCustomerBody, type ListCustomersQuery,
} from './customers.schemas.js';
import { statusColumn, transition } from '../../platform/state-machine.js';

export class CustomerDeletedError extends DomainError {
  constructor() {
    super(410, 'CUSTOMER_DELETED', 'The customer was deleted.');
  }
}

export const customerNotFound = () => new NotFoundError('USER_NOT_FOUND', 'Customer not found.');

/** The customer and its owners, read through the caller's (tenant-scoped) client or transaction. */
export async function loadCustomerView(db: TenantTx, id: string): Promise<CustomerView | undefined> {
  const customer = await db.customer.findFirst({ where: { id } });
  if (!customer) return undefined;
  const owners = customer.customerType === 'BUSINESS' ? await db.beneficialOwner.findMany({ where: { customerId: id }, orderBy: { id: 'asc' } }) : [];
  return { customer, owners };
}

/** Errors: 404 USER_NOT_FOUND (also another platform's customer). Deleted customers are returned. */
export async function getCustomer(ctx: Ctx, id: string): Promise<CustomerView> {
  const view = await loadCustomerView(ctx.db, id);
  if (!view) throw customerNotFound();
  return view;
}

/** Errors: 404 USER_NOT_FOUND, 410 CUSTOMER_DELETED. For every operation but GET and DELETE. */
export async function getActiveCustomer(ctx: Ctx, id: string): Promise<Customer> {
  const c = await ctx.db.customer.findFirst({ where: { id } });
  if (!c) throw customerNotFound();
  if (c.isDeleted) throw new CustomerDeletedError();
  return c;
}

// ---------------------------------------------------------------------------------------------
// Create / update

const dateOnly = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : undefined);
const asDate = (s: unknown) => (typeof s === 'string' ? new Date(`${s}T00:00:00Z`) : null);
const isObj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The stored customer in the request's vocabulary, so PATCH rules see "the customer after the change". */
function asInput(c: Customer): Record<string, any> {
  const out: Record<string, any> = {
    customerType: c.customerType,
    platformCustomerId: c.platformCustomerId,
    region: c.region,
    currencies: c.currencies,
    email: c.email,
    phoneNumber: c.phoneNumber,
    umaAddress: c.umaAddress,
    fullName: c.fullName,
    birthDate: dateOnly(c.birthDate),
    nationality: c.nationality,
    address: c.address,
    idType: c.idType,
    identifier: c.identifier,
    countryOfIssuance: c.countryOfIssuance,
    endUserTermsConsent: c.endUserTermsConsent,
    ...((c.dueDiligence as Record<string, unknown> | null) ?? {}),
    businessInfo: c.businessInfo,
  };
  for (const k of Object.keys(out)) if (out[k] === null || out[k] === undefined) delete out[k];
  return out;
}

/** PATCH semantics: a value replaces, null removes; businessInfo merges key by key. */
function applyPatch(base: Record<string, any>, patch: Record<string, any>): Record<string, any> {
  const out = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    if (v === null) delete out[k];
    else if (k === 'businessInfo' && isObj(v) && isObj(out.businessInfo)) {
      const merged = { ...out.businessInfo };
      for (const [bk, bv] of Object.entries(v)) {
        if (bv === null) delete merged[bk];
        else if (bv !== undefined) merged[bk] = bv;
      }
      out.businessInfo = merged;
    } else out[k] = v;
  }
  return out;
}

/** Rules that need the platform: its currencies, and decision A8's contact requirement. */
function contextErrors(platform: PlatformConfigView, m: Record<string, any>): FieldError[] {
  const errors: FieldError[] = [];
  const supported = new Set(platform.currencies.map((c) => c.currencyCode));
  if (Array.isArray(m.currencies)) {
    m.currencies.forEach((c: unknown, i: number) => {
      if (typeof c === 'string' && !supported.has(c)) errors.push({ field: `currencies[${i}]`, message: 'This platform does not support this currency (GET /config).' });
    });
  }
  const region = typeof m.region === 'string' ? m.region : isObj(m.address) && typeof m.address.country === 'string' ? m.address.country : undefined;
  if (requiresContactVerification(region, platform.platform.scaRegion)) {
    const why = 'Required: contact details are verified first in this region.';
    if (!m.email) errors.push({ field: 'email', message: why });
    if (!m.phoneNumber) errors.push({ field: 'phoneNumber', message: why });
  }
  return errors;
}

function rowData(m: Record<string, any>) {
  const dd: Record<string, unknown> = {};
  for (const f of DUE_DILIGENCE_FIELDS) if (m[f] !== undefined && m[f] !== null) dd[f] = m[f];
  return {
    platformCustomerId: m.platformCustomerId as string,
    region: m.region ?? null,
    currencies: [...new Set((m.currencies as string[] | undefined) ?? [])],
    email: m.email ?? null,
    phoneNumber: m.phoneNumber ?? null,
    umaAddress: m.umaAddress as string,
    fullName: m.fullName ?? null,
    birthDate: asDate(m.birthDate),
    nationality: m.nationality ?? null,
    address: m.address ?? Prisma.DbNull,
    idType: m.idType ?? null,
    identifier: m.identifier ?? null,
    countryOfIssuance: m.countryOfIssuance ?? (m.idType === 'SSN' || m.idType === 'ITIN' ? 'US' : null),
    dueDiligence: Object.keys(dd).length ? (dd as Prisma.InputJsonValue) : Prisma.DbNull,
    businessInfo: m.businessInfo ?? Prisma.DbNull,
    endUserTermsConsent: (m.endUserTermsConsent ?? Prisma.DbNull) as Prisma.InputJsonValue,
  };
}

async function assertUnique(tx: TenantTx, m: { platformCustomerId: string; umaAddress: string }, selfId?: string): Promise<void> {
  const other = selfId ? { id: { not: selfId } } : {};
  if (await tx.customer.findFirst({ where: { platformCustomerId: m.platformCustomerId, isDeleted: false, ...other }, select: { id: true } })) {
    throw new ConflictError('CONFLICT', 'An active customer of this platform already has this platformCustomerId.', { field: 'platformCustomerId' });
  }
  if (await tx.customer.findFirst({ where: { umaAddress: m.umaAddress, ...other }, select: { id: true } })) {
    throw new ConflictError('UMA_ADDRESS_EXISTS', 'This UMA address already exists.', { field: 'umaAddress' });
  }
}

/** A race past assertUnique ends on the unique indexes; same answers. */
function mapUniqueViolation(err: unknown): never {
  if (isUniqueViolation(err, 'uma_address')) throw new ConflictError('UMA_ADDRESS_EXISTS', 'This UMA address already exists.', { field: 'umaAddress' });
  if (isUniqueViolation(err)) throw new ConflictError('CONFLICT', 'An active customer of this platform already has this platformCustomerId.', { field: 'platformCustomerId' });
  throw err;
}

async function generateUmaAddress(ctx: Ctx, platform: PlatformConfigView): Promise<string> {
  const domain = (platform.platform.umaDomain ?? ctx.config.UMA_DEFAULT_DOMAIN).toLowerCase();
  for (;;) {
    const candidate = `$${randomBytes(6).toString('hex')}@${domain}`;
    if (!(await ctx.db.customer.findFirst({ where: { umaAddress: candidate }, select: { id: true } }))) return candidate;
  }
}

/**
 * POST /customers. Errors: 400 INVALID_INPUT (every bad field in details.errors[]), 409 CONFLICT
 * (platformCustomerId of an active customer), 409 UMA_ADDRESS_EXISTS.
 */
export async function createCustomer(ctx: Ctx, raw: unknown): Promise<CustomerView> {
  const platform = await getConfig(ctx);
  const body = parseCustomerInput(createCustomerBody, raw, (b) => b, (m) => contextErrors(platform, m));
  const id = newId('Customer');
  noteIdempotentResource(ctx, id);
  const m: Record<string, any> = { ...body };
  m.endUserTermsConsent = consentToStore(ctx.config, body.endUserTermsConsent, ctx.clock.now()); // hook:25a
  m.platformCustomerId ??= id.slice('Customer:'.length);
  m.umaAddress ??= await generateUmaAddress(ctx, platform);
  const status = initialStatus({
    isRegulated: platform.platform.isRegulated,
    sandbox: ctx.config.SVC_ENV === 'sandbox',
    name: body.customerType === 'BUSINESS' ? (body.businessInfo?.legalName ?? undefined) : (body.fullName ?? undefined),
  });
  const contact = requiresContactVerification(regionOf(body), platform.platform.scaRegion);
  const data = rowData(m);
  const now = ctx.clock.now();
  try {
    await ctx.db.$transaction(async (tx) => {
      await assertUnique(tx, data);
      await tx.customer.create({
        data: {
          id,
          customerType: body.customerType,
          status,
          ...data,
          emailVerification: contact ? 'PENDING' : null,
          phoneVerification: contact ? 'PENDING' : null,
          createdAt: now,
          updatedAt: now,
        } as Prisma.CustomerUncheckedCreateInput,
      });
      // Decision B§5.1: a customer holds one internal account per currency it transacts in. REF's
      // client has no `currencies` (issue 13): without it the customer gets an account in each of the
      // platform's currencies, as on REF, while `currencies` (what verification covers) stays empty.
      const accountCurrencies = body.currencies == null ? platform.currencies.map((c) => c.currencyCode) : data.currencies;
      await openInternalAccounts(tx, ctx.platformId, id, accountCurrencies);
    });
  } catch (err) {
    if (err instanceof DomainError) throw err;
    mapUniqueViolation(err);
  }
  await customerCreatedHook?.(ctx, { id, email: data.email ?? null }, platform.currencies.map((c) => c.currencyCode)); // hook:28
  return getCustomer(ctx, id);
}

/**
 * Issue 28: bound once per process (src/modules.ts) to the wallet domain's provisioning, which sits
 * above customers (a customer of a Global Accounts platform gets an EMBEDDED_WALLET account).
 */
type CustomerCreatedHook = (ctx: Ctx, customer: { id: string; email: string | null }, platformCurrencies: string[]) => Promise<void>;
let customerCreatedHook: CustomerCreatedHook | undefined;
export function bindCustomerCreated(hook: CustomerCreatedHook): void {
  customerCreatedHook = hook;
}

/**
 * Issue 28 (anchor 28b): bound once per process (src/modules.ts) to the wallet domain's gate on a contact
 * change tied to embedded-wallet OTP credentials (REF: a 202 and a signed retry; the customer row and
 * every tied credential change together). NONE: nothing tied; CHALLENGE: answer 202; SIGNED: `apply`
 * in this PATCH's transaction, `undo` (the custody side) if the transaction fails.
 */
type ContactGate =
  | { kind: 'NONE' }
  | { kind: 'CHALLENGE'; challenge: { payloadToSign: string; requestId: string; expiresAt: string } }
  | { kind: 'SIGNED'; apply(tx: TenantTx): Promise<void>; undo(): Promise<void> };
type ContactChangeHook = (
  ctx: Ctx,
  change: { customer: { id: string; email: string | null; phoneNumber: string | null }; next: { email: string | null; phoneNumber: string | null }; body: unknown },
  headers: Record<string, string | string[] | undefined>,
) => Promise<ContactGate>;
let contactChangeHook: ContactChangeHook | undefined;
export function bindContactChange(hook: ContactChangeHook): void {
  contactChangeHook = hook;
}
export type ContactChallenge = Extract<ContactGate, { kind: 'CHALLENGE' }>;

/**
 * PATCH /customers/{id}: partial; null clears a field; `currencies` replaces the list and opens
 * the internal accounts it adds. A changed email or phone must be verified again; tied to embedded-wallet
 * OTP credentials, it is a signed retry first (ContactChallenge: 202). Errors: 400, 401 WALLET_SIGNATURE_*,
 * 404 USER_NOT_FOUND, 409 CONFLICT / UMA_ADDRESS_EXISTS / EMAIL_OTP_EMAIL_ALREADY_EXISTS /
 * EMAIL_OTP_CREDENTIAL_SET_CHANGED, 410 CUSTOMER_DELETED, 424 EMAIL_OTP_CREDENTIAL_SYNC_FAILED.
 */
export async function patchCustomer(ctx: Ctx, id: string, raw: unknown, headers: Record<string, string | string[] | undefined> = {}): Promise<CustomerView | ContactChallenge> {
  const existing = await getActiveCustomer(ctx, id);
  const platform = await getConfig(ctx);
  const base = asInput(existing);
  const typeErrors: FieldError[] = [];
  const body = parseCustomerInput(
    patchCustomerBody,
    raw,
    (patch) => {
      if (patch.customerType !== undefined && patch.customerType !== existing.customerType) {
        typeErrors.push({ field: 'customerType', message: `The customer is ${existing.customerType}; customerType cannot change.` });
      }
      return { ...applyPatch(base, { ...patch, customerType: undefined }), customerType: existing.customerType };
    },
    (m) => [...typeErrors, ...contextErrors(platform, m)],
  );
  const m = applyPatch(base, { ...body, customerType: undefined, endUserTermsConsent: consentToStore(ctx.config, body.endUserTermsConsent, ctx.clock.now()) }); // hook:25a
  const data = rowData(m);
  const now = ctx.clock.now();
  const required = requiresContactVerification(regionOf({ region: data.region, address: m.address }), platform.platform.scaRegion);
  const next = { email: data.email ?? null, phoneNumber: data.phoneNumber ?? null };
  const gate: ContactGate = contactChangeHook && (next.email !== existing.email || next.phoneNumber !== existing.phoneNumber)
    ? await contactChangeHook(ctx, { customer: existing, next, body: raw }, headers) // hook:28b
    : { kind: 'NONE' };
  if (gate.kind === 'CHALLENGE') return gate;
  try {
    await ctx.db.$transaction(async (tx) => {
      await assertUnique(tx, data, id);
      if (gate.kind === 'SIGNED') await gate.apply(tx); // hook:28b — the tied credentials change with the row
      // Releases first: the row's CHECK wants no channel state on a contact detail being removed.
      const plan = channelPlan(existing, required, data);
      for (const [channel, event] of plan.before) await moveChannel(ctx, tx, existing, channel, event, now);
      await tx.customer.update({ where: { platformId_id: { platformId: ctx.platformId, id } }, data: { ...data, updatedAt: now } as Prisma.CustomerUncheckedUpdateInput });
      for (const [channel, event] of plan.after) await moveChannel(ctx, tx, { ...existing, emailVerification: plan.states.email, phoneVerification: plan.states.phone }, channel, event, now);
      // A code sent to the old address or number must not verify the new one.
      const stale = [...(data.email !== existing.email ? ['EMAIL'] : []), ...(data.phoneNumber !== existing.phoneNumber ? ['PHONE'] : [])];
      if (stale.length) await tx.contactVerificationCode.deleteMany({ where: { customerId: id, channel: { in: stale } } });
      await openInternalAccounts(tx, ctx.platformId, id, data.currencies.filter((c) => !existing.currencies.includes(c)));
    });
  } catch (err) {
    if (gate.kind === 'SIGNED') await gate.undo(); // hook:28b — nothing half-written: the provider gets the old contact back
    if (err instanceof DomainError) throw err;
    mapUniqueViolation(err);
  }
  return getCustomer(ctx, id);
}

/** Which channel moves a PATCH causes: release / require with the region, reset on a changed detail. */
function channelPlan(c: Customer, required: boolean, next: { email: string | null; phoneNumber: string | null }) {
  const before: Array<[ContactChannel, ChannelEvent]> = [];
  const after: Array<[ContactChannel, ChannelEvent]> = [];
  const states: Record<ContactChannel, ChannelState> = { email: c.emailVerification as ChannelState, phone: c.phoneVerification as ChannelState };
  const changed = { email: next.email !== c.email, phone: next.phoneNumber !== c.phoneNumber };
  for (const ch of ['email', 'phone'] as const) {
    const state = states[ch];
    if (!required && state !== null) before.push([ch, 'release']);
    else if (required && state === null) after.push([ch, 'require']);
    else if (required && state === 'VERIFIED' && changed[ch]) after.push([ch, 'reset']);
  }
  return { before, after, states };
}

/** Where the customer lifecycles live: kycStatus/kybStatus, and one column per contact channel. */
const customerStatus = statusColumn(customerStatusMachine, 'customers', 'status', { notFound: customerNotFound });
const channelStatus = {
  email: statusColumn(contactChannelMachine, 'customers', 'email_verification', { machine: 'contact-channel.email' }),
  phone: statusColumn(contactChannelMachine, 'customers', 'phone_verification', { machine: 'contact-channel.phone' }),
} as const;
const CHANNEL_FIELD = { email: 'emailVerification', phone: 'phoneVerification' } as const;

/** A contact channel's move, through the channel machine (compare-and-set on its column), at `now`. */
export async function moveChannel(ctx: Ctx, tx: TenantTx, c: Customer, channel: ContactChannel, event: ChannelEvent, now: Date): Promise<ChannelState> {
  const moved = await transition(tx, ctx, channelStatus[channel], event, c.id, { from: c[CHANNEL_FIELD[channel]], set: { updatedAt: now } });
  return moved[CHANNEL_FIELD[channel]] as ChannelState;
}

/**
 * Moves kycStatus/kybStatus through the customer machine and records the matching CUSTOMER.*
 * event (full Customer) in the same transaction. Errors: 409 CONFLICT for an illegal move.
 */
export async function moveCustomerStatus(ctx: Ctx, tx: TenantTx, customer: Customer, event: CustomerEvent): Promise<Customer> {
  return transition(tx, ctx, customerStatus, event, customer.id, {
    from: customer.status,
    events: async (moved) => {
      const type = customerEventType(moved.customerType, moved.status as CustomerStatus);
      if (!type) return undefined;
      const owners = moved.customerType === 'BUSINESS' ? await tx.beneficialOwner.findMany({ where: { customerId: moved.id }, orderBy: { id: 'asc' } }) : [];
      return { type, data: customerResource({ customer: moved, owners }) };
    },
  });
}

/** DELETE /customers/{id}: soft delete. Errors: 404 USER_NOT_FOUND, 410 CUSTOMER_DELETED when already deleted. */
export async function deleteCustomer(ctx: Ctx, id: string): Promise<CustomerView> {
  const now = ctx.clock.now();
  const res = await ctx.db.customer.updateMany({ where: { id, isDeleted: false }, data: { isDeleted: true, deletedAt: now, updatedAt: now } });
  if (res.count === 0) {
    await getActiveCustomer(ctx, id); // 404 or 410
  }
  return getCustomer(ctx, id);
}

/** GET /customers: newest first, cursor pagination; deleted customers only with isIncludingDeleted. */
export async function listCustomers(ctx: Ctx, q: ListCustomersQuery): Promise<Page<CustomerView>> {
  const before = decodeCursor(q.cursor);
  const range = (after?: Date, until?: Date) => (after || until ? { ...(after ? { gte: after } : {}), ...(until ? { lte: until } : {}) } : undefined);
  const rows = await ctx.db.customer.findMany({
    where: {
      ...(q.isIncludingDeleted ? {} : { isDeleted: false }),
      ...(q.platformCustomerId ? { platformCustomerId: q.platformCustomerId } : {}),
      ...(q.search
        ? {
            OR: [
              { fullName: { contains: q.search, mode: 'insensitive' as const } },
              { email: { contains: q.search, mode: 'insensitive' as const } },
              { platformCustomerId: { contains: q.search, mode: 'insensitive' as const } },
              { businessInfo: { path: ['legalName'], string_contains: q.search, mode: 'insensitive' as const } },
            ],
          }
        : {}),
      ...(q.customerType ? { customerType: q.customerType } : {}),
      ...(q.status ? { status: q.status } : {}),
      ...(q.region ? { region: q.region } : {}),
      ...(q.currency ? { currencies: { has: q.currency } } : {}),
      ...(q.umaAddress ? { umaAddress: q.umaAddress } : {}),
      ...(range(q.createdAfter, q.createdBefore) ? { createdAt: range(q.createdAfter, q.createdBefore) } : {}),
      ...(range(q.updatedAfter, q.updatedBefore) ? { updatedAt: range(q.updatedAfter, q.updatedBefore) } : {}),
      ...(before ? { id: { lt: before } } : {}),
    },
    orderBy: { id: 'desc' },
    take: q.limit + 1,
  });
  const businessIds = rows.filter((r) => r.customerType === 'BUSINESS').map((r) => r.id);
  const owners = businessIds.length ? await ctx.db.beneficialOwner.findMany({ where: { customerId: { in: businessIds } }, orderBy: { id: 'asc' } }) : [];
  return toPage(rows, q.limit, (customer) => ({ customer, owners: owners.filter((o) => o.customerId === customer.id) }));
}
