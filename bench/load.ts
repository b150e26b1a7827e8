/**
 * The load generator of `npm run bench`, in a process of its own (forked by bench/run.ts, which sends one
 * LoadJob over IPC and receives one LoadResult back). autocannon drives `connections` keep-alive
 * connections for `durationS` seconds.
 *
 * Kinds:
 * - `get`: GET `paths[i]` round-robin (one path: the same request every time).
 * - `pay`: POST /quotes with `immediatelyExecute: true`, the source account round-robin over `sources` and
 *   the destination over `destinations` (coprime counts: every pairing comes up), each request with an
 *   Idempotency-Key of its own when `keyed` (as a careful platform sends one on every money-moving POST);
 *   the 201 answers' transaction ids and `totalSendingAmount`s come back for the money check.
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';

export interface LoadJob {
  kind: 'get' | 'pay';
  baseUrl: string;
  headers: Record<string, string>;
  connections: number;
  durationS: number;
  paths?: string[];
  pay?: { path: string; sources: string[]; destinations: string[]; amount: number; keyed: boolean };
}

export interface LoadResult {
  requests: number;
  durationS: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Up to 5 answers that were not 2xx (status and the start of the body), for the report. */
  failures: Array<{ status: number; body: string }>;
  /** pay: what the 201 answers said. */
  transactionIds?: string[];
  sentTotal?: string;
}

async function run(job: LoadJob): Promise<LoadResult> {
  const failures: LoadResult['failures'] = [];
  const noteFailure = (status: number, body: string) => {
    if (failures.length < 5) failures.push({ status, body: body.slice(0, 300) });
  };
  const transactionIds: string[] = [];
  let sentTotal = 0n;
  let next = 0;
  let opts: autocannon.Options;
  const common = { url: job.baseUrl, connections: job.connections, duration: job.durationS, headers: job.headers };
  if (job.kind === 'get') {
    const paths = job.paths!;
    opts = {
      ...common,
      requests: [
        {
          method: 'GET',
          setupRequest: (req: any) => ({ ...req, path: paths[next++ % paths.length] }),
          onResponse: (status: number, body: string) => {
            if (status < 200 || status >= 300) noteFailure(status, body);
          },
        },
      ],
    } as autocannon.Options;
  } else {
    const { path, sources, destinations, amount, keyed } = job.pay!;
    opts = {
      ...common,
      requests: [
        {
          method: 'POST',
          path,
          setupRequest: (req: any) => ({
            ...req,
            path,
            headers: keyed ? { ...job.headers, 'idempotency-key': randomUUID() } : job.headers,
            body: JSON.stringify({
              source: { sourceType: 'ACCOUNT', accountId: sources[next % sources.length] },
              destination: { destinationType: 'ACCOUNT', accountId: destinations[next++ % destinations.length] },
              lockedCurrencySide: 'SENDING',
              lockedCurrencyAmount: amount,
              immediatelyExecute: true,
            }),
          }),
          onResponse: (status: number, body: string) => {
            if (status !== 201) return noteFailure(status, body);
            const q = JSON.parse(body) as { transactionId: string; totalSendingAmount: number };
            transactionIds.push(q.transactionId);
            sentTotal += BigInt(q.totalSendingAmount);
          },
        },
      ],
    } as autocannon.Options;
  }
  const r = await autocannon(opts);
  return {
    requests: r.requests.total,
    durationS: r.duration,
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p90: r.latency.p90,
    p99: r.latency.p99,
    max: r.latency.max,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    failures,
    ...(job.kind === 'pay' ? { transactionIds, sentTotal: sentTotal.toString() } : {}),
  };
}

process.once('message', (job: LoadJob) => {
  run(job).then(
    (result) => process.send!({ result }, () => process.exit(0)),
    (err: Error) => process.send!({ error: String(err?.stack ?? err) }, () => process.exit(1)),
  );
});
