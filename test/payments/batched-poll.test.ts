import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { aFundedUsdPayer, balances, expectLedgerConsistent } from '../helpers/builders.js';
import { onStatement } from '../../src/platform/db.js';
import { pollPayments, submitPayments } from '../../src/domains/payments/settlement.batches.js';
import { queueOf } from '../../src/platform/queue.js';
import { PAYMENTS_QUEUE, enqueueSubmit } from '../../src/domains/payments/transactions.jobs.js';
import type { Job } from 'bullmq';
import { resourceKey } from '../../src/platform/ids.js';

/**
 * Issue 24 (24d): the payments worker asks about the payments it polls as one batch (pollPayments): one
 * read of their rows, one call to the rail when it takes batches, the completed ones settled by one
 * statement. The statements of a batch do not grow with its size, and every payment ends as if it had
 * been polled alone: settled once, a failed one failed and refunded, a repeated batch moves nothing.
 */
let env: TestEnv;
beforeAll(async () => {
  // The sandbox rail at its normal delays: a submission answers PENDING until the test clock passes them.
  env = await createTestEnv({ SANDBOX_RAIL_DELAY_SCALE: '1' });
}, 180_000);
afterAll(async () => {
  await env.close();
});

interface Sender {
  p: TestPlatform;
  usd: string;
  dest: string;
}

async function sender(): Promise<Sender> {
  const workers = env.startWorkers();
  try {
    const p = await env.platform();
    const { usd, dest } = await aFundedUsdPayer(env, p);
    return { p, usd, dest };
  } finally {
    await workers.close();
  }
}

/** A payment quoted and started at once through HTTP (PROCESSING, not yet handed to the rail). */
async function started(s: Sender, received: number): Promise<{ platformId: string; transactionId: string }> {
  const res = await s.p.request({
    method: 'POST',
    url: '/quotes',
    payload: { source: { sourceType: 'ACCOUNT', accountId: s.usd }, destination: { destinationType: 'ACCOUNT', accountId: s.dest }, lockedCurrencySide: 'RECEIVING', lockedCurrencyAmount: received, immediatelyExecute: true },
  });
  expect(res.statusCode, res.body).toBe(201);
  return { platformId: s.p.platformId, transactionId: res.json().transactionId as string };
}

/** A payment started and submitted (no worker runs): PROCESSING with the rail's reference, PENDING at the rail. `received` …904: delivery fails. */
async function submitted(s: Sender, received: number): Promise<{ platformId: string; transactionId: string }> {
  const item = await started(s, received);
  const [outcome] = await submitPayments(env.deps, [item]);
  expect(outcome).toMatchObject({ next: 'POLL' });
  return item;
}

async function counted<T>(fn: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  const stop = onStatement(env.deps.prisma, (text) => statements.push(text.replace(/\s+/g, ' ').slice(0, 120)));
  try {
    return { result: await fn(), statements };
  } finally {
    stop();
  }
}

const status = async (s: Sender, id: string) => (await s.p.request({ method: 'GET', url: `/transactions/${id}` })).json().status as string;

describe('batched polls (issue 24)', () => {
  it('a submission the rail answers PENDING stores its reference and its first poll\'s schedule in one statement, and the poll is queued at the rail\'s due time', async () => {
    const s = await sender();
    const item = await started(s, 2_000);
    const submit = await counted(() => submitPayments(env.deps, [item]));
    expect(submit.result).toMatchObject([{ next: 'POLL', recorded: true }]);
    // The claim, the destination, the bank's own, the record (reference + schedule): nothing read back, no second write of the schedule.
    expect(submit.statements, submit.statements.join('\n')).toHaveLength(4);
    expect(submit.statements.filter((x) => x.startsWith('UPDATE transactions t SET rail_reference'))).toHaveLength(1);
    const row = await env.deps.prisma.transaction.findFirstOrThrow({ where: { id: item.transactionId } });
    const payout = await env.deps.prisma.sandboxBankPayout.findFirstOrThrow({ where: { idempotencyKey: item.transactionId } });
    expect(row.railReference).toBe(payout.reference);
    // The schedule token: the rail's due time (never before its delay: an early poll is a wasted one) plus the grace.
    const due = row.reconcileAfter!.getTime() - env.deps.config.PAYMENT_RECONCILE_GRACE_MS;
    expect(due).toBeGreaterThanOrEqual(payout.submittedAt.getTime() + 8_000);

    // Through the worker: the poll job holds that token and is due at that time (its delay counted from the rail's answer).
    const again = await sender();
    const id2 = (await started(again, 2_100)).transactionId;
    const queue = queueOf(env.deps, PAYMENTS_QUEUE);
    await enqueueSubmit(env.deps, { platformId: again.p.platformId, transactionId: id2 });
    const workers = env.startWorkers();
    let poll: Job;
    try {
      poll = await eventually(async () => (await queue.getJobs(['delayed', 'wait', 'active', 'completed'])).find((j) => j.name === 'poll' && j.data.transactionId === id2), 30_000);
    } finally {
      await workers.close();
    }
    const row2 = await env.deps.prisma.transaction.findFirstOrThrow({ where: { id: id2 } });
    expect(poll.data.token).toBe(row2.reconcileAfter!.getTime());
    // BullMQ stamps the job (its `timestamp`) a moment after the scheduler read the clock its delay was counted from:
    // due + that moment (sub-millisecond, but it can cross a millisecond: once 1 ms). Bookkeeping before the queueing
    // (a read back, a move of the schedule: the statements counted above) would add round trips, not a moment.
    const STAMP_SKEW_MS = 50;
    expect(poll.timestamp + poll.delay).toBeLessThanOrEqual(row2.reconcileAfter!.getTime() - env.deps.config.PAYMENT_RECONCILE_GRACE_MS + STAMP_SKEW_MS);
    expect(poll.timestamp + poll.delay).toBeGreaterThanOrEqual(row2.reconcileAfter!.getTime() - env.deps.config.PAYMENT_RECONCILE_GRACE_MS);
  }, 180_000);

  it('polls many payments in as many statements as one, each settled once; a failed one is failed and refunded', async () => {
    const s = await sender();
    const one = await submitted(s, 1_000);
    const many = [await submitted(s, 1_100), await submitted(s, 1_200), await submitted(s, 1_300), await submitted(s, 1_400)];
    const failing = await submitted(s, 1_904);

    // Still PENDING at the rail: a poll writes nothing and asks again later.
    const early = await counted(() => pollPayments(env.deps, [...many, one]));
    expect(early.result.every((o) => !(o instanceof Error) && o.next === 'POLL'), JSON.stringify(early.result)).toBe(true);
    expect(early.statements, early.statements.join('\n')).toHaveLength(2);

    env.clock.advance(60_000);
    const single = await counted(() => pollPayments(env.deps, [one]));
    const batch = await counted(() => pollPayments(env.deps, many));
    console.log(`poll, 1 payment: ${single.statements.length} statements\n  ${single.statements.join('\n  ')}\npoll, ${many.length} payments: ${batch.statements.length} statements\n  ${batch.statements.join('\n  ')}`);
    // Issue 24h: the settlement's own statement ends the check schedule (`recorded`: nothing left for the scheduler to read or move).
    expect(single.result).toEqual([{ next: 'DONE', recorded: true }]);
    expect(batch.result).toEqual(many.map(() => ({ next: 'DONE', recorded: true })));
    const schedules = await env.deps.prisma.transaction.findMany({ where: { id: { in: [one, ...many].map((p) => p.transactionId) } }, select: { reconcileAfter: true, railReference: true } });
    expect(schedules.every((t) => t.reconcileAfter === null && t.railReference !== null), JSON.stringify(schedules)).toBe(true);
    expect(batch.statements.length, batch.statements.join('\n')).toBe(single.statements.length);
    for (const p of [one, ...many]) expect(await status(s, p.transactionId)).toBe('COMPLETED');

    const failed = await pollPayments(env.deps, [failing, one]);
    expect(failed).toEqual([{ next: 'REFUND' }, { next: 'DONE' }]);
    expect(await status(s, failing.transactionId)).toBe('FAILED');

    // A redelivered batch moves nothing twice.
    const before = await balances(env, s.usd);
    const again = await pollPayments(env.deps, [...many, one, failing]);
    expect(again.filter((o) => o instanceof Error)).toEqual([]);
    expect(await balances(env, s.usd)).toEqual(before);
    // Settled: 1 000 + 1 100 + 1 200 + 1 300 + 1 400 paid out (and their fees); the failed one still held until its refund runs.
    expect(before.held).toBeGreaterThan(0n);
    await expectLedgerConsistent(env, s.p.platformId);
  }, 180_000);

  it('queues the polls of a submission batch as one job holding each payment\'s token, due when the last is, and settles each once (issue 24n)', async () => {
    const s = await sender();
    const items = [await started(s, 5_000), await started(s, 5_100), await started(s, 5_200)];
    const ids = items.map((i) => i.transactionId);
    const queue = queueOf(env.deps, PAYMENTS_QUEUE);
    // The requests' own submit jobs are dropped; the three are queued again in one turn: one `submits` job, one worker batch.
    await queue.drain();
    await Promise.all(items.map((i) => enqueueSubmit(env.deps, i)));
    const ours = (j: Job) => j.name === 'polls' && (j.data as unknown as { items: Array<{ transactionId: string }> }).items.some((i) => ids.includes(i.transactionId));
    const workers = env.startWorkers();
    try {
      const polls = await eventually(async () => (await queue.getJobs(['delayed', 'wait'])).find(ours), 30_000);
      const rows = await env.deps.prisma.transaction.findMany({ where: { id: { in: ids } }, select: { id: true, reconcileAfter: true } });
      const tokens = new Map(rows.map((r) => [r.id, r.reconcileAfter!.getTime()]));
      const held = (polls.data as unknown as { items: Array<{ transactionId: string; token: number }> }).items;
      expect(held.map((i) => i.transactionId).sort()).toEqual([...ids].sort());
      for (const i of held) expect(i.token).toBe(tokens.get(i.transactionId));
      // Due when the last of them is: none asked before the rail's time (the delay counts on the service's clock, which an earlier test moved on).
      expect(polls.delay).toBeGreaterThanOrEqual(Math.max(...tokens.values()) - env.deps.config.PAYMENT_RECONCILE_GRACE_MS - env.clock.now().getTime());
      expect((await queue.getJobs(['delayed', 'wait'])).filter((j) => j.name === 'poll' && ids.includes(j.data.transactionId))).toEqual([]);
      // The rail's delay passed: the job runs now and settles every payment once.
      env.clock.advance(60_000);
      await polls.promote();
      await eventually(async () => (await Promise.all(ids.map((id) => status(s, id)))).every((x) => x === 'COMPLETED'), 30_000);
    } finally {
      await workers.close();
    }
    expect(await env.deps.prisma.statusChange.count({ where: { platformId: s.p.platformId, machine: 'transaction', resourceId: { in: ids.map(resourceKey) }, toStatus: 'COMPLETED' } })).toBe(ids.length);
    await expectLedgerConsistent(env, s.p.platformId);
  }, 180_000);
});
