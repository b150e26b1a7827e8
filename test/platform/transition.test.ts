import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { aCard, aCardholder } from '../cards/helpers.js';
import { anActiveExternalAccount, anApprovedCustomer, fund, usdBankAccount } from '../helpers/builders.js';
import { ctxFor, type Ctx } from '../../src/deps.js';
import type { TenantTx } from '../../src/platform/db.js';
import { onStatement } from '../../src/platform/db.js';
import { IllegalTransitionError } from '../../src/platform/state-machine.js';
import { transitionCard } from '../../src/domains/cards/cards.repo.js';
import { transitionTransaction } from '../../src/domains/payments/transactions.repo.js';
import { submitPayment } from '../../src/domains/payments/settlement.service.js';
import type { CardEvent } from '../../src/domains/cards/cards.model.js';
import type { Card, Transaction } from '../../src/generated/prisma/client.js';
import { resourceKey } from '../../src/platform/ids.js';

/**
 * transition() (src/platform/state-machine.ts) against the real database: under concurrency (two moves
 * of one row where the second waits on the first's row lock: the loser's compare-and-set changes
 * nothing and it raises exactly what the same move raises when it is simply illegal), its cost, and
 * the history the money path's one-statement form of it writes.
 */
let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ SANDBOX_RAIL_DELAY_SCALE: '0' });
});
afterAll(() => env.close());

interface Raced<T> {
  winner: T;
  loser: unknown;
}

/** Backends of this test's database waiting for a lock (the second move, blocked by the first). */
async function lockWaiters(): Promise<number> {
  // On the Citus rehearsal (TEST_CITUS_WORKERS) the row lock is waited for on the worker holding the row; the
  // coordinator's backend waits for the worker's answer, so the waits are read from citus_lock_waits (29e).
  const rows = process.env.TEST_CITUS_WORKERS
    ? await env.deps.prisma.$queryRaw<Array<{ n: number }>>`SELECT count(*)::int AS n FROM citus_lock_waits`
    : await env.deps.prisma.$queryRaw<Array<{ n: number }>>`
    SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
  return rows[0]!.n;
}

/**
 * Runs `first` in a transaction that stays open after its move, starts `second` (which then waits for
 * the row lock), and commits the first only once the second is seen waiting: a lost race, every time.
 */
async function race<T>(ctx: Ctx, first: (tx: TenantTx) => Promise<T>, second: (tx: TenantTx) => Promise<unknown>): Promise<Raced<T>> {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let moved!: () => void;
  const firstMoved = new Promise<void>((r) => (moved = r));
  const winner = ctx.db.$transaction(async (tx) => {
    const result = await first(tx);
    moved();
    await gate;
    return result;
  });
  await firstMoved;
  const loser = ctx.db.$transaction((tx) => second(tx)).then(
    (r) => ({ moved: r }),
    (err: unknown) => err,
  );
  await eventually(async () => (await lockWaiters()) > 0);
  release();
  return { winner: await winner, loser: await loser };
}

async function cardRow(p: TestPlatform): Promise<{ ctx: Ctx; card: Card }> {
  const h = await aCardholder(env, p);
  const created = await aCard(p, h.customerId, h.usdb);
  const ctx = ctxFor(env.deps, p.platformId);
  return { ctx, card: await ctx.db.card.findFirstOrThrow({ where: { id: created.id } }) };
}

const asError = (e: unknown) => {
  const err = e as IllegalTransitionError;
  return { class: err?.constructor, status: err?.status, code: err?.code, message: err?.message, details: err?.details };
};

async function historyOf(ctx: Ctx, cardId: string) {
  // The issuer's activation at creation (PROCESSING → ACTIVE, issue 27) happens before the moves under test.
  const rows = await ctx.db.statusChange.findMany({ where: { machine: 'card', resourceId: resourceKey(cardId), NOT: { event: 'activate' } }, orderBy: { id: 'asc' } });
  return rows.map((r) => `${r.event}: ${r.fromStatus}>${r.toStatus}`);
}

/** CARD.STATE_CHANGE events after the card's activation at creation (issue 27). */
async function stateEvents(ctx: Ctx): Promise<number> {
  const events = await ctx.db.webhookEvent.findMany({ where: { type: 'CARD.STATE_CHANGE' }, orderBy: { createdAt: 'asc' } });
  return events.filter((e) => (e.data as { state?: string } | null)?.state !== 'ACTIVE' || e !== events[0]).length;
}

describe('a lost race raises the same error as an illegal move', () => {
  it('two concurrent freezes of one card: one moves it, the other raises what freezing a FROZEN card raises, and writes nothing', async () => {
    const p = await env.platform();
    const { ctx, card } = await cardRow(p);
    const freeze = (tx: TenantTx) => transitionCard(ctx, tx, card, 'freeze');
    const { winner, loser } = await race(ctx, freeze, freeze);
    expect(winner.state).toBe('FROZEN');
    expect(loser).toBeInstanceOf(IllegalTransitionError);

    const illegal = await ctx.db.$transaction((tx) => transitionCard(ctx, tx, { ...card, state: 'FROZEN' }, 'freeze')).catch((e: unknown) => e);
    expect(illegal).toBeInstanceOf(IllegalTransitionError);
    expect(asError(loser)).toEqual(asError(illegal));
    expect(asError(loser)).toMatchObject({ status: 409, code: 'INVALID_STATE_TRANSITION', details: { event: 'freeze', from: 'FROZEN', resourceId: card.id } });

    expect(await historyOf(ctx, card.id)).toEqual(['freeze: ACTIVE>FROZEN']);
    expect(await stateEvents(ctx)).toBe(1);
  });

  it('two concurrent closes (a move allowed from two states): the loser raises what closing a CLOSED card raises', async () => {
    const p = await env.platform();
    const { ctx, card } = await cardRow(p);
    const close = (tx: TenantTx) => transitionCard(ctx, tx, card, 'close');
    const { winner, loser } = await race(ctx, close, close);
    expect(winner).toMatchObject({ state: 'CLOSED', stateReason: 'CLOSED_BY_PLATFORM', cardholderSlot: null });

    const illegal = await ctx.db.$transaction((tx) => transitionCard(ctx, tx, { ...card, state: 'CLOSED' }, 'close')).catch((e: unknown) => e);
    expect(asError(loser)).toEqual(asError(illegal));
    expect(asError(loser)).toMatchObject({ status: 409, code: 'INVALID_STATE_TRANSITION', details: { from: 'CLOSED' } });
    expect(await historyOf(ctx, card.id)).toEqual(['close: ACTIVE>CLOSED']);
    expect(await stateEvents(ctx)).toBe(1);
  });

  it('a move that waited for a concurrent one and is still allowed records the status it actually replaced', async () => {
    const p = await env.platform();
    const { ctx, card } = await cardRow(p);
    // The close read the card ACTIVE; the freeze committed first, so the close replaces FROZEN.
    const { loser } = await race(
      ctx,
      (tx) => transitionCard(ctx, tx, card, 'freeze'),
      (tx) => transitionCard(ctx, tx, card, 'close'),
    );
    expect(loser).toMatchObject({ moved: { state: 'CLOSED' } });
    expect(await historyOf(ctx, card.id)).toEqual(['freeze: ACTIVE>FROZEN', 'close: FROZEN>CLOSED']);
    expect(await stateEvents(ctx)).toBe(2);
  });
});

/** A PENDING quote and its transaction (nothing held yet), to an ACTIVE bank account the sandbox rail pays at once. */
async function pendingPayment(p: TestPlatform): Promise<{ ctx: Ctx; t: Transaction }> {
  const workers = env.startWorkers();
  const dest = await anActiveExternalAccount(p, usdBankAccount()).finally(() => workers.close());
  const c = await anApprovedCustomer(env, p, ['USD']);
  await fund(p, c.accounts.USD!, 10_000);
  const res = await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 5_000 } });
  expect(res.statusCode, res.body).toBe(201);
  const ctx = ctxFor(env.deps, p.platformId);
  return { ctx, t: await ctx.db.transaction.findFirstOrThrow({ where: { id: res.json().transactionId } }) };
}

describe('a lost race on the money lifecycle', () => {
  it('two concurrent cancels of a PENDING payment: the loser raises what cancelling a FAILED payment raises; the payment and its quote move once', async () => {
    const p = await env.platform();
    const { ctx, t } = await pendingPayment(p);
    const cancel = (tx: TenantTx) => transitionTransaction(ctx, tx, t, 'cancel', { failureReason: 'USER_CANCELLATION' }, 'USER_CANCELLATION');
    const { winner, loser } = await race(ctx, cancel, cancel);
    expect(winner).toMatchObject({ status: 'FAILED', failureReason: 'USER_CANCELLATION' });

    const illegal = await ctx.db.$transaction((tx) => transitionTransaction(ctx, tx, { ...t, status: 'FAILED' }, 'cancel')).catch((e: unknown) => e);
    expect(illegal).toBeInstanceOf(IllegalTransitionError);
    expect(asError(loser)).toEqual(asError(illegal));
    expect(asError(loser)).toMatchObject({ status: 409, code: 'INVALID_STATE_TRANSITION', details: { event: 'cancel', from: 'FAILED', resourceId: t.id } });

    const history = await ctx.db.statusChange.findMany({ where: { resourceId: { in: [t.id, t.quoteId!].map(resourceKey) } }, orderBy: { id: 'asc' } });
    expect(history.map((h) => `${h.machine} ${h.event}: ${h.fromStatus}>${h.toStatus} (${h.reason})`)).toEqual([
      'transaction cancel: PENDING>FAILED (USER_CANCELLATION)',
      'quote cancel: PENDING>FAILED (null)',
    ]);
    expect((await ctx.db.quote.findFirstOrThrow({ where: { id: t.quoteId! } })).status).toBe('FAILED');
    expect(await ctx.db.webhookEvent.count({ where: { type: 'OUTGOING_PAYMENT.FAILED' } })).toBe(1);
  });
});

describe('what a move costs', () => {
  it('a card move is one statement for the compare-and-set and its history row, one for its event', async () => {
    const p = await env.platform();
    const { ctx, card } = await cardRow(p);
    const seen: string[] = [];
    const stop = onStatement(env.deps.prisma, (sql) => seen.push(sql));
    try {
      await ctx.db.$transaction((tx) => transitionCard(ctx, tx, card, 'freeze' satisfies CardEvent));
    } finally {
      stop();
    }
    const statements = seen.filter((s) => !/^\s*(BEGIN|COMMIT|ROLLBACK)/i.test(s));
    expect(statements, statements.join("\n---\n")).toHaveLength(2);
    expect(statements[0]).toMatch(/UPDATE "cards"[\s\S]*INSERT INTO "status_changes"/);
    expect(statements[1]).toMatch(/INSERT INTO "webhook_events"/);
  });

  it('another platform\'s row does not move: the move raises as for a missing row and writes nothing', async () => {
    const owner = await env.platform();
    const { card } = await cardRow(owner);
    const other = await env.platform();
    const ctx = ctxFor(env.deps, other.platformId);
    const err = await ctx.db.$transaction((tx) => transitionCard(ctx, tx, card, 'freeze')).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 409, code: 'INVALID_STATE_TRANSITION', details: { from: null } });
    const ownerCtx = ctxFor(env.deps, owner.platformId);
    expect((await ownerCtx.db.card.findFirstOrThrow({ where: { id: card.id } })).state).toBe('ACTIVE');
    expect(await historyOf(ownerCtx, card.id)).toEqual([]);
  });
});

describe('the money path writes the history transition() writes', () => {
  const historyOfPayment = async (ctx: Ctx, t: { id: string; quoteId: string }) =>
    (await ctx.db.statusChange.findMany({ where: { resourceId: { in: [t.id, t.quoteId].map(resourceKey) } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })).map(
      (h) => `${h.machine} ${h.event}: ${h.fromStatus}>${h.toStatus}`,
    );

  it('a quote executed at creation and settled: execute and complete of the transaction and its quote', async () => {
    const p = await env.platform();
    const { ctx, t } = await pendingPayment(p);
    const source = t.sourceAccountId;
    const dest = t.destinationAccountId!;
    const res = await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: source }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1_000, immediatelyExecute: true } });
    expect(res.statusCode, res.body).toBe(201);
    const paid = { id: res.json().transactionId as string, quoteId: res.json().id as string };
    await submitPayment(env.deps, p.platformId, paid.id);
    expect((await ctx.db.transaction.findFirstOrThrow({ where: { id: paid.id } })).status).toBe('COMPLETED');
    expect(await historyOfPayment(ctx, paid)).toEqual([
      'transaction execute: PENDING>PROCESSING', 'quote execute: PENDING>PROCESSING',
      'transaction complete: PROCESSING>COMPLETED', 'quote complete: PROCESSING>COMPLETED',
    ]);
  });

  it('a PENDING quote executed by POST /quotes/{id}/execute: the same rows, and a second execute adds none', async () => {
    const p = await env.platform();
    const { ctx, t } = await pendingPayment(p);
    expect((await p.request({ method: 'POST', url: `/quotes/${t.quoteId}/execute` })).statusCode).toBe(200);
    const again = await p.request({ method: 'POST', url: `/quotes/${t.quoteId}/execute` });
    expect(again.json()).toMatchObject({ status: 409, code: 'QUOTE_NOT_PENDING' });
    expect(await historyOfPayment(ctx, { id: t.id, quoteId: t.quoteId! })).toEqual(['transaction execute: PENDING>PROCESSING', 'quote execute: PENDING>PROCESSING']);
  });
});
