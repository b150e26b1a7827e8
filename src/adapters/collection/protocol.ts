import { z } from 'zod';
import type { InboundWebhookAnswer } from '../common.js';
import { readInboundMessage } from '../inbound.js';
import type { CollectionAdapterContext, CollectionCredit } from './port.js';

/**
 * The collection provider's push (docs/adapters.md "Collection"), shared by the sandbox bank and the http
 * bridge: once the sender's signature over the raw body is verified, the body is one CREDIT message. A
 * credit and a polled credit are the same object (listCredits answers them in this shape too).
 */
const amount = z.union([z.number().int().min(1).max(Number.MAX_SAFE_INTEGER), z.string().regex(/^[1-9]\d{0,17}$/)]).transform((v) => BigInt(v));

export const creditWire = z.object({
  creditId: z.string().min(1).max(200),
  reference: z.string().min(1).max(200),
  rail: z.string().min(1).max(32),
  amount,
  currency: z.string().regex(/^[A-Z]{3,5}$/),
  receivedAt: z.string().datetime({ offset: true }).transform((s) => new Date(s)),
  sender: z.object({ name: z.string().max(200).optional(), accountLast4: z.string().max(8).optional(), bankName: z.string().max(200).optional() }).optional(),
});

export const collectionMessage = creditWire.extend({ kind: z.literal('CREDIT') });
export type CollectionMessage = z.input<typeof collectionMessage>;

/** A credit as it travels (amount as a decimal string: minor units beyond 2^53 stay exact). */
export function creditToWire(c: CollectionCredit): z.input<typeof creditWire> {
  return { creditId: c.creditId, reference: c.reference, rail: c.rail, amount: c.amount.toString(), currency: c.currency, receivedAt: c.receivedAt.toISOString(), ...(c.sender ? { sender: c.sender } : {}) };
}

/** Hands a verified message to the service; the receipt becomes the answer the provider reads (200 for every receipt). */
export async function dispatchCollectionMessage(rawBody: Buffer, context: CollectionAdapterContext): Promise<InboundWebhookAnswer> {
  const read = readInboundMessage(rawBody, collectionMessage, 'not a collection message');
  if ('answer' in read) return read.answer;
  const { kind: _k, ...credit } = read.message;
  const receipt = await context.reportCredit(credit);
  return { status: 200, body: { received: true, receipt } };
}
