import { z } from 'zod';
import type { InboundWebhookAnswer } from '../common.js';
import { readInboundMessage } from '../inbound.js';
import { CARD_EVENT_TYPES, CARD_MESSAGE_KINDS, type CardIssuerAdapterContext } from './port.js';

/**
 * The processor's messages to the service (docs/adapters.md "Card issuer"), shared by the sandbox
 * processor and the http bridge: once the sender's signature over the raw body is verified, the body
 * is one of these. The answer to AUTHORIZATION_REQUEST is the decision itself (synchronous).
 */
const token = z.string().min(1).max(200);
const amount = z.union([z.number().int().min(0).max(Number.MAX_SAFE_INTEGER), z.string().regex(/^\d{1,16}$/)]).transform((v) => BigInt(v));
const currency = z.string().regex(/^[A-Z]{3,4}$/);
const merchant = z.object({ descriptor: z.string().min(1).max(200), mcc: z.string().max(8).optional(), country: z.string().max(3).optional() });

export const processorMessage = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('AUTHORIZATION_REQUEST'),
    processorRef: token,
    issuerTransactionToken: token,
    messageKind: z.enum(CARD_MESSAGE_KINDS),
    amount,
    currency,
    merchant,
  }),
  z.object({
    kind: z.literal('EVENT'),
    eventToken: token,
    type: z.enum(CARD_EVENT_TYPES),
    processorRef: token,
    issuerTransactionToken: token,
    amount: amount.optional(),
    currency: currency.optional(),
    merchant: merchant.optional(),
  }),
  z.object({
    kind: z.literal('PROVISIONED'),
    processorRef: token,
    status: z.enum(['PENDING', 'ACTIVE', 'REJECTED']),
    issuerRef: z.string().max(200).optional(),
    brand: z.enum(['VISA', 'MASTERCARD']).optional(),
    last4: z.string().regex(/^\d{4}$/).optional(),
    expMonth: z.number().int().min(1).max(12).optional(),
    expYear: z.number().int().min(2000).max(2200).optional(),
  }),
]);
export type ProcessorMessage = z.input<typeof processorMessage>;

/** Hands a verified message to the service and turns its receipt into the answer the processor reads. */
export async function dispatchProcessorMessage(rawBody: Buffer, context: CardIssuerAdapterContext): Promise<InboundWebhookAnswer> {
  const read = readInboundMessage(rawBody, processorMessage, 'not a processor message');
  if ('answer' in read) return read.answer;
  const m = read.message;
  if (m.kind === 'AUTHORIZATION_REQUEST') {
    const d = await context.authorize({ processorRef: m.processorRef, issuerTransactionToken: m.issuerTransactionToken, kind: m.messageKind, amount: m.amount, currency: m.currency, merchant: m.merchant });
    return d.approved
      ? { status: 200, body: { approved: true, cardTransactionId: d.cardTransactionId, heldAmount: Number(d.heldAmount), currency: d.currency } }
      : { status: 200, body: { approved: false, cardTransactionId: d.cardTransactionId, reason: d.reason } };
  }
  if (m.kind === 'PROVISIONED') {
    const { kind: _k, ...result } = m;
    const receipt = await context.reportProvisioned(result);
    return receipt === 'ACCEPTED' ? { status: 200, body: { received: true } } : { status: 404, body: { error: { code: 'UNKNOWN_CARD', message: 'no card has this processorRef' } } };
  }
  const { kind: _k, ...event } = m;
  const receipt = await context.reportCardEvent(event);
  switch (receipt) {
    case 'APPLIED':
    case 'DUPLICATE':
    case 'REFUSED':
      return { status: 200, body: { received: true, receipt } };
    case 'RETRY_LATER':
      // Out of order (the authorization it names is not known yet): a 409 makes the processor re-send.
      return { status: 409, body: { error: { code: 'RETRY_LATER', message: 'the authorization this event reconciles is not known yet' } } };
    default:
      return { status: 404, body: { error: { code: 'UNKNOWN_CARD', message: 'no card or authorization matches' } } };
  }
}
