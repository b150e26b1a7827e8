/**
 * Tenant isolation. Statically: every model except GLOBAL_MODELS and Platform carries a required
 * `platformId`, so a new module cannot add a table that tenantDb (src/platform/db.ts) cannot scope.
 * Behaviourally: one platform's API calls and scoped client never see or change another's rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectDatamodel, type DmmfModel } from '../helpers/dmmf.js';
import { GLOBAL_MODELS, Prisma, tenantDb } from '../../src/platform/db.js';
import { newUuid } from '../../src/platform/ids.js';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';

/** The model tenantDb scopes by its own id rather than by platformId. */
const PLATFORM_MODEL = 'Platform';

/** Models that tenantDb would scope by a `platformId` they do not have (or do not always have). */
function unscopedModels(models: DmmfModel[]): string[] {
  const problems: string[] = [];
  for (const m of models) {
    if (GLOBAL_MODELS.has(m.name) || m.name === PLATFORM_MODEL) continue;
    const f = m.fields.find((x) => x.name === 'platformId');
    if (!f) problems.push(`${m.name}: no platformId field (add a required platformId String, or list the model in GLOBAL_MODELS in src/platform/db.ts if it truly belongs to no platform)`);
    else if (f.kind !== 'scalar' || f.type !== 'String' || f.isList) problems.push(`${m.name}.platformId: must be a scalar String, is ${f.kind} ${f.type}${f.isList ? '[]' : ''}`);
    else if (!f.isRequired) problems.push(`${m.name}.platformId: is optional (String?); rows without a platform would escape tenant scoping`);
  }
  return problems;
}

const models = projectDatamodel().models;

describe('every tenant-owned model carries a required platformId', () => {
  it('holds for the Prisma schema', () => {
    const problems = unscopedModels(models);
    expect(problems, `models that escape tenant scoping:\n  ${problems.join('\n  ')}`).toEqual([]);
  });

  it('GLOBAL_MODELS and Platform name real models (a stale name would silently exempt a future model)', () => {
    const names = new Set(models.map((m) => m.name));
    const unknown = [...GLOBAL_MODELS, PLATFORM_MODEL].filter((n) => !names.has(n));
    expect(unknown, `not models of the Prisma schema: ${unknown.join(', ')}`).toEqual([]);
  });

  it('the check reports an offending model (guards against a test that cannot fail)', () => {
    const scoped = models.find((m) => !GLOBAL_MODELS.has(m.name) && m.name !== PLATFORM_MODEL);
    expect(scoped).toBeDefined();
    const without = { ...scoped!, name: 'NewModuleTable', fields: scoped!.fields.filter((f) => f.name !== 'platformId') };
    const optional = { ...scoped!, name: 'OptionalTenant', fields: scoped!.fields.map((f) => (f.name === 'platformId' ? { ...f, isRequired: false } : f)) };
    const problems = unscopedModels([...models, without, optional]);
    expect(problems).toEqual([expect.stringMatching(/^NewModuleTable: no platformId field/), expect.stringMatching(/^OptionalTenant\.platformId: is optional/)]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('platforms are isolated from each other', () => {
  let env: TestEnv;
  let pA: TestPlatform;
  let pB: TestPlatform;

  beforeAll(async () => {
    env = await createTestEnv();
    pA = await env.platform();
    pB = await env.platform();
  });
  afterAll(() => env?.close());

  it('PATCH /config of one platform leaves the other platform’s config unchanged', async () => {
    const beforeB = await pB.request({ method: 'GET', url: '/config' });
    expect(beforeB.statusCode).toBe(200);

    const patched = await pA.request({ method: 'PATCH', url: '/config', payload: { umaDomain: 'a.example.com' } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().umaDomain).toBe('a.example.com');

    const afterA = await pA.request({ method: 'GET', url: '/config' });
    expect(afterA.json().umaDomain).toBe('a.example.com');
    const afterB = await pB.request({ method: 'GET', url: '/config' });
    expect(afterB.statusCode).toBe(200);
    expect(afterB.json().umaDomain).not.toBe('a.example.com');
    expect(afterB.json()).toEqual(beforeB.json());
  });

  describe('tenantDb', () => {
    const idA = newUuid();
    const idB = newUuid();
    // tenantDb supplies platformId; the generated input type still lists it.
    const event = (id: string) => ({ id, type: 'TEST', data: {} }) as Prisma.WebhookEventUncheckedCreateInput;
    const raw = () => env.deps.prisma;
    const dbA = () => tenantDb(env.deps.prisma, pA.platformId);

    beforeAll(async () => {
      await tenantDb(env.deps.prisma, pA.platformId).webhookEvent.create({ data: event(idA) });
      await tenantDb(env.deps.prisma, pB.platformId).webhookEvent.create({ data: event(idB) });
    });

    it('create stamps the scoped platform on the row', async () => {
      expect((await raw().webhookEvent.findFirstOrThrow({ where: { id: idA } })).platformId).toBe(pA.platformId);
      expect((await raw().webhookEvent.findFirstOrThrow({ where: { id: idB } })).platformId).toBe(pB.platformId);
    });

    it('findMany returns only the scoped platform’s rows', async () => {
      const rows = await dbA().webhookEvent.findMany();
      expect(rows.map((r) => r.id)).toContain(idA);
      expect(rows.map((r) => r.id)).not.toContain(idB);
      expect(rows.filter((r) => r.platformId !== pA.platformId)).toEqual([]);
      expect(await dbA().webhookEvent.count({ where: { id: idB } })).toBe(0);
      expect(await dbA().platform.findMany()).toEqual([expect.objectContaining({ id: pA.platformId })]);
    });

    it('findUnique / findFirst of the other platform’s id return null', async () => {
      expect(await dbA().webhookEvent.findUnique({ where: { platformId_id: { platformId: pB.platformId, id: idB } } })).toBeNull();
      expect(await dbA().webhookEvent.findFirst({ where: { id: idB } })).toBeNull();
      expect(await dbA().webhookEvent.findFirst({ where: { id: idA } })).toMatchObject({ id: idA });
    });

    it('update / delete / upsert of the other platform’s row fail and leave it as it was', async () => {
      const before = await raw().webhookEvent.findFirstOrThrow({ where: { id: idB } });
      const keyB = { platformId_id: { platformId: pB.platformId, id: idB } };
      await expect(dbA().webhookEvent.update({ where: keyB, data: { lastError: 'hijacked' } })).rejects.toMatchObject({ code: 'P2025' });
      await expect(dbA().webhookEvent.delete({ where: keyB })).rejects.toMatchObject({ code: 'P2025' });
      // Not in A's scope: upsert must neither update B's row nor hand it back. Keys name the platform
      // (issue 29), so at most it writes a row of A's own; an error would be as acceptable.
      const up = await dbA()
        .webhookEvent.upsert({ where: keyB, create: event(newUuid()), update: { lastError: 'hijacked' } })
        .catch((e: unknown) => e);
      expect(up === null || up instanceof Error || (up as { platformId?: string }).platformId === pA.platformId, `upsert through A returned ${JSON.stringify(up)}`).toBe(true);
      expect(await raw().webhookEvent.findFirstOrThrow({ where: { id: idB } })).toEqual(before);
    });

    it('updateMany / deleteMany affect none of the other platform’s rows', async () => {
      const before = await raw().webhookEvent.findFirstOrThrow({ where: { id: idB } });
      expect(await dbA().webhookEvent.updateMany({ where: { id: idB }, data: { lastError: 'hijacked' } })).toEqual({ count: 0 });
      expect(await dbA().webhookEvent.deleteMany({ where: { id: idB } })).toEqual({ count: 0 });
      // Unfiltered: touches A's rows only.
      const ownA = await raw().webhookEvent.count({ where: { platformId: pA.platformId } });
      expect(ownA).toBeGreaterThan(0);
      expect(await dbA().webhookEvent.updateMany({ data: { lastError: 'mine' } })).toEqual({ count: ownA });
      expect(await raw().webhookEvent.findFirstOrThrow({ where: { id: idB } })).toEqual(before);
      const extra = newUuid();
      await dbA().webhookEvent.create({ data: event(extra) });
      expect(await dbA().webhookEvent.deleteMany({ where: { id: { in: [extra, idB] } } })).toEqual({ count: 1 });
      expect(await raw().webhookEvent.findFirst({ where: { id: idB } })).toEqual(before);
    });

    it('scoping still applies inside $transaction', async () => {
      const created = newUuid();
      const bBefore = await raw().webhookEvent.findFirstOrThrow({ where: { id: idB } });
      await dbA().$transaction(async (tx) => {
        const rows = await tx.webhookEvent.findMany();
        expect(rows.map((r) => r.id)).toContain(idA);
        expect(rows.filter((r) => r.platformId !== pA.platformId)).toEqual([]);
        expect(await tx.webhookEvent.findFirst({ where: { id: idB } })).toBeNull();
        expect(await tx.webhookEvent.updateMany({ where: { id: idB }, data: { lastError: 'hijacked' } })).toEqual({ count: 0 });
        await tx.webhookEvent.create({ data: event(created) });
      });
      expect((await raw().webhookEvent.findFirstOrThrow({ where: { id: created } })).platformId).toBe(pA.platformId);
      expect(await raw().webhookEvent.findFirstOrThrow({ where: { id: idB } })).toEqual(bBefore);
    });
  });
});
