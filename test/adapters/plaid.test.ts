import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createPlaidBankLink } from '../../src/adapters/bank-link/plaid/index.js';
import { BankLinkError } from '../../src/adapters/bank-link/port.js';
import { AdapterConfigError } from '../../src/adapters/common.js';
import { describeBankLinkContract } from '../contracts/bank-link.contract.js';

/**
 * A local stand-in for Plaid's API, answering as https://plaid.com/docs/api/ documents
 * /link/token/create, /item/public_token/exchange, /auth/get and /item/remove (and their error
 * body: error_type, error_code, error_message, request_id). It checks credentials on every call.
 */
class FakePlaid {
  calls: Array<{ path: string; body: any }> = [];
  /** Status and error to answer the next call to a path with. */
  failNext: Record<string, { status: number; error_code: string; error_type: string }> = {};
  private server: Server;
  url = '';
  private items = new Map<string, { linkToken: string; removed: boolean }>();
  private links = new Set<string>();
  private n = 0;

  constructor() {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const body = JSON.parse(raw || '{}');
        const path = req.url ?? '';
        this.calls.push({ path, body });
        const send = (status: number, json: object) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ request_id: `req-${++this.n}`, ...json }));
        const fail = this.failNext[path];
        if (fail) {
          delete this.failNext[path];
          return send(fail.status, { ...fail, error_message: `forced ${fail.error_code}`, display_message: null });
        }
        if (body.client_id !== 'cid' || body.secret !== 'sec') return send(400, { error_type: 'INVALID_INPUT', error_code: 'INVALID_API_KEYS', error_message: 'invalid client_id or secret provided' });
        if (path === '/link/token/create') {
          if (!body.user?.client_user_id || !Array.isArray(body.products) || !body.client_name || !body.country_codes || !body.language) return send(400, { error_type: 'INVALID_REQUEST', error_code: 'MISSING_FIELDS', error_message: 'missing fields' });
          const linkToken = `link-sandbox-${this.n}-${Math.random().toString(16).slice(2)}`;
          this.links.add(linkToken);
          return send(200, { link_token: linkToken, expiration: new Date(Date.now() + 4 * 3600_000).toISOString() });
        }
        if (path === '/item/public_token/exchange') {
          const linkToken = String(body.public_token).replace(/^public-/, 'link-');
          if (!this.links.has(linkToken)) return send(400, { error_type: 'INVALID_INPUT', error_code: 'INVALID_PUBLIC_TOKEN', error_message: 'provided public token is in an invalid format' });
          const access = `access-sandbox-${this.n}`;
          this.items.set(access, { linkToken, removed: false });
          return send(200, { access_token: access, item_id: `item-${this.n}` });
        }
        const item = this.items.get(body.access_token);
        if (!item || item.removed) return send(400, { error_type: 'INVALID_INPUT', error_code: 'INVALID_ACCESS_TOKEN', error_message: 'bad access token' });
        if (path === '/auth/get') {
          const accounts = [
            { account_id: 'acc-chk', name: 'Plaid Checking', type: 'depository', subtype: 'checking', mask: '0000' },
            { account_id: 'acc-sav', name: 'Plaid Saving', type: 'depository', subtype: 'savings', mask: '1111' },
            { account_id: 'acc-cc', name: 'Plaid Credit Card', type: 'credit', subtype: 'credit card', mask: '3333' },
          ];
          const ach = [
            { account_id: 'acc-chk', account: '1111222233330000', routing: '011401533', wire_routing: '021000021' },
            { account_id: 'acc-sav', account: '1111222233331111', routing: '011401533', wire_routing: '021000021' },
          ];
          const ids: string[] | undefined = body.options?.account_ids;
          return send(200, { accounts: ids ? accounts.filter((a) => ids.includes(a.account_id)) : accounts, numbers: { ach: ids ? ach.filter((a) => ids.includes(a.account_id)) : ach, eft: [], international: [], bacs: [] }, item: { institution_name: 'First Platypus Bank' } });
        }
        if (path === '/item/remove') {
          item.removed = true;
          return send(200, {});
        }
        return send(404, { error_type: 'API_ERROR', error_code: 'NOT_FOUND', error_message: 'unknown path' });
      });
    });
  }
  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }
  async stop() {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

const context = { logger: pino({ level: 'silent' }), clock: { now: () => new Date() }, timeoutMs: 5000 };
let fake: FakePlaid;
beforeAll(async () => {
  fake = await new FakePlaid().start();
});
afterAll(() => fake.stop());

const adapter = () => createPlaidBankLink({ CLIENT_ID: 'cid', SECRET: 'sec', BASE_URL: fake.url, CLIENT_NAME: 'Acme Pay' }, context);

describeBankLinkContract('plaid (against a local Plaid stand-in)', async () => ({
  adapter: adapter(),
  completeLink: async (linkToken) => ({ publicToken: linkToken.replace(/^link-/, 'public-') }),
}));

describe('plaid bank-link adapter', () => {
  it('creates link tokens for the auth product with the customer as the Plaid user', async () => {
    fake.calls = [];
    const t = await adapter().createLinkToken({ reference: 'BankLink:1', customerId: 'Customer:1', customerName: 'Ada Lovelace', redirectUri: 'https://app.example.com/oauth' });
    expect(t.requestId).toMatch(/^req-/);
    expect(fake.calls[0]).toEqual({
      path: '/link/token/create',
      body: { client_id: 'cid', secret: 'sec', client_name: 'Acme Pay', language: 'en', country_codes: ['US'], user: { client_user_id: 'BankLink:1', legal_name: 'Ada Lovelace' }, products: ['auth'], redirect_uri: 'https://app.example.com/oauth' },
    });
  });

  it('exchanges, reads the chosen account\'s ACH numbers, and removes the Item', async () => {
    const a = adapter();
    const t = await a.createLinkToken({ reference: 'BankLink:2', customerId: 'Customer:2', customerName: null });
    fake.calls = [];
    const acct = await a.exchangePublicToken({ linkToken: t.linkToken, publicToken: t.linkToken.replace(/^link-/, 'public-'), accountId: 'acc-sav' });
    expect(acct).toEqual({ providerAccountId: 'acc-sav', currency: 'USD', accountNumber: '1111222233331111', routingNumber: '011401533', bankAccountType: 'SAVINGS', bankName: 'First Platypus Bank', accountName: 'Plaid Saving' });
    expect(fake.calls.map((c) => c.path)).toEqual(['/item/public_token/exchange', '/auth/get', '/item/remove']);
    expect(fake.calls[1]!.body.options).toEqual({ account_ids: ['acc-sav'] });
    const first = await a.exchangePublicToken({ linkToken: t.linkToken, publicToken: t.linkToken.replace(/^link-/, 'public-') });
    expect(first.providerAccountId).toBe('acc-chk');
  });

  it('an account without ACH numbers is ACCOUNT_NOT_FOUND, and the Item is still removed', async () => {
    const a = adapter();
    const t = await a.createLinkToken({ reference: 'BankLink:3', customerId: 'Customer:3', customerName: null });
    fake.calls = [];
    const err = await a.exchangePublicToken({ linkToken: t.linkToken, publicToken: t.linkToken.replace(/^link-/, 'public-'), accountId: 'acc-cc' }).catch((e) => e);
    expect(err).toBeInstanceOf(BankLinkError);
    expect(err.code).toBe('ACCOUNT_NOT_FOUND');
    expect(fake.calls.at(-1)!.path).toBe('/item/remove');
  });

  it('Plaid outages are retryable PROVIDER_ERRORs; bad keys are not retryable', async () => {
    fake.failNext['/link/token/create'] = { status: 500, error_type: 'API_ERROR', error_code: 'INTERNAL_SERVER_ERROR' };
    const down = await adapter().createLinkToken({ reference: 'BankLink:4', customerId: 'Customer:4', customerName: null }).catch((e) => e);
    expect(down).toMatchObject({ code: 'PROVIDER_ERROR', retryable: true });
    const badKeys = await createPlaidBankLink({ CLIENT_ID: 'cid', SECRET: 'wrong', BASE_URL: fake.url }, context).createLinkToken({ reference: 'BankLink:5', customerId: 'Customer:5', customerName: null }).catch((e) => e);
    expect(badKeys).toMatchObject({ code: 'PROVIDER_ERROR', retryable: false });
    expect(badKeys.message).toContain('INVALID_API_KEYS');
    const unreachable = await createPlaidBankLink({ CLIENT_ID: 'cid', SECRET: 'sec', BASE_URL: 'http://127.0.0.1:1' }, context).createLinkToken({ reference: 'BankLink:6', customerId: 'Customer:6', customerName: null }).catch((e) => e);
    expect(unreachable).toMatchObject({ code: 'PROVIDER_ERROR', retryable: true });
  });

  it('refuses to start without keys or with an unknown environment', () => {
    expect(() => createPlaidBankLink({}, context)).toThrow(AdapterConfigError);
    expect(() => createPlaidBankLink({ CLIENT_ID: 'a', SECRET: 'b', ENVIRONMENT: 'development' }, context)).toThrow(/sandbox or production/);
    expect(() => createPlaidBankLink({ CLIENT_ID: 'a', SECRET: 'b', ENVIRONMENT: 'production' }, context)).not.toThrow();
  });
});
