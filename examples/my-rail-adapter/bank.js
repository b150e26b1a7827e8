/**
 * Stands in for a bank's payment API so the example runs anywhere: a real adapter would call the
 * bank over HTTPS here. Payments are kept in memory (the "bank's" books), keyed by the idempotency
 * key the adapter sends, as real bank APIs do.
 */
export class SimulatedBank {
  /** @param {{ settleMs: number }} opts */
  constructor(opts) {
    this.settleMs = opts.settleMs;
    /** @type {Map<string, { id: string, key: string, amount: bigint, accountNumber: string, createdAtMs: number }>} */
    this.payments = new Map();
    /** @type {Map<string, number>} how often each key really moved money */
    this.paid = new Map();
    /** @type {Map<string, string>} */
    this.returns = new Map();
  }

  /**
   * POST /payments (Idempotency-Key): creates at most one payment per key.
   * @param {string} key @param {bigint} amount @param {string} accountNumber @param {AbortSignal} [signal]
   */
  async createPayment(key, amount, accountNumber, signal) {
    signal?.throwIfAborted();
    if (accountNumber.endsWith('002')) throw Object.assign(new Error('account closed'), { code: 'ACCOUNT_CLOSED' });
    let p = this.payments.get(key);
    if (!p) {
      p = { id: `bank_${key.replace(/^Transaction:/, '')}`, key, amount, accountNumber, createdAtMs: Date.now() };
      this.payments.set(key, p);
      this.paid.set(key, (this.paid.get(key) ?? 0) + 1);
    }
    return { id: p.id, state: this.stateOf(p) };
  }

  /**
   * GET /payments/{id}: the bank's own states: QUEUED, SENT, SETTLED, REJECTED, ...
   * @param {string} id @param {AbortSignal} [signal]
   */
  async getPayment(id, signal) {
    signal?.throwIfAborted();
    const p = [...this.payments.values()].find((x) => x.id === id);
    if (!p) return undefined;
    return { id: p.id, state: this.stateOf(p) };
  }

  /**
   * POST /returns (Idempotency-Key).
   * @param {string} key @param {string} paymentId @param {AbortSignal} [signal]
   */
  async returnPayment(key, paymentId, signal) {
    signal?.throwIfAborted();
    if (!this.returns.has(key)) this.returns.set(key, `ret_${this.returns.size + 1}_${paymentId}`);
    return { id: /** @type {string} */ (this.returns.get(key)), state: 'DONE' };
  }

  /** @param {{ accountNumber: string, createdAtMs: number }} p */
  stateOf(p) {
    const age = Date.now() - p.createdAtMs;
    if (p.accountNumber.endsWith('004')) return age < this.settleMs ? 'SENT' : 'REJECTED';
    if (age < this.settleMs / 2) return 'QUEUED';
    if (age < this.settleMs) return 'SENT';
    return 'SETTLED';
  }
}
