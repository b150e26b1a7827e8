import type { z } from 'zod';
import type { InboundWebhookAnswer } from './common.js';

/**
 * A provider's verified push read as one message of `schema` (the card processor's, the collection
 * provider's): the message, or the 400 INVALID_INPUT answer to send back (a body that is not JSON, or the
 * first issue the schema finds; `fallback` when it names none).
 */
export function readInboundMessage<S extends z.ZodType>(rawBody: Buffer, schema: S, fallback: string): { message: z.output<S> } | { answer: InboundWebhookAnswer } {
  let json: unknown;
  try {
    json = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return { answer: invalidInput('body is not JSON') };
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? { message: parsed.data } : { answer: invalidInput(parsed.error.issues[0]?.message ?? fallback) };
}

const invalidInput = (message: string): InboundWebhookAnswer => ({ status: 400, body: { error: { code: 'INVALID_INPUT', message } } });
