import { createHash } from 'node:crypto';
import { bolt11Lib } from '../../../platform/bolt11.js';

/**
 * The sandbox Lightning node's key: a fixed, documented test key (it holds no funds). Invoices it
 * signs decode and verify like any BOLT11 invoice, so clients can test their invoice handling.
 */
export const SANDBOX_NODE_PRIVATE_KEY = createHash('sha256').update('svc-sandbox-lightning-node').digest('hex');

export interface SandboxInvoiceInput {
  /** Exact amount in millisatoshis (a BTC amount in sats × 1000). */
  amountMsats: bigint;
  /** Something unique per invoice (a quote or lookup id): the payment hash and secret derive from it. */
  seed: string;
  description: string;
  createdAt: Date;
  expirySeconds: number;
}

/** A signed mainnet BOLT11 invoice for exactly `amountMsats`, and its payment hash (hex). */
export function createSandboxInvoice(input: SandboxInvoiceInput): { invoice: string; paymentHash: string } {
  const paymentHash = createHash('sha256').update(`payment-hash:${input.seed}`).digest('hex');
  const lib = bolt11Lib();
  const encoded = lib.encode({
    millisatoshis: input.amountMsats.toString(),
    timestamp: Math.floor(input.createdAt.getTime() / 1000),
    tags: [
      { tagName: 'payment_hash', data: paymentHash },
      { tagName: 'payment_secret', data: createHash('sha256').update(`payment-secret:${input.seed}`).digest('hex') },
      { tagName: 'description', data: input.description.slice(0, 600) },
      { tagName: 'expire_time', data: input.expirySeconds },
    ],
  });
  const signed = lib.sign(encoded, SANDBOX_NODE_PRIVATE_KEY);
  if (!signed.paymentRequest) throw new Error('bolt11 signing produced no invoice');
  return { invoice: signed.paymentRequest, paymentHash };
}
