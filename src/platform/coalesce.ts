/**
 * Issue 24: the one coalescing helper. Batching is said in the interface: a batch function takes items
 * and returns one result per item, in order (TigerBeetle's "a batch in, a result per event"); the
 * coalescer only decides which items travel together. Every batcher of the house is one of these:
 * the payment starts of one event-loop turn (money-path.repo.ts), the submissions queued and submitted
 * by the payments worker (transactions.jobs.ts), reads by key (raw-rows.ts), rate-limit hits
 * (http/rate-limit-store.ts).
 *
 *   key        items with different keys never share a batch (one platform per statement)
 *   run        the batch function: a result or an Error per item, or a throw for the whole batch
 *   flush      when a batch leaves: at the end of this turn of the event loop ('turn', setImmediate),
 *              or `lingerMs` after its first item (a worker gathering the jobs it holds)
 *   maxBatch   a batch leaves as soon as it has this many items
 *   refused    a batch refused as a whole (run threw an error this accepts: a guard failed, so the
 *              batch wrote nothing) is run again one item at a time, in the order the items came,
 *              each getting the answer it would have had alone
 */
export interface BatchRule<I, R> {
  run(items: readonly I[]): Promise<ReadonlyArray<R | Error>>;
  refused?(err: unknown): boolean;
}

export type FlushRule = 'turn' | { lingerMs: number };

export interface CoalesceRule<I, R> extends BatchRule<I, R> {
  key?(item: I): string;
  flush: FlushRule;
  maxBatch: number;
}

/** Coalesced calls: `load(item)` answers with that item's result once its batch ran. */
export interface Coalescer<I, R> {
  load(item: I): Promise<R>;
}

/**
 * Runs `items` as one batch; a batch the rule refuses as a whole is run one by one. One result (or Error)
 * per item, in order. A throw the rule does not call a refusal is every item's error; a batch of one
 * gets its own throw as its error.
 */
export async function runBatch<I, R>(items: readonly I[], rule: BatchRule<I, R>): Promise<Array<R | Error>> {
  try {
    return [...(await rule.run(items))];
  } catch (err) {
    if (items.length > 1 && rule.refused?.(err)) {
      const out: Array<R | Error> = [];
      for (const item of items) out.push((await runBatch([item], rule))[0]!);
      return out;
    }
    return items.map(() => asError(err));
  }
}

export function coalescer<I, R>(rule: CoalesceRule<I, R>): Coalescer<I, R> {
  let pending = new Map<string, Array<{ item: I; resolve(r: R): void; reject(e: Error): void }>>();
  let scheduled = false;
  const send = (list: Array<{ item: I; resolve(r: R): void; reject(e: Error): void }>) => {
    runBatch(list.map((w) => w.item), rule).then((results) =>
      list.forEach((w, i) => {
        const r = results[i];
        if (r instanceof Error) w.reject(r);
        else w.resolve(r as R);
      }),
    );
  };
  const flush = () => {
    scheduled = false;
    const batches = pending;
    pending = new Map();
    // Side by side: each item is answered as soon as its own batch is written, not after the others.
    for (const list of batches.values()) send(list);
  };
  return {
    load(item) {
      return new Promise<R>((resolve, reject) => {
        const key = rule.key?.(item) ?? '';
        let list = pending.get(key);
        if (!list) pending.set(key, (list = []));
        list.push({ item, resolve, reject });
        if (list.length >= rule.maxBatch) {
          pending.delete(key);
          send(list);
          return;
        }
        if (scheduled) return;
        scheduled = true;
        if (rule.flush === 'turn') setImmediate(flush);
        else setTimeout(flush, rule.flush.lingerMs);
      });
    },
  };
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
