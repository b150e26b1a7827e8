import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Api, ApiError } from '../src/api';
import { Money, Status } from '../src/components';
import { parseHash, href } from '../src/router';
import { basicHeader, Session, type TokenInfo } from '../src/session';
import { barHeights, computeOverview } from '../src/stats';
import { buildTimeline } from '../src/pages/Payments';
import type { Transaction, WebhookEvent } from '../src/types';

const token: TokenInfo = { id: 'Token:1', name: 'Ops', clientId: 'cli_x', permissions: ['VIEW', 'TRANSACT'] };
const MIN = 60_000;

describe('session state', () => {
  it('keeps credentials in memory only while signed in, and forgets them on sign-out', () => {
    const s = new Session(15 * MIN);
    const seen: string[] = [];
    s.subscribe((st) => seen.push(st.status));
    expect(s.credentials()).toBeUndefined();
    const creds = { clientId: 'cli_x', clientSecret: 'sec_y' };
    s.signIn(creds, token, 0);
    expect(s.credentials()).toEqual(creds);
    expect(s.can('TRANSACT')).toBe(true);
    expect(s.can('MANAGE')).toBe(false);
    s.signOut('bye');
    expect(s.credentials()).toBeUndefined();
    expect(s.current).toEqual({ status: 'signedOut', notice: 'bye' });
    expect(s.can('VIEW')).toBe(false);
    expect(seen).toEqual(['signedIn', 'signedOut']);
  });

  it('signs out after the idle time, and activity restarts the clock', () => {
    const s = new Session(15 * MIN);
    s.signIn({ clientId: 'a', clientSecret: 'b' }, token, 0);
    expect(s.checkIdle(14 * MIN)).toBe(false);
    s.touch(14 * MIN);
    expect(s.checkIdle(28 * MIN)).toBe(false);
    expect(s.checkIdle(29 * MIN)).toBe(true);
    expect(s.current).toEqual({ status: 'signedOut', notice: 'Signed out after 15 minutes without activity.' });
    expect(s.credentials()).toBeUndefined();
    expect(s.checkIdle(100 * MIN)).toBe(false);
  });

  it('encodes Basic credentials as UTF-8', () => {
    expect(basicHeader({ clientId: 'cli_a', clientSecret: 'sec_b' })).toBe(`Basic ${btoa('cli_a:sec_b')}`);
    expect(basicHeader({ clientId: 'ü', clientSecret: '€' })).toBe('Basic w7w64oKs');
  });
});

describe('API client', () => {
  function fakeFetch(status: number, body: unknown) {
    const calls: Array<{ url: string; init: RequestInit }> = [];
    const impl = (async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    }) as unknown as typeof fetch;
    return { calls, impl };
  }

  it('sends the signed-in Basic credentials and X-Requested-With, never the secret in the URL', async () => {
    const s = new Session(MIN);
    s.signIn({ clientId: 'cli_a', clientSecret: 'sec_b' }, token, 0);
    const f = fakeFetch(200, { data: [], hasMore: false });
    const api = new Api('/2025-10-13', s, f.impl);
    await api.get('/customers', { search: 'ada lovelace', status: '' });
    expect(f.calls[0]!.url).toBe('/2025-10-13/customers?search=ada+lovelace');
    const h = f.calls[0]!.init.headers as Record<string, string>;
    expect(h.authorization).toBe(basicHeader({ clientId: 'cli_a', clientSecret: 'sec_b' }));
    expect(h['x-requested-with']).toBe('svc-dashboard');
    expect(f.calls[0]!.url).not.toContain('sec_b');
    await api.post('/quotes', { a: 1 }, true);
    expect((f.calls[1]!.init.headers as Record<string, string>)['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a 401 signs the session out; other errors carry code and fields', async () => {
    const s = new Session(MIN);
    s.signIn({ clientId: 'cli_a', clientSecret: 'sec_b' }, token, 0);
    const api401 = new Api('', s, fakeFetch(401, { status: 401, code: 'UNAUTHORIZED', message: 'no' }).impl);
    await expect(api401.get('/config')).rejects.toBeInstanceOf(ApiError);
    expect(s.current.status).toBe('signedOut');

    s.signIn({ clientId: 'cli_a', clientSecret: 'sec_b' }, token, 0);
    const api400 = new Api('', s, fakeFetch(400, { status: 400, code: 'INVALID_INPUT', message: 'Input is invalid.', details: { errors: [{ field: 'amount', message: 'Too small.' }] } }).impl);
    const err = (await api400.post('/x', {}).catch((e: unknown) => e)) as ApiError;
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.describe()).toBe('Input is invalid. (amount: Too small.)');
    expect(s.current.status).toBe('signedIn');
  });

  it('follows nextCursor across pages', async () => {
    const s = new Session(MIN);
    s.signIn({ clientId: 'a', clientSecret: 'b' }, token, 0);
    const pages = [{ data: [1, 2], hasMore: true, nextCursor: 'c1' }, { data: [3], hasMore: false }];
    const seen: string[] = [];
    const impl = (async (url: string) => {
      seen.push(url);
      return new Response(JSON.stringify(pages.shift()), { status: 200 });
    }) as unknown as typeof fetch;
    const res = await new Api('', s, impl).all<number>('/transactions', { status: 'FAILED' });
    expect(res).toEqual({ items: [1, 2, 3], complete: true });
    expect(seen[1]).toContain('cursor=c1');
  });
});

describe('routes', () => {
  it('parses hash routes with ids and query, and builds them back', () => {
    const r = parseHash('#/payments/Transaction:0192-ab?status=FAILED');
    expect(r.segments).toEqual(['payments', 'Transaction:0192-ab']);
    expect(r.query.get('status')).toBe('FAILED');
    expect(href('/payments/Transaction:0192-ab', { status: 'FAILED', x: undefined })).toBe('#/payments/Transaction:0192-ab?status=FAILED');
    expect(parseHash('').path).toBe('/');
  });
});

function tx(over: Partial<Transaction>): Transaction {
  return {
    id: 'Transaction:1', status: 'COMPLETED', type: 'OUTGOING', customerId: null, platformCustomerId: null, source: null, destination: null,
    sentAmount: { amount: 1000, currency: { code: 'USD', decimals: 2 } }, receivedAmount: { amount: 900, currency: { code: 'USD', decimals: 2 } },
    exchangeRate: 1, fees: 100, platformFees: 40, quoteId: 'Quote:1', paymentRail: 'ACH', description: null, failureReason: null, settledAt: null,
    createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(), refund: null, ...over,
  };
}

describe('overview figures', () => {
  it('counts today by status, sums fee revenue and daily volume exactly', () => {
    const now = new Date();
    const yesterday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1, 12).toISOString();
    const days = [yesterday.slice(0, 10), now.toISOString().slice(0, 10)].map((d) => d);
    const o = computeOverview(
      [
        tx({ id: 'a' }),
        tx({ id: 'b', platformFees: 3 }),
        tx({ id: 'c', status: 'FAILED' }),
        tx({ id: 'd', createdAt: yesterday, sentAmount: { amount: 9_007_199_254_740_991, currency: { code: 'USD', decimals: 2 } } }),
        tx({ id: 'e', sentAmount: { amount: 500, currency: { code: 'EUR', decimals: 2 } }, platformFees: 7 }),
      ],
      [],
      now,
    );
    expect(o.todayByStatus).toEqual({ COMPLETED: 3, FAILED: 1 });
    expect(o.completedToday).toBe(3);
    expect(o.failedToday).toBe(1);
    expect(o.feeRevenueToday).toEqual(new Map([['USD', 43n], ['EUR', 7n]]));
    expect(o.feeRevenuePeriod.get('USD')).toBe(83n);
    void days;
  });

  it('bar heights are integer percentages of the largest value', () => {
    expect(barHeights([0n, 50n, 100n, 9_007_199_254_740_993n])).toEqual([0, 0, 0, 100]);
    expect(barHeights([1n, 2n, 4n])).toEqual([25, 50, 100]);
    expect(barHeights([0n, 0n])).toEqual([0, 0]);
  });

  it('builds the payment timeline from the events it produced, oldest first', () => {
    const t = tx({ createdAt: '2026-01-01T10:00:00.000Z', settledAt: null, status: 'FAILED', refund: { reference: 'r', initiatedAt: '2026-01-01T10:00:02.000Z', settledAt: '2026-01-01T10:00:03.000Z', status: 'COMPLETED', reason: 'X' } });
    const ev = (type: string, ts: string, status: string): WebhookEvent => ({ id: `Webhook:${ts}`, type, timestamp: ts, data: { id: t.id, status }, deliveryStatus: 'DELIVERED', attemptCount: 1, lastAttemptAt: null, nextAttemptAt: null, deliveredAt: null, attempts: [] });
    const tl = buildTimeline(t, [ev('OUTGOING_PAYMENT.FAILED', '2026-01-01T10:00:02.500Z', 'FAILED'), ev('OUTGOING_PAYMENT.PENDING', '2026-01-01T10:00:00.100Z', 'PENDING')]);
    expect(tl.map((e) => e.label)).toEqual(['Created', 'OUTGOING_PAYMENT.PENDING', 'Refund initiated', 'OUTGOING_PAYMENT.FAILED', 'Refund completed']);
  });
});

describe('components', () => {
  it('Money renders major units with the code; missing amounts a dash', () => {
    expect(renderToStaticMarkup(createElement(Money, { amount: 123456, currency: { code: 'USD', decimals: 2 } }))).toMatch(/1.234.56 USD/);
    expect(renderToStaticMarkup(createElement(Money, { amount: null, currency: 'USD' }))).toContain('—');
  });
  it('Status renders a toned badge carrying the raw status', () => {
    const html = renderToStaticMarkup(createElement(Status, { value: 'PENDING_AUTHORIZATION' }));
    expect(html).toContain('data-status="PENDING_AUTHORIZATION"');
    expect(html).toContain('PENDING AUTHORIZATION');
    expect(html).toContain('badge wait');
  });
});
