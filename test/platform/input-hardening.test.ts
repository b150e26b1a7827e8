import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { anApprovedCustomer } from '../helpers/builders.js';
import { createPrisma, poolOf, query } from '../../src/platform/db.js';

/**
 * Issue 11 item 4: characters Postgres cannot store are refused at the edge (400 INVALID_INPUT naming
 * the field), broken multipart is a 4xx, and every error the framework or Node's HTTP parser raises
 * carries the spec body `{status, code, message, details?}` and an X-Request-Id.
 */
let env: TestEnv;
let p: TestPlatform;
let customerId: string;

beforeAll(async () => {
  env = await createTestEnv();
  p = await env.platform();
  customerId = (await anApprovedCustomer(env, p, ['USD'])).customerId;
});
afterAll(() => env.close());

type Res = { statusCode: number; body: string; headers: Record<string, unknown>; json(): any };

function expectError(res: Res, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  expect(Object.keys(body).filter((k) => !['status', 'code', 'message', 'details'].includes(k))).toEqual([]);
  expect(body).toMatchObject({ status, code, message: expect.any(String) });
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['x-request-id']).toBeTruthy();
  return body;
}

const fields = (body: any) => (body.details?.errors ?? []).map((e: any) => e.field);

describe('text Postgres cannot store', () => {
  it('a NUL in a path id is 400 INVALID_INPUT naming the parameter, on reads and writes', async () => {
    expect(fields(expectError(await p.request({ method: 'GET', url: '/customers/%00' }), 400, 'INVALID_INPUT'))).toEqual(['customerId']);
    expect(fields(expectError(await p.request({ method: 'GET', url: '/customers/abc%00def' }), 400, 'INVALID_INPUT'))).toEqual(['customerId']);
    expect(fields(expectError(await p.request({ method: 'POST', url: '/quotes/%00/execute' }), 400, 'INVALID_INPUT'))).toEqual(['quoteId']);
    expect(fields(expectError(await p.request({ method: 'DELETE', url: '/customers/%00' }), 400, 'INVALID_INPUT'))).toEqual(['customerId']);
    expect(fields(expectError(await p.request({ method: 'POST', url: '/transactions/%00/cancel' }), 400, 'INVALID_INPUT'))).toEqual(['transactionId']);
  });

  it('a NUL in a query value (or name) is 400 naming the query parameter', async () => {
    expect(fields(expectError(await p.request({ method: 'GET', url: '/customers?platformCustomerId=%00' }), 400, 'INVALID_INPUT'))).toEqual(['platformCustomerId']);
    expect(fields(expectError(await p.request({ method: 'GET', url: '/transactions?reference=a%00&limit=5' }), 400, 'INVALID_INPUT'))).toEqual(['reference']);
    expect(fields(expectError(await p.request({ method: 'GET', url: '/customers?cursor=%00' }), 400, 'INVALID_INPUT'))).toEqual(['cursor']);
    expectError(await p.request({ method: 'GET', url: '/customers?%00=1' }), 400, 'INVALID_INPUT');
  });

  it('NUL bytes (raw or as \\u0000) and unpaired surrogates in a JSON body are 400 naming the dot path; nothing is written', async () => {
    const before = await env.deps.prisma.customer.count();
    const base = { customerType: 'INDIVIDUAL', platformCustomerId: 'pc-nul', fullName: 'Ada Lovelace' };
    let body = expectError(await p.request({ method: 'POST', url: '/customers', payload: { ...base, fullName: 'Ada\u0000Lovelace' } }), 400, 'INVALID_INPUT');
    expect(fields(body)).toEqual(['fullName']);
    body = expectError(
      await p.request({ method: 'POST', url: '/customers', headers: { 'content-type': 'application/json' }, payload: '{"customerType":"INDIVIDUAL","platformCustomerId":"pc","address":{"line1":"1 Main\\u0000St"}}' }),
      400,
      'INVALID_INPUT',
    );
    expect(fields(body)).toEqual(['address.line1']);
    body = expectError(
      await p.request({ method: 'POST', url: '/customers', headers: { 'content-type': 'application/json' }, payload: '{"customerType":"INDIVIDUAL","platformCustomerId":"pc","tags":["ok","\\ud800"]}' }),
      400,
      'INVALID_INPUT',
    );
    expect(fields(body)).toEqual(['tags[1]']);
    body = expectError(await p.request({ method: 'PATCH', url: `/customers/${customerId}`, headers: { 'content-type': 'application/json' }, payload: '{"a\\u0000b":1}' }), 400, 'INVALID_INPUT');
    expect(fields(body)).toHaveLength(1);
    expect(await env.deps.prisma.customer.count()).toBe(before);
  });

  it('with an Idempotency-Key, the refusal happens before the key is claimed', async () => {
    const res = await p.request({ method: 'POST', url: '/customers', headers: { 'idempotency-key': 'nul-1' }, payload: { customerType: 'INDIVIDUAL', platformCustomerId: 'x\u0000' } });
    expectError(res, 400, 'INVALID_INPUT');
    expect(await env.deps.prisma.idempotencyRecord.count({ where: { key: 'nul-1' } })).toBe(0);
  });

  it('a body nested absurdly deep is 400, not a stack overflow', async () => {
    const deep = '{"a":'.repeat(2000) + '1' + '}'.repeat(2000);
    expectError(await p.request({ method: 'PATCH', url: `/customers/${customerId}`, headers: { 'content-type': 'application/json' }, payload: deep }), 400, 'INVALID_INPUT');
  });

  it('Basic credentials that decode to NUL bytes are 401, not a database error', async () => {
    const auth = `Basic ${Buffer.from('\u0000id:\u0000secret').toString('base64')}`;
    expectError(await env.app.inject({ method: 'GET', url: `${BASE}/customers`, headers: { authorization: auth } }), 401, 'UNAUTHORIZED');
  });
});

describe('malformed multipart on POST /documents and PUT /documents/{id}', () => {
  const boundary = '----svcboundary';
  const part = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const filePart = (name: string, filename: string, bytes = 'not really a png') =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: image/png\r\n\r\n${bytes}\r\n`;
  const valid = () => part('documentHolder', customerId) + part('documentType', 'PASSPORT') + part('country', 'US');
  const send = (payload: string | Buffer, contentType = `multipart/form-data; boundary=${boundary}`, method: 'POST' | 'PUT' = 'POST', url = '/documents') =>
    p.request({ method, url, headers: { 'content-type': contentType }, payload });

  it('no boundary, an empty or over-long boundary, a body cut short or not multipart at all: 400 naming the body', async () => {
    const whole = valid() + filePart('file', 'id.png') + `--${boundary}--\r\n`;
    for (const [contentType, payload] of [
      ['multipart/form-data', whole],
      ['multipart/form-data; boundary=', whole],
      [`multipart/form-data; boundary=${'b'.repeat(300)}`, whole],
      [`multipart/form-data; boundary=${boundary}`, whole.slice(0, 120)],
      [`multipart/form-data; boundary=${boundary}`, 'garbage with no parts at all'],
    ] as const) {
      for (const [method, url] of [['POST', '/documents'], ['PUT', '/documents/Document:00000000-0000-0000-0000-000000000000']] as const) {
        const body = expectError(await send(payload, contentType, method, url), 400, 'INVALID_INPUT');
        expect(fields(body), `${method} ${contentType} ${payload.length}`).toEqual(['(body)']);
      }
    }
  });

  it('a NUL in a field or the file name is 400 naming it', async () => {
    let body = expectError(await send(valid() + part('documentNumber', 'X\u00001') + filePart('file', 'id.png') + `--${boundary}--\r\n`), 400, 'INVALID_INPUT');
    expect(fields(body)).toEqual(['documentNumber']);
    body = expectError(await send(valid() + filePart('file', 'id\u0000.png') + `--${boundary}--\r\n`), 400, 'INVALID_INPUT');
    expect(fields(body)).toEqual(['file']);
  });

  it('wrong part types: the file in another part, two files, a field too long, too many parts', async () => {
    expect(fields(expectError(await send(valid() + filePart('document', 'id.png') + `--${boundary}--\r\n`), 400, 'INVALID_INPUT'))).toEqual(['document']);
    expect(fields(expectError(await send(valid() + filePart('file', 'a.png') + filePart('file', 'b.png') + `--${boundary}--\r\n`), 400, 'INVALID_INPUT'))).toEqual(['file']);
    expect(fields(expectError(await send(valid() + part('issuingAuthority', 'x'.repeat(5000)) + `--${boundary}--\r\n`), 400, 'INVALID_INPUT'))).toEqual(['issuingAuthority']);
    expectError(await send(valid() + Array.from({ length: 20 }, (_, i) => part(`f${i}`, 'x')).join('') + `--${boundary}--\r\n`), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('JSON where multipart is required is 415', async () => {
    expectError(await p.request({ method: 'POST', url: '/documents', payload: { documentHolder: customerId } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('errors the framework raises itself', () => {
  it('a URL that is not valid percent-encoded UTF-8 is 400 INVALID_INPUT with a request id', async () => {
    for (const url of [`${BASE}/customers/%E0%A4%A`, `${BASE}/customers/%FF`, `${BASE}/customers/%`]) {
      const res = await env.app.inject({ method: 'GET', url, headers: { authorization: p.auth, 'x-request-id': 'trace-bad-url' } });
      const body = expectError(res, 400, 'INVALID_INPUT');
      expect(fields(body)).toEqual(['(url)']);
      expect(res.headers['x-request-id']).toBe('trace-bad-url');
    }
  });

  it('a path parameter over 500 characters is 414 URI_TOO_LONG with a request id; 400 characters still route', async () => {
    expectError(await p.request({ method: 'GET', url: `/customers/${'x'.repeat(501)}` }), 414, 'URI_TOO_LONG');
    expectError(await env.app.inject({ method: 'GET', url: `${BASE}/customers/${'x'.repeat(600)}` }), 414, 'URI_TOO_LONG');
    // Routed: the route's own validation answers (customer ids are at most 200 characters).
    expect(fields(expectError(await p.request({ method: 'GET', url: `/customers/${'x'.repeat(400)}` }), 400, 'INVALID_INPUT'))).toEqual(['customerId']);
  });

  it('a Content-Length that does not match the body is 400', async () => {
    const res = await p.request({ method: 'PATCH', url: `/customers/${customerId}`, headers: { 'content-type': 'application/json', 'content-length': '50' }, payload: '{"fullName":"x"}' });
    expectError(res, 400, 'INVALID_INPUT');
  });

  it('unknown routes, other methods, broken JSON and other content types keep the same body', async () => {
    expectError(await p.request({ method: 'GET', url: '/nope' }), 404, 'NOT_FOUND');
    expectError(await p.request({ method: 'PUT', url: '/customers' }), 405, 'METHOD_NOT_ALLOWED');
    expectError(await p.request({ method: 'POST', url: '/customers', headers: { 'content-type': 'application/json' }, payload: '{"a":' }), 400, 'INVALID_INPUT');
    expectError(await p.request({ method: 'POST', url: '/customers', headers: { 'content-type': 'text/csv' }, payload: 'a,b' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await p.request({ method: 'POST', url: '/customers', headers: { 'content-type': 'application/json' }, payload: '{"__proto__":{"x":1}}' }), 400, 'INVALID_INPUT');
  });

  describe('over a real socket (Node answers these before Fastify sees a request)', () => {
    let port: number;
    beforeAll(async () => {
      await env.app.listen({ port: 0, host: '127.0.0.1' });
      port = (env.app.server.address() as AddressInfo).port;
    });

    function raw(request: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
      return new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let data = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk) => (data += chunk));
        socket.on('error', reject);
        socket.on('close', () => {
          const [head = '', body = ''] = data.split('\r\n\r\n');
          const [statusLine = '', ...lines] = head.split('\r\n');
          const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
          resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
        });
        // Not end(): a half-closed socket is dropped before the answer; the server closes it (Connection: close).
        socket.write(request);
      });
    }

    function expectRawError(res: { status: number; headers: Record<string, string>; body: string }, status: number, code: string) {
      expect(res.status, res.body).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['x-request-id']).toMatch(/^req_/);
      expect(JSON.parse(res.body)).toEqual({ status, code, message: expect.any(String) });
    }

    it('headers too large: 431 in the spec body with a request id', async () => {
      const res = await raw(`GET ${BASE}/customers HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      expectRawError(res, 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE');
    });

    it('a request Node cannot parse (bad request line, invalid Content-Length): 400 in the spec body', async () => {
      expectRawError(await raw('NOT A REQUEST\r\n\r\n'), 400, 'INVALID_INPUT');
      expectRawError(await raw(`POST ${BASE}/customers HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n`), 400, 'INVALID_INPUT');
    });

    it('a NUL in a path id over a real socket is 400 naming the parameter', async () => {
      const res = await raw(`GET ${BASE}/customers/%00 HTTP/1.1\r\nHost: x\r\nAuthorization: ${p.auth}\r\nConnection: close\r\n\r\n`);
      expect(res.status).toBe(400);
      expect(res.headers['x-request-id']).toBeTruthy();
      expect(JSON.parse(res.body)).toMatchObject({ status: 400, code: 'INVALID_INPUT', details: { errors: [{ field: 'customerId' }] } });
    });
  });
});

describe('a pool with no connection free', () => {
  it('is 503 SERVICE_UNAVAILABLE with Retry-After once the bounded wait is over, for raw statements and Prisma alike', async () => {
    // One connection, taken and held by another caller for the whole test: every request must wait
    // for it, and the wait ends at DATABASE_TX_MAX_WAIT_MS (here 200 ms) instead of never.
    const busyDb = createPrisma(env.config.DATABASE_URL, { poolMax: 1, txMaxWaitMs: 200 });
    const held = await poolOf(busyDb).connect();
    const busy = await createTestEnv({}, {
      extend: (app) => {
        app.get('/db-hot', async () => (await query(poolOf(busyDb), 'SELECT 1 AS one', [])).rows);
        app.get('/db-raw', async () => busyDb.$queryRaw`SELECT 1`);
        app.get('/db-model', async () => busyDb.customer.findMany());
        app.get('/db-tx', async () => busyDb.$transaction(async (tx) => tx.customer.count()));
      },
    });
    try {
      for (const url of ['/db-hot', '/db-raw', '/db-model', '/db-tx']) {
        const res = await busy.app.inject({ method: 'GET', url });
        expectError(res, 503, 'SERVICE_UNAVAILABLE');
        expect(res.headers['retry-after']).toBe('1');
      }
      // Once the connection is back, the same routes answer.
      held.release();
      const res = await busy.app.inject({ method: 'GET', url: '/db-hot' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([{ one: 1 }]);
    } finally {
      await busy.close();
      await busyDb.$disconnect();
    }
  });
});

describe('a database that refuses connections', () => {
  it('is 503 SERVICE_UNAVAILABLE with Retry-After, not a 500 (PostgreSQL "too many connections")', async () => {
    // A role allowed no connection at all answers every connect with SQLSTATE 53300, like a server
    // whose max_connections is used up by other clients.
    const role = `svc_t_noconn_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: env.config.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE ROLE "${role}" LOGIN CONNECTION LIMIT 0`);
    const url = new URL(env.config.DATABASE_URL);
    url.username = role;
    url.password = '';
    const refused = createPrisma(url.toString(), { poolMax: 1 });
    const busy = await createTestEnv({}, {
      extend: (app) => {
        app.get('/db-raw', async () => refused.$queryRaw`SELECT 1`);
        app.get('/db-model', async () => refused.customer.findMany());
      },
    });
    try {
      for (const url of ['/db-raw', '/db-model']) {
        const res = await busy.app.inject({ method: 'GET', url });
        expectError(res, 503, 'SERVICE_UNAVAILABLE');
        expect(res.headers['retry-after']).toBe('1');
      }
    } finally {
      await busy.close();
      await refused.$disconnect();
      await admin.query(`DROP ROLE IF EXISTS "${role}"`);
      await admin.end();
    }
  });
});
