import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { newId } from '../../src/platform/ids.js';
import type { TestEnv, TestPlatform } from '../helpers/app.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';

/** Builders and assertions shared by the external-account suites. */

export const BASE = '/2025-10-13';

export interface CustomerOverrides {
  customerType?: 'INDIVIDUAL' | 'BUSINESS';
  fullName?: string;
  legalName?: string;
  region?: string | null;
  country?: string;
}

/** A customer row straight in the database (the customers API is another module's). */
export async function aCustomer(env: TestEnv, p: TestPlatform, o: CustomerOverrides = {}): Promise<string> {
  const id = newId('Customer');
  const business = o.customerType === 'BUSINESS';
  await env.deps.prisma.customer.create({
    data: {
      id,
      platformId: p.platformId,
      platformCustomerId: `pc-${randomBytes(4).toString('hex')}`,
      customerType: business ? 'BUSINESS' : 'INDIVIDUAL',
      status: 'APPROVED',
      region: o.region ?? null,
      umaAddress: `$u${randomBytes(4).toString('hex')}@example.com`,
      fullName: business ? null : (o.fullName ?? 'Ada Lovelace'),
      address: { line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: o.country ?? 'US' },
      businessInfo: business ? { legalName: o.legalName ?? 'Acme Ltd', country: o.country ?? 'US', taxId: '12-3456789', incorporatedOn: '2020-01-01' } : undefined,
    },
  });
  return id;
}

export async function deleteCustomer(env: TestEnv, id: string): Promise<void> {
  await env.deps.prisma.customer.updateMany({ where: { id }, data: { isDeleted: true, deletedAt: new Date() } });
}

export const ITEM = `${BASE}/customers/external-accounts/{externalAccountId}`;
export const PLATFORM_ITEM = `${BASE}/platform/external-accounts/{externalAccountId}`;

/** Asserts status and, for JSON answers, that the body is what openapi.yaml documents for it. */
export function expectStatus(res: LightMyRequestResponse, status: number, method: string, path: string): any {
  if (res.statusCode !== status) throw new Error(`expected ${status}, got ${res.statusCode}: ${res.body}`);
  const body = res.body ? res.json() : undefined;
  assertMatchesResponseSchema(method, path, status, body);
  return body;
}

/** A 400/404/409 body and its `details.errors[].field` list. */
export function errorOf(res: LightMyRequestResponse, status: number, code: string): { fields: string[]; body: any } {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  expect(body).toMatchObject({ status, code });
  expect(typeof body.message).toBe('string');
  return { fields: (body.details?.errors ?? []).map((e: { field: string }) => e.field), body };
}

export async function createAccount(p: TestPlatform, payload: Record<string, unknown>, scope: 'customers' | 'platform' = 'customers') {
  return p.request({ method: 'POST', url: `/${scope}/external-accounts`, payload });
}
