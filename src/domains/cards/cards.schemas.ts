import { z } from 'zod';
import type { Card } from '../../generated/prisma/client.js';
import { paginationQuery } from '../../platform/http/pagination.js';
import { toWireNumber } from '../../platform/money.js';
import { CARD_FORMS, CARD_STATES } from './cards.model.js';

const id = z.string().min(1).max(200);
/** At least one source, no duplicates, a bounded list (the first version reads only the first). */
const fundingSources = z
  .array(id)
  .min(1)
  .max(10)
  .refine((a) => new Set(a).size === a.length, { message: 'Lists an account twice.' });
const maxSpend = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** POST /cards (spec; decisions A13, B§5.2). `cardholderId` is the reference service's name for `customerId`. */
export const createCardBody = z
  .strictObject({
    customerId: id.optional(),
    cardholderId: id.optional(),
    form: z.enum(CARD_FORMS),
    fundingSources,
    platformCardId: z.string().min(1).max(255).optional(),
    maxSpendPerTransaction: maxSpend.nullable().optional(),
    /** REF: the EU static 3-D Secure factor, forwarded to the issuer and never kept. */
    threeDSecurePassword: z.string().min(4).max(64).optional(),
  })
  .superRefine((b, ctx) => {
    if (!b.customerId && !b.cardholderId) ctx.addIssue({ code: 'custom', path: ['customerId'], message: 'Required.' });
    if (b.customerId && b.cardholderId && b.customerId !== b.cardholderId) {
      ctx.addIssue({ code: 'custom', path: ['cardholderId'], message: 'Differs from customerId; send one of them.' });
    }
  })
  .transform(({ cardholderId, customerId, ...rest }) => ({ ...rest, customerId: (customerId ?? cardholderId)! }));
export type CreateCardBody = z.output<typeof createCardBody>;

/**
 * PATCH /cards/{id}: `state` and/or `fundingSources` (full ordered replacement), `maxSpendPerTransaction`.
 * REF rule: funding sources and spend cap cannot be combined with `state: CLOSED`.
 */
export const patchCardBody = z
  .strictObject({
    state: z.enum(CARD_STATES).optional(),
    fundingSources: fundingSources.optional(),
    maxSpendPerTransaction: maxSpend.nullable().optional(),
  })
  .superRefine((b, ctx) => {
    if (b.state === undefined && b.fundingSources === undefined && b.maxSpendPerTransaction === undefined) {
      ctx.addIssue({ code: 'custom', path: ['state'], message: 'Send at least one of state, fundingSources, maxSpendPerTransaction.' });
    }
    if (b.state === 'CLOSED') {
      if (b.fundingSources !== undefined) ctx.addIssue({ code: 'custom', path: ['fundingSources'], message: 'Cannot be combined with state CLOSED.' });
      if (b.maxSpendPerTransaction !== undefined) ctx.addIssue({ code: 'custom', path: ['maxSpendPerTransaction'], message: 'Cannot be combined with state CLOSED.' });
    }
  });
export type PatchCardBody = z.output<typeof patchCardBody>;

export const cardIdParams = z.object({ cardId: id });

export const listCardsQuery = z.object({
  ...paginationQuery,
  customerId: id.optional(),
  cardholderId: id.optional(),
  accountId: id.optional(),
  platformCardId: z.string().max(255).optional(),
  state: z.enum(CARD_STATES).optional(),
  sortOrder: z.enum(['asc', 'desc']).default('desc'),
});
export type ListCardsQuery = z.output<typeof listCardsQuery>;

/** The Card resource (decisions B§5.2): the spec's fields plus the reference service's. */
export function cardResource(c: Card) {
  return {
    id: c.id,
    customerId: c.customerId,
    cardholderId: c.customerId,
    platformCardId: c.platformCardId,
    form: c.form,
    state: c.state,
    stateReason: c.stateReason,
    currency: c.currency,
    fundingSources: c.fundingSources,
    maxSpendPerTransaction: c.maxSpendPerTransaction === null ? null : toWireNumber(c.maxSpendPerTransaction),
    // Issued by the card issuer (issue 27); absent while the card is PROCESSING.
    ...(c.brand ? { brand: c.brand } : {}),
    ...(c.last4 ? { last4: c.last4 } : {}),
    ...(c.expMonth ? { expMonth: c.expMonth } : {}),
    ...(c.expYear ? { expYear: c.expYear } : {}),
    ...(c.processorRef ? { processorRef: c.processorRef } : {}),
    ...(c.issuerRef ? { issuerRef: c.issuerRef } : {}),
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}
