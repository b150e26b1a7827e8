import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpRail } from '../../src/adapters/rails/http/index.js';
import { RailError, type PayoutRequest, type RailAdapter } from '../../src/adapters/rails/port.js';
import { BridgeServer, type BridgeFault } from '../helpers/bridge-server.js';
import { contractContext, type ContractContext } from '../contracts/context.js';
import { describeRailContract } from '../contracts/rail.contract.js';

const usd = (accountNumber: string) => ({ accountType: 'USD_ACCOUNT', accountInfo: { accountNumber, routingNumber: '021000021' }, identifierLast3: accountNumber.slice(-3) });

async function bridgeAdapter(settings: Record<string, string> = {}) {
  const bridge = await new BridgeServer().start();
  bridge.settleMs = 60;
  const context = contractContext('rail', 'http');
  bridge.trust(context.signer.publicKeyPem);
  const adapter = createHttpRail({ URL: bridge.url, PUBLIC_KEY: bridge.publicKeyPem, TIMEOUT_MS: '300', ...settings }, context);
  return { bridge, context, adapter };
}

describeRailContract('http (loopback bridge)', async () => {
  // The contract asks for behaviour, not speed: a loaded machine may take longer than the faults' 300 ms.
  const { bridge, context, adapter } = await bridgeAdapter({ TIMEOUT_MS: '30000' });
  return {
    adapter,
    context,
    rail: 'WIRE',
    currency: 'USD',
    completes: usd('123456789'),
    fails: usd('123456004'),
    settleWithinMs: 3_000,
    payoutCount: async (key) => bridge.paid.get(key) ?? 0,
    close: () => bridge.stop(),
  };
});

describe('http bridge: faults', () => {
  let bridge: BridgeServer;
  let adapter: RailAdapter;
  let context: ContractContext;
  beforeAll(async () => {
    ({ bridge, adapter, context } = await bridgeAdapter());
  });
  afterAll(() => bridge.stop());

  const payout = (accountNumber = '123456789', key = `Transaction:${randomUUID()}`): PayoutRequest => ({ idempotencyKey: key, rail: 'WIRE', amount: 12_345n, currency: 'USD', destination: usd(accountNumber), remittanceInformation: 'inv 1' });

  it('signs every request with the service key, in the documented JSON shape', async () => {
    const req = payout();
    const r = await adapter.submitPayout(req);
    const seen = bridge.requestsTo('/payouts').at(-1)!;
    expect(seen.signatureValid).toBe(true);
    expect(seen.body).toMatchObject({ idempotencyKey: req.idempotencyKey, rail: 'WIRE', amount: 12_345, currency: 'USD', destination: { accountType: 'USD_ACCOUNT', identifierLast3: '789' }, remittanceInformation: 'inv 1' });
    expect(typeof seen.body.sentAt).toBe('string');
    await adapter.getPayoutStatus(r.reference, { idempotencyKey: req.idempotencyKey });
    expect(bridge.requestsTo('/payouts/status').at(-1)).toMatchObject({ signatureValid: true, body: { reference: r.reference, idempotencyKey: req.idempotencyKey } });
  });

  it('a bridge timing out is a retryable failure; asking again with the same key pays once', async () => {
    bridge.faults['/payouts'] = ['timeout'];
    const req = payout();
    const started = Date.now();
    const err = await adapter.submitPayout(req).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RailError);
    expect((err as RailError).retryable).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_200);
    // The bridge did act before its answer was lost.
    expect(bridge.paid.get(req.idempotencyKey)).toBe(1);
    const again = await adapter.submitPayout(req);
    expect(again.reference).toBe(bridge.payouts.get(req.idempotencyKey)!.reference);
    expect(bridge.paid.get(req.idempotencyKey)).toBe(1);
  });

  it.each<BridgeFault>(['garbage', 'garbage-unsigned', 'bad-signature', 'off-protocol', 'wrong-payout', 'http500'])('a bridge answering %s is a retryable failure, never an outcome', async (fault) => {
    bridge.faults['/payouts'] = [fault];
    const req = payout();
    const err = await adapter.submitPayout(req).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RailError);
    expect((err as RailError).retryable).toBe(true);
    // And the next, sane answer is taken.
    expect((await adapter.submitPayout(req)).reference).toBe(bridge.payouts.get(req.idempotencyKey)!.reference);
  });

  it('garbage on a status poll is retryable too; an unknown reference reads as PENDING', async () => {
    const req = payout();
    const r = await adapter.submitPayout(req);
    bridge.faults['/payouts/status'] = ['garbage'];
    await expect(adapter.getPayoutStatus(r.reference)).rejects.toMatchObject({ retryable: true });
    expect((await adapter.getPayoutStatus(`brg_${randomUUID()}`)).status).toBe('PENDING');
  });

  it('a status outside the protocol reads as PENDING', async () => {
    const r = await adapter.submitPayout(payout('123456009'));
    expect(r.status).toBe('PENDING');
    expect((await adapter.getPayoutStatus(r.reference)).status).toBe('PENDING');
  });

  it('a signed refusal marked not retryable is final; its message reaches the error', async () => {
    const err = await adapter.submitPayout(payout('123456002')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RailError);
    expect((err as RailError).retryable).toBe(false);
    expect((err as Error).message).toMatch(/ACCOUNT_INVALID/);
  });

  it('requests the bridge cannot verify are refused by it (and retried by us)', async () => {
    const other = contractContext('rail', 'http');
    const stranger = createHttpRail({ URL: bridge.url, PUBLIC_KEY: bridge.publicKeyPem, TIMEOUT_MS: '300' }, other);
    await expect(stranger.submitPayout(payout())).rejects.toMatchObject({ retryable: true });
  });

  it('refunds carry their own idempotency key and are answered once per key', async () => {
    const req = payout('123456004');
    const r = await adapter.submitPayout(req);
    const refund = { idempotencyKey: `${req.idempotencyKey}:refund`, reference: r.reference, amount: 12_345n, currency: 'USD' };
    const a = await adapter.refundPayout(refund);
    const b = await adapter.refundPayout(refund);
    expect(a).toEqual(b);
    expect(a.status).toBe('COMPLETED');
    expect(bridge.refunds.get(refund.idempotencyKey)!.calls).toBe(2);
  });

  it('pushed outcomes: a valid signature is reported (twice if sent twice), anything else refused', async () => {
    const before = context.reported.payouts.length;
    const body = JSON.stringify({ idempotencyKey: 'Transaction:x', reference: 'brg_x', status: 'COMPLETED' });
    const signed = { 'x-bridge-signature': bridge.signatureHeader(body) };
    expect(await adapter.handleWebhook!({ headers: signed, rawBody: Buffer.from(body) })).toMatchObject({ status: 200 });
    expect(await adapter.handleWebhook!({ headers: signed, rawBody: Buffer.from(body) })).toMatchObject({ status: 200 });
    expect(context.reported.payouts.slice(before)).toEqual([
      { idempotencyKey: 'Transaction:x', reference: 'brg_x', status: 'COMPLETED' },
      { idempotencyKey: 'Transaction:x', reference: 'brg_x', status: 'COMPLETED' },
    ]);
    expect(await adapter.handleWebhook!({ headers: {}, rawBody: Buffer.from(body) })).toMatchObject({ status: 401 });
    expect(await adapter.handleWebhook!({ headers: signed, rawBody: Buffer.from(`${body} `) })).toMatchObject({ status: 401 });
    const garbage = 'not json';
    expect(await adapter.handleWebhook!({ headers: { 'x-bridge-signature': bridge.signatureHeader(garbage) }, rawBody: Buffer.from(garbage) })).toMatchObject({ status: 400 });
    expect(context.reported.payouts.length).toBe(before + 2);
  });
});

describe('http bridge: settings are checked when the adapter is built', () => {
  const context = contractContext('rail', 'http');
  it('refuses a missing URL, a missing or wrong key, and a bad timeout, naming the variable', async () => {
    const bridge = new BridgeServer();
    expect(() => createHttpRail({ PUBLIC_KEY: bridge.publicKeyPem }, context)).toThrow(/ADAPTER_HTTP_URL/);
    expect(() => createHttpRail({ URL: 'http://127.0.0.1:1' }, context)).toThrow(/ADAPTER_HTTP_PUBLIC_KEY/);
    expect(() => createHttpRail({ URL: 'http://127.0.0.1:1', PUBLIC_KEY: 'not a key' }, context)).toThrow(/ADAPTER_HTTP_PUBLIC_KEY: is not a PEM public key/);
    expect(() => createHttpRail({ URL: 'ftp://x', PUBLIC_KEY: bridge.publicKeyPem }, context)).toThrow(/ADAPTER_HTTP_URL/);
    expect(() => createHttpRail({ URL: 'http://127.0.0.1:1', PUBLIC_KEY: bridge.publicKeyPem, TIMEOUT_MS: 'soon' }, context)).toThrow(/ADAPTER_HTTP_TIMEOUT_MS/);
    expect(() => createHttpRail({ URL: 'http://127.0.0.1:1', PUBLIC_KEY: bridge.publicKeyPem, STATUS_DELIVERY: 'carrier-pigeon' }, context)).toThrow(/ADAPTER_HTTP_STATUS_DELIVERY/);
  });
});
