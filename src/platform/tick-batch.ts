/**
 * Coalesces the keyed reads asked for during one turn of the event loop into one call of `loadMany`,
 * made at `setImmediate` — after the I/O callbacks of that turn, so the reads of the requests that
 * arrived together become one statement (one round trip, one socket write) instead of one each.
 * Nothing is kept across turns: every read is sent after it was asked for, so it sees every write
 * committed before (read-your-writes holds as for a plain query). Each caller gets its own value.
 */
export class TickBatch<K, V> {
  private queue: Array<{ key: K; resolve: (v: V | undefined) => void; reject: (err: unknown) => void }> = [];
  private scheduled = false;

  /**
   * `loadMany` answers the rows found (any order, missing keys absent); `keyOf` names a key, `rowKey`
   * the key a row answers (the same string). `make` turns a row into a caller's value (called once per
   * caller: no value is shared).
   */
  constructor(
    private readonly loadMany: (keys: K[]) => Promise<unknown[][]>,
    private readonly keyOf: (key: K) => string,
    private readonly rowKey: (row: unknown[]) => string,
    private readonly make: (row: unknown[]) => V,
    private readonly maxBatch = 100,
  ) {}

  load(key: K): Promise<V | undefined> {
    return new Promise<V | undefined>((resolve, reject) => {
      this.queue.push({ key, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const queue = this.queue;
    this.queue = [];
    for (let i = 0; i < queue.length; i += this.maxBatch) void this.run(queue.slice(i, i + this.maxBatch));
  }

  private async run(waiters: TickBatch<K, V>['queue']): Promise<void> {
    const keys = new Map<string, K>();
    for (const w of waiters) keys.set(this.keyOf(w.key), w.key);
    let rows: unknown[][];
    try {
      rows = await this.loadMany([...keys.values()]);
    } catch (err) {
      for (const w of waiters) w.reject(err);
      return;
    }
    const byKey = new Map<string, unknown[]>();
    for (const row of rows) byKey.set(this.rowKey(row), row);
    for (const w of waiters) {
      const row = byKey.get(this.keyOf(w.key));
      try {
        w.resolve(row === undefined ? undefined : this.make(row));
      } catch (err) {
        w.reject(err);
      }
    }
  }
}
