/**
 * The load generator of the card authorization bench (issue 27, 27d), in a process of its own (forked by
 * bench/card-authorization.ts, which sends one CardLoadJob over IPC and receives one CardLoadResult back), so
 * the CPU it spends signing, sending and timing is neither the API's nor counted as the API's.
 *
 * Two load models:
 * - `open` — what a card network does: authorizations arrive whatever the answers to earlier ones. Exactly
 *   round(ratePerS × durationS) arrivals at independent, uniformly random times over the window (a Poisson
 *   process conditioned on its count: bursts included, the offered rate exact). Each request is sent at its
 *   arrival time on a socket of its own if none is free (no limit on sockets: the client never holds a request
 *   back), and its latency runs from the SCHEDULED arrival to the answer's last byte, so any queueing — in the
 *   API, the pg pool, Postgres, or this process being late — counts (no coordinated omission).
 * - `closed` — `connections` loops, each sending the next authorization when the previous one is answered: the
 *   capacity figure (how many decisions/s the service completes when always busy); its latency is bound by
 *   Little's law (mean = connections ÷ throughput), not a network's deadline.
 */
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import { randomInt, randomUUID } from 'node:crypto';
import { signSandboxMessage, SANDBOX_PROCESSOR_SIGNATURE } from '../src/adapters/card-issuer/sandbox/index.js';

export interface CardLoadJob {
  model: 'open' | 'closed';
  /** The API's origin, e.g. http://127.0.0.1:4321. */
  baseUrl: string;
  secret: string;
  refs: string[];
  durationS: number;
  /** open: arrivals per second. */
  ratePerS?: number;
  /** open: seconds of arrivals at the same rate before the measured window (sockets, the API's pool, JIT), not counted. */
  leadInS?: number;
  /** closed: loops. */
  connections?: number;
}

export interface CardLoadResult {
  model: 'open' | 'closed';
  /** open: arrivals scheduled in the window. */
  scheduled: number;
  decisions: number;
  approvals: number;
  /** Σ amount approved (minor units, as text: bigint over IPC), the lead-in's included (for the money check). */
  approved: string;
  errors: number;
  /** First failures (status and the start of the body). */
  failures: string[];
  /** ms, from the scheduled arrival (open) or the send (closed) to the answer. */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Decisions answered ÷ the window. */
  achievedPerS: number;
  /** open: how late this process sent a request after its scheduled time (p99 and max, ms): its own share of the latency. */
  sendLateP99?: number;
  sendLateMax?: number;
  /** open: most requests in flight at once (the sockets the client needed). */
  maxInFlight?: number;
  /** ms from the window's start to the last answer. */
  lastAnswerMs: number;
}

const PATH = '/2025-10-13/adapters/card-sandbox/webhooks';

/** One signed authorization request; resolves with the decision or undefined (a non-200 or a failure noted in `failures`). */
function authorize(agent: http.Agent, url: URL, secret: string, ref: string, amount: number, failures: string[]): Promise<{ approved: boolean } | undefined> {
  const body = JSON.stringify({ kind: 'AUTHORIZATION_REQUEST', processorRef: ref, issuerTransactionToken: randomUUID(), messageKind: 'AUTHORIZATION', amount, currency: 'USD', merchant: { descriptor: 'BENCH MERCHANT', mcc: '5812', country: 'US' } });
  return new Promise((resolve) => {
    const req = http.request({
      agent, host: url.hostname, port: url.port, path: PATH, method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), [SANDBOX_PROCESSOR_SIGNATURE]: signSandboxMessage(secret, body) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) {
          if (failures.length < 5) failures.push(`${res.statusCode} ${text.slice(0, 200)}`);
          return resolve(undefined);
        }
        resolve(JSON.parse(text) as { approved: boolean });
      });
      res.on('error', (err) => {
        if (failures.length < 5) failures.push(String(err));
        resolve(undefined);
      });
    });
    req.on('error', (err) => {
      if (failures.length < 5) failures.push(String(err));
      resolve(undefined);
    });
    req.end(body);
  });
}

const percentile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : NaN);
const round1 = (x: number) => Math.round(x * 10) / 10;

interface Tally {
  decisions: number;
  approvals: number;
  approved: bigint;
  errors: number;
  failures: string[];
  latencies: number[];
  lastAnswer: number;
  trace?: string[];
}

/** One authorization; `t` counts it, `leadIn` (unmeasured) only its approved amount. */
async function one(agent: http.Agent, url: URL, job: CardLoadJob, t: Tally, from: number, leadIn?: Tally): Promise<void> {
  const amount = 1 + randomInt(5_000);
  const answer = await authorize(agent, url, job.secret, job.refs[randomInt(job.refs.length)]!, amount, t.failures);
  if (leadIn) {
    if (answer?.approved) leadIn.approved += BigInt(amount);
    return;
  }
  const now = performance.now();
  t.latencies.push(now - from);
  t.trace?.push(`${Math.round(performance.timeOrigin + from)} ${(now - from).toFixed(1)}`);
  t.lastAnswer = now;
  if (!answer) {
    t.errors++;
    return;
  }
  t.decisions++;
  if (answer.approved) {
    t.approvals++;
    t.approved += BigInt(amount);
  }
}

/** Arrival offsets (ms) of the open model: n uniform points over the window, sorted. */
function arrivals(n: number, windowMs: number): number[] {
  return Array.from({ length: n }, () => Math.random() * windowMs).sort((a, b) => a - b);
}

async function openLoop(job: CardLoadJob, agent: http.Agent, url: URL, t: Tally, onMeasuring: () => void): Promise<Partial<CardLoadResult> & { start: number }> {
  const leadInMs = (job.leadInS ?? 0) * 1000;
  // Rounded up: the offered rate is never below the one asked for.
  const at = [...arrivals(Math.ceil(job.ratePerS! * (job.leadInS ?? 0)), leadInMs), ...arrivals(Math.ceil(job.ratePerS! * job.durationS), job.durationS * 1000).map((x) => leadInMs + x)];
  const measuredFrom = at.length - Math.ceil(job.ratePerS! * job.durationS);
  const leadIn = { approved: 0n } as Tally;
  const late: number[] = [];
  const pending: Promise<void>[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const start = performance.now();
  let next = 0;
  while (next < at.length) {
    const now = performance.now() - start;
    // Everything due is sent now (a late tick sends its backlog at once; the lateness is in the latency).
    while (next < at.length && at[next]! <= now) {
      if (next === measuredFrom) onMeasuring();
      const measured = next >= measuredFrom;
      const scheduled = start + at[next++]!;
      if (measured) late.push(performance.now() - scheduled);
      inFlight++;
      if (measured) maxInFlight = Math.max(maxInFlight, inFlight);
      pending.push(one(agent, url, job, t, scheduled, measured ? undefined : leadIn).finally(() => void inFlight--));
    }
    if (next < at.length) {
      const wait = at[next]! - (performance.now() - start);
      // A timer for the next arrival; under ~1 ms, yield to the event loop only (timers are coarser than that).
      await new Promise<void>((r) => (wait > 1 ? setTimeout(r, wait - 1) : setImmediate(r)));
    }
  }
  await Promise.all(pending);
  late.sort((a, b) => a - b);
  t.approved += leadIn.approved;
  return { scheduled: at.length - measuredFrom, sendLateP99: round1(percentile(late, 0.99)), sendLateMax: round1(late.at(-1) ?? NaN), maxInFlight, start: start + leadInMs };
}

async function closedLoop(job: CardLoadJob, agent: http.Agent, url: URL, t: Tally, onMeasuring: () => void): Promise<{ start: number }> {
  onMeasuring();
  const start = performance.now();
  const until = start + job.durationS * 1000;
  await Promise.all(Array.from({ length: job.connections! }, async () => {
    while (performance.now() < until) await one(agent, url, job, t, performance.now());
  }));
  return { start };
}

/** `onMeasuring` is called when the measured window starts (after an open loop's lead-in): the parent's CPU snapshot. */
export async function runCardLoad(job: CardLoadJob, onMeasuring: () => void = () => undefined): Promise<CardLoadResult> {
  // Keep-alive sockets, as many as requests in flight: the client never queues a request behind another.
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const url = new URL(job.baseUrl);
  const t: Tally = { decisions: 0, approvals: 0, approved: 0n, errors: 0, failures: [], latencies: [], lastAnswer: 0, trace: process.env.BENCH_CARD_TRACE ? [] : undefined };
  try {
    const { start, ...r } = job.model === 'open' ? await openLoop(job, agent, url, t, onMeasuring) : await closedLoop(job, agent, url, t, onMeasuring);
    if (t.trace) writeFileSync(`${process.env.BENCH_CARD_TRACE}.${job.model}`, `${t.trace.join('\n')}\n`);
    const sorted = t.latencies.sort((a, b) => a - b);
    return {
      model: job.model, scheduled: t.decisions + t.errors, ...r,
      decisions: t.decisions, approvals: t.approvals, approved: t.approved.toString(), errors: t.errors, failures: t.failures,
      p50: round1(percentile(sorted, 0.5)), p90: round1(percentile(sorted, 0.9)), p99: round1(percentile(sorted, 0.99)), max: round1(sorted.at(-1) ?? NaN),
      achievedPerS: Math.round((t.decisions / job.durationS) * 10) / 10,
      lastAnswerMs: Math.round(t.lastAnswer - start),
    };
  } finally {
    agent.destroy();
  }
}

if (process.send) {
  process.once('message', (job: CardLoadJob) => {
    runCardLoad(job, () => process.send!({ measuring: true })).then(
      (result) => process.send!({ result }, () => process.exit(0)),
      (err: Error) => process.send!({ error: String(err?.stack ?? err) }, () => process.exit(1)),
    );
  });
}
