import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/app.js';
import { ctxFor } from '../../src/deps.js';
import { contactChannelMachine, CUSTOMER_STATUSES, customerStatusMachine, ownerStatusMachine } from '../../src/domains/customers/customers.model.js';
import { canTransition, IllegalTransitionError, type Lifecycle } from '../../src/platform/state-machine.js';
import { moveCustomerStatus } from '../../src/domains/customers/customers.service.js';
import { VERIFICATION_STATUSES, verificationMachine } from '../../src/domains/verification/verification.model.js';
import { anIndividual, createCustomer } from './helpers.js';

const SQL = readFileSync(new URL('../../prisma/migrations/20261122020000_customers/migration.sql', import.meta.url), 'utf8');

/** The "from>to" pairs a guard trigger allows, read from the migration. */
function guardPairs(trigger: string): string[] {
  const m = SQL.match(new RegExp(`"${trigger}"[\\s\\S]*?onboarding_guard_status\\('[a-z_]+', '\\{([^}]*)\\}'\\)`));
  if (!m) throw new Error(`no guard ${trigger}`);
  return m[1]!.split(',').sort();
}

/** The table's moves as the triggers spell them: the absent status (a NULL column) is `-`. */
function tablePairs(machine: Lifecycle): string[] {
  const name = (s: string) => (s === machine.absent ? '-' : s);
  return Object.values(machine.transitions)
    .flatMap((t) => t.from.map((f) => `${name(f)}>${name(t.to)}`))
    .sort();
}

describe('state machines are declared once and enforced twice', () => {
  it('the database guards allow exactly the moves of the TypeScript transition tables', () => {
    expect(guardPairs('customers_status_guard')).toEqual(tablePairs(customerStatusMachine));
    expect(guardPairs('customers_email_verification_guard')).toEqual(tablePairs(contactChannelMachine));
    expect(guardPairs('customers_phone_verification_guard')).toEqual(tablePairs(contactChannelMachine));
    expect(guardPairs('beneficial_owners_kyc_status_guard')).toEqual(tablePairs(ownerStatusMachine));
    expect(guardPairs('verifications_status_guard')).toEqual(tablePairs(verificationMachine));
  });

  it('every customer event against every status: only the table moves are allowed; APPROVED and REJECTED are final', () => {
    const allowed: string[] = [];
    for (const [event, t] of Object.entries(customerStatusMachine.transitions)) {
      for (const s of CUSTOMER_STATUSES) if (canTransition(customerStatusMachine, event as any, s)) allowed.push(`${event}:${s}>${t.to}`);
    }
    expect(allowed.sort()).toEqual(['approve:PENDING>APPROVED', 'hold:PENDING>HOLD', 'reject:PENDING>REJECTED', 'submit:HOLD>PENDING', 'submit:UNVERIFIED>PENDING']);
  });

  it('every verification event against every status: RESOLVE_ERRORS, APPROVED and REJECTED are final', () => {
    for (const s of ['RESOLVE_ERRORS', 'APPROVED', 'REJECTED'] as const) {
      for (const e of Object.keys(verificationMachine.transitions)) expect(canTransition(verificationMachine, e as any, s), `${e} from ${s}`).toBe(false);
    }
    const open = VERIFICATION_STATUSES.filter((s) => Object.keys(verificationMachine.transitions).some((e) => canTransition(verificationMachine, e as any, s)));
    expect(open).toEqual(['IN_PROGRESS', 'PENDING_MANUAL_REVIEW']);
  });
});

describe('illegal moves cannot be written', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(() => env.close());

  it('transition() refuses an illegal move with 409 and writes nothing (no status, no event)', async () => {
    const p = await env.platform();
    const c = await createCustomer(p, anIndividual());
    const ctx = ctxFor(env.deps, p.platformId);
    const row = await ctx.db.customer.findFirstOrThrow({ where: { id: c.id } });
    await expect(ctx.db.$transaction((tx) => moveCustomerStatus(ctx, tx, row, 'reject'))).rejects.toBeInstanceOf(IllegalTransitionError);
    expect((await ctx.db.customer.findFirstOrThrow({ where: { id: c.id } })).status).toBe('APPROVED');
    expect(await ctx.db.webhookEvent.count()).toBe(0);
  });

  it('a lost race (the row moved meanwhile) is the same 409', async () => {
    const p = await env.platform();
    const c = await createCustomer(p, anIndividual({ fullName: 'Race Condition003' }));
    const ctx = ctxFor(env.deps, p.platformId);
    const stale = await ctx.db.customer.findFirstOrThrow({ where: { id: c.id } });
    await ctx.db.$transaction((tx) => moveCustomerStatus(ctx, tx, stale, 'submit'));
    // The stale read says UNVERIFIED, where submit is allowed: only the compare-and-set sees the row moved.
    await expect(ctx.db.$transaction((tx) => moveCustomerStatus(ctx, tx, stale, 'submit'))).rejects.toBeInstanceOf(IllegalTransitionError);
    expect(await ctx.db.webhookEvent.count({ where: { type: 'CUSTOMER.KYC_PENDING' } })).toBe(1);
  });

  it('the database refuses an illegal status written by hand', async () => {
    const p = await env.platform();
    const c = await createCustomer(p, anIndividual());
    await expect(env.deps.prisma.$executeRaw`UPDATE customers SET status = 'UNVERIFIED' WHERE id = ${c.id}`).rejects.toThrow(/cannot move from APPROVED to UNVERIFIED/);
    await expect(env.deps.prisma.$executeRaw`UPDATE customers SET email_verification = 'VERIFIED' WHERE id = ${c.id}`).rejects.toThrow();
  });
});

describe('the sandbox provider outside sandbox (decision A2)', () => {
  it('decides nothing by magic values: cases go to manual review and wait there', async () => {
    const { sandboxKycProvider } = await import('../../src/adapters/kyc/sandbox/index.js');
    const prod = sandboxKycProvider('http://x', '/2025-10-13', false);
    const c = { caseId: 'Verification:1', customerId: 'Customer:1', customerType: 'INDIVIDUAL' as const, name: 'Any Name', owners: [], reviewed: false, previousHolds: 0 };
    expect(await prod.decide(c)).toEqual({ status: 'MANUAL_REVIEW' });
    expect(await prod.decide({ ...c, reviewed: true })).toEqual({ status: 'PENDING' });
    const sandbox = sandboxKycProvider('http://x', '/2025-10-13', true);
    expect(await sandbox.decide(c)).toEqual({ status: 'APPROVED' });
    expect(await sandbox.decide({ ...c, name: 'X Rejected005' })).toMatchObject({ status: 'REJECTED' });
  });
});
