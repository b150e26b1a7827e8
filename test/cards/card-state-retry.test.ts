import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer } from '../helpers/builders.js';
import { registerKey, signedPatch } from './helpers.js';
import { sweepCardStates } from '../../src/domains/cards/index.js';
import { CardIssuerError, type CardIssuerAdapter, type SetStateRequest } from '../../src/adapters/card-issuer/port.js';

/**
 * Issue 27: a freeze, unfreeze or close must reach the issuer even when it is down at that moment. What
 * is owed is recorded on the card in Postgres with the change, and the card sweep pushes it again with
 * backoff until the issuer accepts it; a card that moved again meanwhile is pushed in its newest state.
 */
let env: TestEnv;
let p: TestPlatform;
let issuer: CardIssuerAdapter;
let outage = false;
const pushed: SetStateRequest[] = [];

beforeAll(async () => {
  env = await createTestEnv({ CARD_ISSUER_STATE_RETRY_BASE_MS: '60000', CARD_ISSUER_STATE_RETRY_MAX_MS: '240000' });
  p = await env.platform();
  issuer = env.deps.adapters.cardIssuer!;
  const setState = issuer.setState.bind(issuer);
  // The issuer's outage, as the service meets it: its calls fail retryably.
  (issuer as { setState: CardIssuerAdapter['setState'] }).setState = async (req, opts) => {
    if (outage) throw new CardIssuerError('issuer unreachable', true);
    pushed.push(req);
    return setState(req, opts);
  };
});
afterAll(() => env.close());

const owed = (id: string) => env.deps.prisma.card.findFirstOrThrow({ where: { id }, select: { state: true, issuerStateDueAt: true, issuerStateAttempts: true } });

describe('card state owed to the issuer', () => {
  it('a freeze the issuer missed is recorded, retried with backoff by the sweep, and cleared once accepted', async () => {
    const c = await anApprovedCustomer(env, p, ['USD']);
    const key = await registerKey(p, c.customerId);
    const res = await p.request({ method: 'POST', url: '/cards', payload: { cardholderId: c.customerId, form: 'VIRTUAL', fundingSources: [c.accounts.USD!], platformCardId: `retry-${Date.now()}x` } });
    expect(res.statusCode, res.body).toBe(201);
    const card = res.json();

    outage = true;
    // The test clock runs on from its start: the next attempt is due BASE after the failed call, which
    // happened between these two readings (however long a loaded machine takes).
    const frozenFrom = env.clock.now().getTime();
    const frozen = await signedPatch(p, card.id, { state: 'FROZEN' }, key);
    const frozenTo = env.clock.now().getTime();
    expect(frozen.statusCode, frozen.body).toBe(200);
    expect(frozen.json().state).toBe('FROZEN');
    let row = await owed(card.id);
    expect(row.issuerStateAttempts).toBe(1);
    expect(row.issuerStateDueAt!.getTime()).toBeGreaterThanOrEqual(frozenFrom + 60_000);
    expect(row.issuerStateDueAt!.getTime()).toBeLessThanOrEqual(frozenTo + 60_000);

    // Not due yet: nothing is pushed.
    await sweepCardStates(env.deps, 100);
    expect(pushed.filter((r) => r.cardId === card.id)).toHaveLength(0);
    // Due, still down: the next attempt waits twice as long.
    env.clock.advance(60_001);
    const sweptFrom = env.clock.now().getTime();
    await sweepCardStates(env.deps, 100);
    const sweptTo = env.clock.now().getTime();
    row = await owed(card.id);
    expect(row.issuerStateAttempts).toBe(2);
    expect(row.issuerStateDueAt!.getTime()).toBeGreaterThanOrEqual(sweptFrom + 120_000);
    expect(row.issuerStateDueAt!.getTime()).toBeLessThanOrEqual(sweptTo + 120_000);

    // Moved again while owed: the issuer gets the newest state, once it is back.
    const unfrozen = await signedPatch(p, card.id, { state: 'ACTIVE' }, key);
    expect(unfrozen.statusCode, unfrozen.body).toBe(200);
    outage = false;
    env.clock.advance(240_000);
    await sweepCardStates(env.deps, 100);
    expect(pushed.filter((r) => r.cardId === card.id).map((r) => r.state)).toEqual(['ACTIVE']);
    expect(await owed(card.id)).toMatchObject({ state: 'ACTIVE', issuerStateDueAt: null, issuerStateAttempts: 0 });
    // Nothing is owed any more: the sweep pushes nothing again.
    env.clock.advance(600_000);
    await sweepCardStates(env.deps, 100);
    expect(pushed.filter((r) => r.cardId === card.id)).toHaveLength(1);
  });

  it('a state the issuer accepts at once leaves nothing owed', async () => {
    outage = false;
    const c = await anApprovedCustomer(env, p, ['USD']);
    const key = await registerKey(p, c.customerId);
    const card = (await p.request({ method: 'POST', url: '/cards', payload: { cardholderId: c.customerId, form: 'VIRTUAL', fundingSources: [c.accounts.USD!], platformCardId: `ok-${Date.now()}x` } })).json();
    expect((await signedPatch(p, card.id, { state: 'FROZEN' }, key)).statusCode).toBe(200);
    expect(pushed.filter((r) => r.cardId === card.id).map((r) => r.state)).toEqual(['FROZEN']);
    expect(await owed(card.id)).toMatchObject({ state: 'FROZEN', issuerStateDueAt: null, issuerStateAttempts: 0 });
  });
});
