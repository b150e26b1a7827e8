import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { anActiveExternalAccount, anApprovedCustomer, fund, usdBankAccount } from '../helpers/builders.js';

/**
 * Issue 27: card transactions are transactions — the unfiltered GET /transactions lists them with the
 * payments, in one order, paginated by one cursor (keyset: no row twice, none skipped); a payment-only
 * filter lists payments alone, as before.
 */
let env: TestEnv;
let p: TestPlatform;
let customerId: string;
let cardId: string;
const payments: string[] = [];
const cardTxs: string[] = [];

beforeAll(async () => {
  env = await createTestEnv({ SANDBOX_RAIL_DELAY_SCALE: '0' });
  p = await env.platform();
  const workers = env.startWorkers();
  const c = await anApprovedCustomer(env, p, ['USD']);
  customerId = c.customerId;
  await fund(p, c.accounts.USD!, 100_000);
  const card = await p.request({ method: 'POST', url: '/cards', payload: { cardholderId: customerId, form: 'VIRTUAL', fundingSources: [c.accounts.USD!], platformCardId: `list-${Date.now()}x` } });
  expect(card.statusCode, card.body).toBe(201);
  cardId = card.json().id;
  const dest = await anActiveExternalAccount(p, usdBankAccount(), customerId);
  // Interleaved: card authorizations between payments (outgoing, executed at once).
  for (let i = 0; i < 3; i++) {
    const sim = await p.request({ method: 'POST', url: `/sandbox/cards/${cardId}/simulate/authorization`, payload: { amount: 100 + i, currency: { code: 'USD' }, merchant: { descriptor: `SHOP ${i}` } } });
    expect(sim.statusCode, sim.body).toBe(202);
    const quote = await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD! }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1_000 + i, immediatelyExecute: true } });
    expect(quote.statusCode, quote.body).toBe(201);
  }
  await workers.close();
  const all = await list('/transactions?limit=100');
  for (const t of all.data) (t.type === 'CARD' ? cardTxs : payments).push(t.id);
});
afterAll(() => env.close());

async function list(url: string) {
  const res = await p.request({ method: 'GET', url });
  expect(res.statusCode, res.body).toBe(200);
  assertMatchesResponseSchema('GET', `${BASE}/transactions`, 200, res.json());
  return res.json() as { data: Array<{ id: string; type: string; createdAt: string }>; hasMore: boolean; nextCursor?: string };
}

async function walk(url: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 50; pages++) {
    const page = await list(`${url}${cursor ? `&cursor=${cursor}` : ''}`);
    ids.push(...page.data.map((t) => t.id));
    if (!page.hasMore) return ids;
    expect(page.nextCursor).toEqual(expect.any(String));
    cursor = page.nextCursor;
  }
  throw new Error('more than 50 pages');
}

const uuid = (id: string) => id.slice(id.indexOf(':') + 1);

describe('card transactions in the unfiltered transaction list', () => {
  it('the unfiltered list holds payments and card transactions, newest first by id', async () => {
    expect(cardTxs).toHaveLength(3);
    expect(payments).toHaveLength(3);
    const ids = [...payments, ...cardTxs];
    const listed = (await list('/transactions?limit=100')).data.map((t) => t.id);
    expect(listed).toEqual([...ids].sort((a, b) => (uuid(a) < uuid(b) ? 1 : -1)));
  });

  it('pages of two, either order, give every transaction exactly once and in the one-page order', async () => {
    const desc = (await list('/transactions?limit=100')).data.map((t) => t.id);
    const asc = (await list('/transactions?limit=100&sortOrder=asc')).data.map((t) => t.id);
    expect(asc).toEqual([...desc].reverse());
    expect(await walk('/transactions?limit=2')).toEqual(desc);
    expect(await walk('/transactions?limit=3&sortOrder=asc')).toEqual(asc);
  });

  it('a time window and a customer filter list both kinds; a payment-only filter lists payments alone', async () => {
    const start = new Date(Date.now() - 3_600_000).toISOString();
    const end = new Date(Date.now() + 3_600_000).toISOString();
    const windowed = await walk(`/transactions?limit=2&startDate=${encodeURIComponent(start)}&endDate=${encodeURIComponent(end)}`);
    expect(new Set(windowed)).toEqual(new Set([...payments, ...cardTxs]));
    expect(windowed).toHaveLength(payments.length + cardTxs.length);
    const mine = await walk(`/transactions?limit=2&customerId=${customerId}`);
    expect(mine.filter((id) => cardTxs.includes(id))).toHaveLength(3);
    const outgoing = (await list('/transactions?limit=100&type=OUTGOING')).data;
    expect(outgoing.every((t) => t.type !== 'CARD')).toBe(true);
    expect(outgoing.map((t) => t.id).sort()).toEqual([...payments].sort());
    const cardsOnly = (await list(`/transactions?limit=100&cardId=${cardId}`)).data.map((t) => t.id);
    expect(new Set(cardsOnly)).toEqual(new Set(cardTxs));
  });
});
