import { z } from 'zod';
import type { Ctx } from '../../deps.js';
import type { AppConfig } from '../../config.js';
import { DomainError, ValidationError } from '../../platform/errors.js';
import type { Customer, Platform } from '../../generated/prisma/client.js';
import { getConfig } from '../platforms/index.js';

/**
 * REF's End User Terms (issue 25; REF `disclosures.mdx`, shared decisions "REF's current surface" 8): the
 * operator's terms (version and URL from configuration), each customer's recorded acceptance, and the
 * rule that refuses a customer's money movement until it is on file.
 */

/** REF `EndUserTermsAcceptanceMethod`. */
export const END_USER_TERMS_ACCEPTANCE_METHODS = ['CHECKBOX', 'CLICK_TO_ACCEPT'] as const;

/** REF `EndUserTermsConsentRequest`: all four fields required. */
export const endUserTermsConsentSchema = z.strictObject({
  acceptedAt: z.iso.datetime({ offset: true, message: 'Must be an ISO 8601 date-time with a time zone.' }),
  ipAddress: z.union([z.ipv4(), z.ipv6()], { error: 'Must be an IPv4 or IPv6 address.' }).refine((s) => s.length <= 45, 'At most 45 characters.'),
  termsVersion: z.string().trim().min(1, 'Must not be empty.').max(64),
  acceptanceMethod: z.enum(END_USER_TERMS_ACCEPTANCE_METHODS, { error: `Must be one of: ${END_USER_TERMS_ACCEPTANCE_METHODS.join(', ')}.` }),
});
export type EndUserTermsConsent = z.output<typeof endUserTermsConsentSchema>;

/** An acceptance may be stamped this far ahead of the server's clock (the device's clock drifts). */
const CLOCK_SKEW_MS = 5 * 60_000;

/** GET /customers/end-user-terms (REF `getEndUserTerms`). */
export function currentEndUserTerms(config: AppConfig): { version: string; url: string } {
  return { version: config.END_USER_TERMS_VERSION, url: config.END_USER_TERMS_URL };
}

/**
 * The stored form of a consent from a create or PATCH body, after the checks the schema cannot make.
 * Errors: 400 END_USER_TERMS_VERSION_NOT_FOUND (REF: a version the operator does not publish),
 * 400 INVALID_INPUT (`endUserTermsConsent.acceptedAt` in the future).
 */
export function consentToStore(config: AppConfig, consent: EndUserTermsConsent | undefined, now: Date): EndUserTermsConsent | undefined {
  if (!consent) return undefined;
  const known = new Set([config.END_USER_TERMS_VERSION, ...config.END_USER_TERMS_ACCEPTED_VERSIONS]);
  if (!known.has(consent.termsVersion)) {
    throw new DomainError(400, 'END_USER_TERMS_VERSION_NOT_FOUND', `End User Terms version ${consent.termsVersion} is not supported; the current version is ${config.END_USER_TERMS_VERSION} (GET /customers/end-user-terms).`, {
      errors: [{ field: 'endUserTermsConsent.termsVersion', constraint: { enum: [...known] }, message: 'Not a published version of the End User Terms.' }],
    });
  }
  if (new Date(consent.acceptedAt).getTime() > now.getTime() + CLOCK_SKEW_MS) {
    throw new ValidationError([{ field: 'endUserTermsConsent.acceptedAt', message: 'Must not be in the future.' }]);
  }
  return { ...consent, acceptedAt: new Date(consent.acceptedAt).toISOString() };
}

/** Whether the platform's customers need consent before money moves: the platform's choice, else the deployment's. */
export function endUserTermsRequired(config: AppConfig, platform: Pick<Platform, 'endUserTermsRequired' | 'isRegulated'>): boolean {
  if (platform.endUserTermsRequired !== null) return platform.endUserTermsRequired;
  return config.END_USER_TERMS_ENFORCEMENT === 'unregulated' && !platform.isRegulated;
}

/**
 * REF: "customer-scoped transactions are rejected with 403 END_USER_TERMS_NOT_ACCEPTED" until the
 * customer's acceptance is on file, on platforms where the rule applies. A platform's own money (no
 * customer) is never refused. Reads the customer only when the rule applies and no row is given.
 * Errors: 403 END_USER_TERMS_NOT_ACCEPTED.
 */
export async function assertEndUserTermsAccepted(ctx: Ctx, customer: Pick<Customer, 'endUserTermsConsent'> | string | null | undefined): Promise<void> {
  if (!customer) return;
  const { platform } = await getConfig(ctx);
  if (!endUserTermsRequired(ctx.config, platform)) return;
  const row = typeof customer === 'string' ? await ctx.db.customer.findFirst({ where: { id: customer }, select: { endUserTermsConsent: true } }) : customer;
  if (row && row.endUserTermsConsent === null) {
    throw new DomainError(403, 'END_USER_TERMS_NOT_ACCEPTED', 'The customer has not accepted the End User Terms: record it with PATCH /customers/{customerId} {endUserTermsConsent}.');
  }
}
