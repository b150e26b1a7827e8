import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { InboundWebhook, InboundWebhookAnswer } from '../../common.js';
import type { CardIssuerAdapter, CardIssuerAdapterContext, ProvisionRequest, ProvisionResult } from '../port.js';
import { dispatchProcessorMessage, type ProcessorMessage } from '../protocol.js';

/**
 * The sandbox card processor (decision A2: deterministic, documented magic values; REF
 * `snippets/cards/sandbox-testing.mdx`). The last three characters of `platformCardId` decide
 * provisioning: `001` stays PENDING (the card stays PROCESSING), `002` is REJECTED (CLOSED with
 * ISSUER_REJECTED), `005` activates ACTIVATION_DELAY_MS after the card was created (the sweep asks), anything
 * else is ACTIVE at once with `last4` taken from the id's last digits.
 *
 * The ten `POST /sandbox/cards/{id}/simulate/*` operations reach the service the way a real processor
 * does: simulate() signs the message (HMAC-SHA256 with SECRET, header x-sandbox-processor-signature) and
 * hands it to handleWebhook, which verifies it like any push to `/adapters/card-sandbox/webhooks`.
 */
export const SANDBOX_PROCESSOR_SIGNATURE = 'x-sandbox-processor-signature';
const DEFAULT_SECRET = 'sandbox-card-processor-secret';

export interface SandboxCardIssuer extends CardIssuerAdapter {
  /** Sends a processor message through the verified webhook path; resolves with the answer. */
  simulate(message: ProcessorMessage): Promise<InboundWebhookAnswer>;
  /** A new processor transaction or event token. */
  newToken(): string;
}

/** The creation time a UUIDv7 id carries (cards' ids are `Card:<uuidv7>`). */
function createdAtOf(cardId: string, now: number): number {
  const hex = cardId.slice(cardId.indexOf(':') + 1).replace(/-/g, '');
  // Another id format (a random UUIDv4 above all, whose first 48 bits are no time): the card counts as made now.
  if (!/^[0-9a-f]{12}7/i.test(hex)) return now;
  const ms = Number.parseInt(hex.slice(0, 12), 16);
  return ms > 0 && ms <= now + 86_400_000 ? ms : now;
}

/** REF: "last4 derived from the suffix": `4` and a numeric suffix, else four digits hashed from the card. */
function last4Of(suffix: string, cardId: string): string {
  if (/^\d{3}$/.test(suffix)) return `4${suffix}`;
  const n = createHash('sha256').update(cardId).digest().readUInt16BE(0) % 10_000;
  return String(n).padStart(4, '0');
}

export function signSandboxMessage(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export function createSandboxCardIssuer(settings: Record<string, string>, context: CardIssuerAdapterContext, activationDelayMs: number): SandboxCardIssuer {
  const secret = settings.SECRET ?? DEFAULT_SECRET;
  const now = () => context.clock.now().getTime();

  /** processorRef = `sbx_card_<magic suffix>_<card id>`: the outcome is read back from it statelessly. */
  function resultFor(processorRef: string): ProvisionResult {
    const match = /^sbx_card_(\w{3})_(.+)$/.exec(processorRef);
    if (!match) return { status: 'PENDING', processorRef, pollAfterMs: 60_000 };
    const [, suffix, cardId] = match as unknown as [string, string, string];
    if (suffix === '001') return { status: 'PENDING', processorRef, pollAfterMs: 60_000 };
    if (suffix === '002') return { status: 'REJECTED', processorRef };
    if (suffix === '005' && now() < createdAtOf(cardId, now()) + activationDelayMs) return { status: 'PENDING', processorRef, pollAfterMs: activationDelayMs };
    const issued = new Date(createdAtOf(cardId, now()));
    return {
      status: 'ACTIVE',
      processorRef,
      issuerRef: `sbx_issuer_${cardId.slice(cardId.indexOf(':') + 1)}`,
      brand: 'VISA',
      last4: last4Of(suffix, cardId),
      expMonth: issued.getUTCMonth() + 1,
      expYear: issued.getUTCFullYear() + 3,
    };
  }

  const adapter: SandboxCardIssuer = {
    id: context.adapterId,
    supports3dsPassword: true,
    async provision(req: ProvisionRequest) {
      const key = req.platformCardId.length >= 3 ? req.platformCardId : req.cardholderId;
      const suffix = key.slice(-3).replace(/\W/g, '_').padStart(3, '_');
      return resultFor(`sbx_card_${suffix}_${req.cardId}`);
    },
    async getProvisioning(processorRef) {
      return resultFor(processorRef);
    },
    async setState() {},
    async set3dsPassword() {},
    async reveal(req) {
      const expiresAt = new Date(now() + 5 * 60_000);
      // A one-time token of the processor's page; the sandbox page shows no real card data.
      const t = createHmac('sha256', secret).update(`${req.processorRef}|${expiresAt.getTime()}|${randomUUID()}`).digest('base64url');
      return { url: `https://sandbox-processor.invalid/embed/card?t=${t}`, expiresAt };
    },
    async handleWebhook(request: InboundWebhook) {
      const given = Buffer.from(request.headers[SANDBOX_PROCESSOR_SIGNATURE] ?? '', 'utf8');
      const expected = Buffer.from(signSandboxMessage(secret, request.rawBody.toString('utf8')), 'utf8');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return { status: 401, body: { error: { code: 'SIGNATURE_INVALID', message: `missing or invalid ${SANDBOX_PROCESSOR_SIGNATURE}` } } };
      }
      return dispatchProcessorMessage(request.rawBody, context);
    },
    async simulate(message) {
      const body = JSON.stringify(message, (_k, v) => (typeof v === 'bigint' ? Number(v) : v));
      return adapter.handleWebhook!({ headers: { [SANDBOX_PROCESSOR_SIGNATURE]: signSandboxMessage(secret, body) }, rawBody: Buffer.from(body) });
    },
    newToken: () => `sbx_txn_${randomUUID()}`,
  };
  return adapter;
}
