import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer } from '../helpers/builders.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { aCard, aCardholder, newSigningKey, registerKey, signedPatch, stamp } from './helpers.js';
import { resourceKey } from '../../src/platform/ids.js';

let env: TestEnv;
let p: TestPlatform;

beforeAll(async () => {
  env = await createTestEnv();
  p = await env.platform();
});
afterAll(() => env.close());

const patch = (cardId: string, payload: object, headers: Record<string, string> = {}) => p.request({ method: 'PATCH', url: `/cards/${cardId}`, payload, headers });

/** A card in `state`, reached through signed retries. */
async function aCardIn(state: 'ACTIVE' | 'FROZEN' | 'CLOSED') {
  const h = await aCardholder(env, p);
  const card = await aCard(p, h.customerId, h.usdb);
  if (state !== 'ACTIVE') expect((await signedPatch(p, card.id, { state }, h.key)).statusCode).toBe(200);
  return { ...h, card };
}

async function eventsFor(cardId: string) {
  const rows = await env.deps.prisma.webhookEvent.findMany({ where: { platformId: p.platformId }, orderBy: { id: 'asc' } });
  return rows.filter((r) => (r.data as any)?.id === cardId).map((r) => ({ type: r.type, state: (r.data as any).state, fundingSources: (r.data as any).fundingSources }));
}

describe('the card state table, each row through a real P-256 signed retry', () => {
  const moves: Array<['ACTIVE' | 'FROZEN', 'ACTIVE' | 'FROZEN' | 'CLOSED']> = [
    ['ACTIVE', 'FROZEN'],
    ['FROZEN', 'ACTIVE'],
    ['ACTIVE', 'CLOSED'],
    ['FROZEN', 'CLOSED'],
  ];
  for (const [from, to] of moves) {
    it(`${from} → ${to}: 202 challenge, then the signed retry applies it and emits CARD.STATE_CHANGE`, async () => {
      const h = await aCardIn(from);
      const first = await patch(h.card.id, { state: to });
      expect(first.statusCode, first.body).toBe(202);
      const challenge = first.json();
      assertMatchesResponseSchema('PATCH', `${BASE}/cards/{cardId}`, 202, challenge);
      expect(challenge.requestId).toMatch(/^Request:/);
      expect(new Date(challenge.expiresAt).getTime() - Date.now()).toBeLessThanOrEqual(300_000);
      // Nothing changes before the signed retry.
      expect((await p.request({ method: 'GET', url: `/cards/${h.card.id}` })).json().state).toBe(from);

      const retry = await patch(h.card.id, { state: to }, { 'svc-wallet-signature': stamp(h.key, challenge.payloadToSign), 'request-id': challenge.requestId });
      expect(retry.statusCode, retry.body).toBe(200);
      assertMatchesResponseSchema('PATCH', `${BASE}/cards/{cardId}`, 200, retry.json());
      expect(retry.json().state).toBe(to);
      if (to === 'CLOSED') expect(retry.json().stateReason).toBe('CLOSED_BY_PLATFORM');
      const events = await eventsFor(h.card.id);
      expect(events[events.length - 1]).toEqual({ type: 'CARD.STATE_CHANGE', state: to, fundingSources: [h.usdb] });
      const history = await env.deps.prisma.statusChange.findMany({ where: { machine: 'card', resourceId: resourceKey(h.card.id) }, orderBy: { createdAt: 'asc' } });
      expect(history[history.length - 1]).toMatchObject({ machine: 'card', fromStatus: from, toStatus: to });
    });
  }

  it('CLOSED + state CLOSED: 409 CARD_ALREADY_CLOSED', async () => {
    const h = await aCardIn('CLOSED');
    const res = await patch(h.card.id, { state: 'CLOSED' });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('CARD_ALREADY_CLOSED');
  });

  it('CLOSED + any other PATCH: 409 CARD_NOT_MUTABLE', async () => {
    const h = await aCardIn('CLOSED');
    for (const body of [{ state: 'ACTIVE' }, { state: 'FROZEN' }, { fundingSources: [h.usdb] }, { maxSpendPerTransaction: 10 }]) {
      const res = await patch(h.card.id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(409);
      expect(res.json().code).toBe('CARD_NOT_MUTABLE');
    }
  });

  it('any other requested move: 409 INVALID_STATE_TRANSITION (ACTIVE → ACTIVE, FROZEN → FROZEN)', async () => {
    const active = await aCardIn('ACTIVE');
    const frozen = await aCardIn('FROZEN');
    for (const [id, state] of [[active.card.id, 'ACTIVE'], [frozen.card.id, 'FROZEN']] as const) {
      const res = await patch(id, { state });
      expect(res.statusCode).toBe(409);
      expect(res.json().code).toBe('INVALID_STATE_TRANSITION');
    }
  });

  it('a move that became illegal after the challenge is refused at the retry, and the challenge stays unused', async () => {
    const h = await aCardIn('ACTIVE');
    const first = (await patch(h.card.id, { state: 'FROZEN' })).json();
    expect((await signedPatch(p, h.card.id, { state: 'CLOSED' }, h.key)).statusCode).toBe(200);
    const late = await patch(h.card.id, { state: 'FROZEN' }, { 'svc-wallet-signature': stamp(h.key, first.payloadToSign), 'request-id': first.requestId });
    expect(late.statusCode).toBe(409);
    expect(late.json().code).toBe('CARD_NOT_MUTABLE');
  });
});

describe('funding sources', () => {
  it('replaces the sources in full (signed) and emits CARD.FUNDING_SOURCE_CHANGE; a FROZEN card keeps its binding', async () => {
    const h = await aCardIn('FROZEN');
    const res = await signedPatch(p, h.card.id, { fundingSources: [h.usdb], maxSpendPerTransaction: 1_000 }, h.key);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ state: 'FROZEN', fundingSources: [h.usdb], maxSpendPerTransaction: 1_000 });
    expect((await eventsFor(h.card.id)).filter((e) => e.type === 'CARD.FUNDING_SOURCE_CHANGE')).toEqual([{ type: 'CARD.FUNDING_SOURCE_CHANGE', state: 'FROZEN', fundingSources: [h.usdb] }]);
    const capOnly = await signedPatch(p, h.card.id, { maxSpendPerTransaction: null }, h.key);
    expect(capOnly.json().maxSpendPerTransaction).toBeNull();
    expect((await eventsFor(h.card.id)).filter((e) => e.type === 'CARD.FUNDING_SOURCE_CHANGE')).toHaveLength(1);
  });

  it('a new source must be the cardholder\'s and in the card\'s currency (400 FUNDING_SOURCE_INELIGIBLE)', async () => {
    const h = await aCardIn('ACTIVE');
    const other = await aCardholder(env, p);
    for (const fundingSources of [[other.usdb], [h.usd]]) {
      const res = await patch(h.card.id, { fundingSources });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('FUNDING_SOURCE_INELIGIBLE');
    }
  });

  it('validates the body: empty array, nothing to change, sources or cap with CLOSED are 400 INVALID_INPUT', async () => {
    const h = await aCardIn('ACTIVE');
    const cases: Array<[object, string]> = [
      [{ fundingSources: [] }, 'fundingSources'],
      [{}, 'state'],
      [{ state: 'CLOSED', fundingSources: [h.usdb] }, 'fundingSources'],
      [{ state: 'CLOSED', maxSpendPerTransaction: 5 }, 'maxSpendPerTransaction'],
      [{ state: 'GONE' }, 'state'],
    ];
    for (const [body, field] of cases) {
      const res = await patch(h.card.id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().code).toBe('INVALID_INPUT');
      expect(res.json().details.errors.map((e: any) => e.field)).toContain(field);
    }
  });
});

describe('signed retry failures (401)', () => {
  let h: Awaited<ReturnType<typeof aCardIn>>;
  let challenge: { payloadToSign: string; requestId: string };
  const body = { state: 'FROZEN' };

  beforeAll(async () => {
    h = await aCardIn('ACTIVE');
    challenge = (await patch(h.card.id, body)).json();
  });

  const expect401 = async (res: Awaited<ReturnType<typeof patch>>, code: string) => {
    expect(res.statusCode, res.body).toBe(401);
    expect(res.json()).toMatchObject({ status: 401, code });
    expect((await p.request({ method: 'GET', url: `/cards/${h.card.id}` })).json().state).toBe('ACTIVE');
  };

  it('WALLET_SIGNATURE_MISSING: Request-Id without a signature', async () => {
    await expect401(await patch(h.card.id, body, { 'request-id': challenge.requestId }), 'WALLET_SIGNATURE_MISSING');
  });

  it('REQUEST_ID_MISSING: a signature without Request-Id', async () => {
    await expect401(await patch(h.card.id, body, { 'svc-wallet-signature': stamp(h.key, challenge.payloadToSign) }), 'REQUEST_ID_MISSING');
  });

  it('WALLET_SIGNATURE_MALFORMED: not a decodable stamp', async () => {
    const bad = [
      'not a stamp!',
      Buffer.from('{"publicKey":').toString('base64url'),
      Buffer.from(JSON.stringify({ publicKey: h.key.publicKeyHex, scheme: 'OTHER', signature: 'abcd' })).toString('base64url'),
      Buffer.from(JSON.stringify({ publicKey: 'zz', scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature: '3006020101020101' })).toString('base64url'),
    ];
    for (const s of bad) await expect401(await patch(h.card.id, body, { 'svc-wallet-signature': s, 'request-id': challenge.requestId }), 'WALLET_SIGNATURE_MALFORMED');
  });

  it('WALLET_SIGNATURE_BODY_MISMATCH: the retry carries another body', async () => {
    await expect401(
      await patch(h.card.id, { state: 'CLOSED' }, { 'svc-wallet-signature': stamp(h.key, challenge.payloadToSign), 'request-id': challenge.requestId }),
      'WALLET_SIGNATURE_BODY_MISMATCH',
    );
  });

  it('WALLET_SIGNATURE_INVALID: a wrong signature, an unregistered key, an unknown Request-Id', async () => {
    const stranger = newSigningKey();
    const otherPayload = challenge.payloadToSign.replace('"requestId":"Request:', '"requestId":"Request:0');
    await expect401(await patch(h.card.id, body, { 'svc-wallet-signature': stamp(h.key, otherPayload), 'request-id': challenge.requestId }), 'WALLET_SIGNATURE_INVALID');
    await expect401(await patch(h.card.id, body, { 'svc-wallet-signature': stamp(stranger, challenge.payloadToSign), 'request-id': challenge.requestId }), 'WALLET_SIGNATURE_INVALID');
    // A registered key of the customer cannot sign for a key it does not hold.
    await expect401(await patch(h.card.id, body, { 'svc-wallet-signature': stamp(stranger, challenge.payloadToSign, h.key.publicKeyHex), 'request-id': challenge.requestId }), 'WALLET_SIGNATURE_INVALID');
    await expect401(
      await patch(h.card.id, body, { 'svc-wallet-signature': stamp(h.key, challenge.payloadToSign), 'request-id': 'Request:019a0c6e-4d1c-7b3e-9f5a-2b8c1d4e6f70' }),
      'WALLET_SIGNATURE_INVALID',
    );
  });

  it('a challenge is single use: the replay of a successful retry is 401 WALLET_SIGNATURE_INVALID', async () => {
    const g = await aCardIn('ACTIVE');
    const c = (await patch(g.card.id, body)).json();
    const headers = { 'svc-wallet-signature': stamp(g.key, c.payloadToSign), 'request-id': c.requestId };
    expect((await patch(g.card.id, body, headers)).statusCode).toBe(200);
    const unfreeze = await signedPatch(p, g.card.id, { state: 'ACTIVE' }, g.key);
    expect(unfreeze.statusCode).toBe(200);
    const replay = await patch(g.card.id, body, headers);
    expect(replay.statusCode).toBe(401);
    expect(replay.json().code).toBe('WALLET_SIGNATURE_INVALID');
    expect((await p.request({ method: 'GET', url: `/cards/${g.card.id}` })).json().state).toBe('ACTIVE');
  });

  it('an expired challenge is refused (401 WALLET_SIGNATURE_INVALID)', async () => {
    const g = await aCardIn('ACTIVE');
    const c = (await patch(g.card.id, body)).json();
    env.clock.advance(5 * 60_000 + 1_000);
    try {
      const res = await patch(g.card.id, body, { 'svc-wallet-signature': stamp(g.key, c.payloadToSign), 'request-id': c.requestId });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('WALLET_SIGNATURE_INVALID');
    } finally {
      env.clock.advance(-(5 * 60_000 + 1_000));
    }
  });

  it("a challenge of one card does not authorise another card's change", async () => {
    const g = await aCardIn('ACTIVE');
    const res = await patch(g.card.id, body, { 'svc-wallet-signature': stamp(h.key, challenge.payloadToSign), 'request-id': challenge.requestId });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('WALLET_SIGNATURE_INVALID');
  });

  it('a credential deleted after the challenge no longer verifies (credential set bound)', async () => {
    const g = await aCardIn('ACTIVE');
    const c = (await patch(g.card.id, body)).json();
    const creds = (await p.request({ method: 'GET', url: `/customers/${g.customerId}/signing-credentials` })).json().data;
    await registerKey(p, g.customerId);
    const res = await patch(g.card.id, body, { 'svc-wallet-signature': stamp(g.key, c.payloadToSign), 'request-id': c.requestId });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('WALLET_SIGNATURE_INVALID');
    expect((await p.request({ method: 'DELETE', url: `/customers/${g.customerId}/signing-credentials/${creds[0].id}` })).statusCode).toBe(204);
    const after = await signedPatch(p, g.card.id, body, g.key);
    expect(after.statusCode).toBe(401);
  });

  it('the original challenge still works after all these failures (failures consume nothing)', async () => {
    const res = await patch(h.card.id, body, { 'svc-wallet-signature': stamp(h.key, challenge.payloadToSign), 'request-id': challenge.requestId });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().state).toBe('FROZEN');
  });

  it('body key order and spacing do not matter: the body is bound by its canonical JSON', async () => {
    const g = await aCardIn('ACTIVE');
    const c = (await p.request({ method: 'PATCH', url: `/cards/${g.card.id}`, payload: '{"maxSpendPerTransaction": 7, "state": "FROZEN"}', headers: { 'content-type': 'application/json' } })).json();
    const res = await p.request({
      method: 'PATCH', url: `/cards/${g.card.id}`, payload: '{"state":"FROZEN","maxSpendPerTransaction":7}',
      headers: { 'content-type': 'application/json', 'svc-wallet-signature': stamp(g.key, c.payloadToSign), 'request-id': c.requestId },
    });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('sandbox accepts the literal sandbox-valid-signature', async () => {
    const g = await aCardIn('ACTIVE');
    const c = (await patch(g.card.id, body)).json();
    const res = await patch(g.card.id, body, { 'svc-wallet-signature': 'sandbox-valid-signature', 'request-id': c.requestId });
    expect(res.statusCode).toBe(200);
  });
});

describe('signing credentials', () => {
  it('registers, lists and deletes P-256 keys; refuses malformed keys and duplicates', async () => {
    const c = await anApprovedCustomer(env, p, ['USDB']);
    const key = newSigningKey();
    const created = await p.request({ method: 'POST', url: `/customers/${c.customerId}/signing-credentials`, payload: { publicKey: key.publicKeyHex.toUpperCase() } });
    expect(created.statusCode, created.body).toBe(201);
    assertMatchesResponseSchema('POST', `${BASE}/customers/{customerId}/signing-credentials`, 201, created.json());
    expect(created.json()).toMatchObject({ customerId: c.customerId, publicKey: key.publicKeyHex });
    expect(created.json().id).toMatch(/^SigningCredential:/);
    const dup = await p.request({ method: 'POST', url: `/customers/${c.customerId}/signing-credentials`, payload: { publicKey: key.publicKeyHex } });
    expect(dup.statusCode).toBe(409);
    for (const publicKey of ['04' + 'ab'.repeat(64), '02' + 'ff'.repeat(32), 'hello']) {
      const bad = await p.request({ method: 'POST', url: `/customers/${c.customerId}/signing-credentials`, payload: { publicKey } });
      expect(bad.statusCode, publicKey).toBe(400);
      expect(bad.json().details.errors[0].field).toBe('publicKey');
    }
    const list = await p.request({ method: 'GET', url: `/customers/${c.customerId}/signing-credentials` });
    assertMatchesResponseSchema('GET', `${BASE}/customers/{customerId}/signing-credentials`, 200, list.json());
    expect(list.json().data.map((x: any) => x.id)).toEqual([created.json().id]);
    expect((await p.request({ method: 'DELETE', url: `/customers/${c.customerId}/signing-credentials/${created.json().id}` })).statusCode).toBe(204);
    expect((await p.request({ method: 'DELETE', url: `/customers/${c.customerId}/signing-credentials/${created.json().id}` })).statusCode).toBe(404);
    expect((await p.request({ method: 'GET', url: `/customers/${c.customerId}/signing-credentials` })).json().data).toEqual([]);
  });
});



describe("REF's Grid-Wallet-Signature header (issue 25) on the card PATCH signed retry", () => {
  it('a stamp in Grid-Wallet-Signature applies the change; a 401 names the failed check in details.reason', async () => {
    const g = await aCardIn('ACTIVE');
    const c = (await patch(g.card.id, { state: 'FROZEN' })).json();
    const stranger = newSigningKey();
    const refused = await patch(g.card.id, { state: 'FROZEN' }, { 'grid-wallet-signature': stamp(stranger, c.payloadToSign), 'request-id': c.requestId });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ code: 'WALLET_SIGNATURE_INVALID', details: { reason: 'SIGNER_NOT_AUTHORIZED' } });
    const res = await patch(g.card.id, { state: 'FROZEN' }, { 'grid-wallet-signature': stamp(g.key, c.payloadToSign), 'request-id': c.requestId });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().state).toBe('FROZEN');
  });

  it('Grid-Wallet-Signature: sandbox-valid-signature passes in the sandbox, as REF', async () => {
    const g = await aCardIn('ACTIVE');
    const c = (await patch(g.card.id, { state: 'FROZEN' })).json();
    const res = await patch(g.card.id, { state: 'FROZEN' }, { 'grid-wallet-signature': 'sandbox-valid-signature', 'request-id': c.requestId });
    expect(res.statusCode, res.body).toBe(200);
  });
});
