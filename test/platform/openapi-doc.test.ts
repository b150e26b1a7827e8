import { describe, expect, it } from 'vitest';
import {
  apiBasePath,
  assertMatchesResponseSchema,
  listDocumentedOperationDetails,
  listDocumentedOperations,
  listRefs,
  loadOpenApi,
  matchTemplate,
  openApiAjv,
  resolveRef,
  validateAgainstComponent,
} from '../helpers/openapi.js';

describe('openapi.yaml', () => {
  it('parses as an OpenAPI 3.1 document with the versioned base path', () => {
    const doc = loadOpenApi();
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info?.version).toBe('2025-10-13');
    expect(apiBasePath()).toBe('/2025-10-13');
    expect(doc.components?.securitySchemes?.basicAuth).toMatchObject({ type: 'http', scheme: 'basic' });
  });

  it('resolves every $ref', () => {
    const refs = listRefs();
    expect(refs.length).toBeGreaterThan(0);
    const broken = refs.filter(({ ref }) => resolveRef(ref) === undefined);
    expect(broken).toEqual([]);
  });

  it('has only valid JSON Schema 2020-12 component schemas', () => {
    const ajv = openApiAjv();
    const invalid = Object.entries(loadOpenApi().components?.schemas ?? {}).filter(([, schema]) => !ajv.validateSchema(schema as object));
    expect(invalid.map(([name]) => name)).toEqual([]);
  });

  it('gives every operation a unique operationId and every authenticated one a 401 and a 500', () => {
    const ops = listDocumentedOperationDetails();
    expect(ops.length).toBeGreaterThan(0);
    const ids = ops.map((op) => op.operation.operationId);
    expect(ids.filter((id) => typeof id !== 'string' || id === '')).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const op of ops) {
      const statuses = Object.keys(op.operation.responses ?? {});
      expect(statuses, `${op.method} ${op.path}`).toContain('500');
      if (op.authenticated) expect(statuses, `${op.method} ${op.path}`).toContain('401');
    }
  });

  it('prefixes API paths with the base path and leaves operational paths unauthenticated at the root', () => {
    const ops = listDocumentedOperations();
    expect(ops).toContainEqual({ method: 'GET', path: '/2025-10-13/config' });
    expect(ops).toContainEqual({ method: 'PATCH', path: '/2025-10-13/config' });
    expect(ops).toContainEqual({ method: 'POST', path: '/2025-10-13/webhook-events/{eventId}/redeliver' });
    for (const path of ['/healthz', '/readyz', '/metrics', '/openapi.yaml', '/docs']) {
      expect(ops).toContainEqual({ method: 'GET', path });
    }
    const operational = listDocumentedOperationDetails().filter((op) => !op.path.startsWith('/2025-10-13/'));
    expect(operational.every((op) => !op.authenticated)).toBe(true);
    // Under the base path only pages proved by their own single-use token are public.
    const PUBLIC_API_PATHS = [/^\/2025-10-13\/hosted\//, /^\/2025-10-13\/sandbox\/liveness\//, /^\/2025-10-13\/agents\/device-codes\/\{code\}\/redeem$/, /^\/2025-10-13\/adapters\/\{adapterId\}\/webhooks$/, /^\/2025-10-13\/sandbox\/plaid\/link\//];
    const api = listDocumentedOperationDetails().filter((op) => op.path.startsWith('/2025-10-13/'));
    const unauthenticated = api.filter((op) => !op.authenticated).map((op) => `${op.method} ${op.path}`);
    expect(unauthenticated.filter((o) => !PUBLIC_API_PATHS.some((re) => re.test(o.split(' ')[1]!)))).toEqual([]);
  });

  it('maps concrete paths to their documented template', () => {
    expect(matchTemplate('GET', '/2025-10-13/webhook-events/Webhook:019a0c6e-4d1c-7b3e-9f5a-2b8c1d4e6f70')).toBe(
      '/2025-10-13/webhook-events/{eventId}',
    );
    expect(matchTemplate('post', '/2025-10-13/webhook-events/Webhook:x/redeliver?x=1')).toBe('/2025-10-13/webhook-events/{eventId}/redeliver');
    expect(matchTemplate('GET', '/2025-10-13/webhook-events')).toBe('/2025-10-13/webhook-events');
    expect(matchTemplate('GET', '/healthz')).toBe('/healthz');
    expect(matchTemplate('DELETE', '/2025-10-13/config')).toBeUndefined();
    expect(matchTemplate('GET', '/config')).toBeUndefined();
  });

  it('accepts a valid error body and rejects an invalid one', () => {
    const valid = {
      status: 400,
      code: 'INVALID_INPUT',
      message: 'Input is invalid.',
      details: { errors: [{ field: 'feeConfigs[0].variableFeeBps', constraint: { maximum: 10000 }, message: 'Too big.' }] },
    };
    expect(() => assertMatchesResponseSchema('PATCH', '/2025-10-13/config', 400, valid)).not.toThrow();
    expect(() => assertMatchesResponseSchema('GET', '/2025-10-13/webhook-events/{eventId}', 404, { status: 404, code: 'NOT_FOUND', message: 'No such event.' })).not.toThrow();
    expect(() => assertMatchesResponseSchema('PATCH', '/2025-10-13/config', 400, { status: '400', message: 'x' })).toThrow(/code|status/);
    expect(() => assertMatchesResponseSchema('PATCH', '/2025-10-13/config', 400, { ...valid, details: { errors: [{ message: 'no field' }] } })).toThrow(
      /field/,
    );
  });

  it('validates success bodies, including oneOf fee configs and nullable fields', () => {
    const now = '2025-10-13T12:00:00.000Z';
    const config = {
      id: 'PlatformConfig:019a0c6e-4d1c-7b3e-9f5a-2b8c1d4e6f70',
      name: 'Acme',
      isRegulatedFinancialInstitution: false,
      supportedCurrencies: [
        { currencyCode: 'USD', minAmount: 1, maxAmount: 1_000_000, requiredCounterpartyFields: [{ name: 'FULL_NAME', mandatory: true }], enabledTransactionTypes: ['OUTGOING'] },
      ],
      feeConfigs: [
        { id: 'FeeConfig:1', feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: 30, fixedFee: { amount: 50, currency: 'USD' }, createdAt: now, updatedAt: now },
        { id: 'FeeConfig:2', feeType: 'RAIL', rail: 'ACH', direction: 'OUT', originator: 'SVC', variableFeeBps: 0, fixedFee: { amount: 25, currency: 'USD' }, createdAt: now, updatedAt: now },
      ],
      webhookPublicKey: '-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----\n',
      environment: 'SANDBOX',
      createdAt: now,
      updatedAt: now,
    };
    expect(() => assertMatchesResponseSchema('GET', '/2025-10-13/config', 200, config)).not.toThrow();
    const badRail = { ...config, feeConfigs: [{ ...config.feeConfigs[1], rail: 'SEPA' }] };
    expect(() => assertMatchesResponseSchema('GET', '/2025-10-13/config', 200, badRail)).toThrow();
    expect(() => assertMatchesResponseSchema('GET', '/2025-10-13/config', 200, { ...config, environment: 'DEV' })).toThrow(/environment/);

    const event = {
      id: 'Webhook:019a0c6e-4d1c-7b3e-9f5a-2b8c1d4e6f70',
      type: 'TEST',
      timestamp: now,
      data: {},
      deliveryStatus: 'FAILED',
      attemptCount: 1,
      lastAttemptAt: now,
      nextAttemptAt: now,
      deliveredAt: null,
      attempts: [{ attemptedAt: now, url: 'https://example.com/hook', httpStatus: null, latencyMs: 10000, outcome: 'TIMEOUT', error: 'timed out' }],
    };
    expect(() => assertMatchesResponseSchema('GET', '/2025-10-13/webhook-events', 200, { data: [event], hasMore: false })).not.toThrow();
    expect(() => assertMatchesResponseSchema('POST', '/2025-10-13/webhook-events/Webhook:abc/redeliver', 202, event)).not.toThrow();
    expect(() => assertMatchesResponseSchema('GET', '/2025-10-13/webhook-events', 200, { data: [event] })).toThrow(/hasMore/);
    expect(() => assertMatchesResponseSchema('GET', '/readyz', 503, { status: 'error', checks: { postgres: 'ok', redis: 'error' } })).not.toThrow();
    expect(() => assertMatchesResponseSchema('POST', '/2025-10-13/sandbox/webhooks/test', 200, { url: 'https://example.com/hook', response_status: 200, response_body: '' })).not.toThrow();
    expect(validateAgainstComponent('CurrencyAmount', { amount: 100, currency: { code: 'USD', name: 'US Dollar', symbol: '$', decimals: 2 } })).toEqual([]);
    expect(validateAgainstComponent('CurrencyAmount', { amount: 1.5, currency: { code: 'USD', name: 'US Dollar', symbol: '$', decimals: 2 } })).not.toEqual([]);
  });

  it('refuses undocumented operations and statuses', () => {
    expect(() => assertMatchesResponseSchema('DELETE', '/2025-10-13/config', 200, {})).toThrow(/no operation/);
    expect(() => assertMatchesResponseSchema('GET', '/2025-10-13/config', 418, {})).toThrow(/no 418 response/);
  });
});
