import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppDeps } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { renderHostedForm, renderMessage, type HostedField } from '../../adapters/kyc/sandbox/hosted-page.js';
import { SANDBOX_HOSTED_PATH } from '../../adapters/kyc/sandbox/index.js';
import type { Customer, KycLink } from '../../generated/prisma/client.js';
import { isCalendarDate, isCountryCode, hashLinkToken } from '../customers/index.js';
import { completeHostedFlow, HostedFlowError } from './hosted.service.js';
import { enqueueDecision } from './verification.jobs.js';
import { platformOfLookup } from '../../platform/tenant-lookups.js';

/** Hosted pages: no caching, no referrer (the token is in the URL), no framing by strangers' scripts. */
function sendPage(reply: FastifyReply, status: number, html: string) {
  return reply
    .status(status)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'")
    .type('text/html; charset=utf-8')
    .send(html);
}

function fieldsFor(c: Customer, values: Record<string, string>): HostedField[] {
  const address = (c.address ?? {}) as Record<string, string | undefined>;
  const v = (name: string, fallback?: string | null) => values[name] ?? fallback ?? '';
  const addressFields: HostedField[] = [
    { name: 'line1', label: 'Street address', value: v('line1', address.line1) },
    { name: 'city', label: 'City', value: v('city', address.city) },
    { name: 'postalCode', label: 'Postal code', value: v('postalCode', address.postalCode) },
    { name: 'country', label: 'Country (ISO code, e.g. US)', value: v('country', address.country ?? c.region), placeholder: 'US' },
  ];
  if (c.customerType === 'BUSINESS') {
    const bi = (c.businessInfo ?? {}) as Record<string, string>;
    return [{ name: 'legalName', label: 'Legal name', value: bi.legalName ?? '', readonly: true }, ...addressFields];
  }
  return [
    { name: 'fullName', label: 'Full name', value: v('fullName', c.fullName) },
    { name: 'birthDate', label: 'Date of birth', type: 'date', value: v('birthDate', c.birthDate?.toISOString().slice(0, 10)) },
    { name: 'nationality', label: 'Nationality (ISO code, e.g. US)', value: v('nationality', c.nationality), placeholder: 'US' },
    ...addressFields,
  ];
}

/** The hosted form's own validation; errors are shown beside the fields. */
export function validateHostedForm(type: string, form: Record<string, string>): Record<string, string> {
  const errors: Record<string, string> = {};
  const req = (name: string, label: string) => {
    if (!form[name]?.trim()) errors[name] = `${label} is required.`;
  };
  if (type === 'INDIVIDUAL') {
    if (!/\S+\s+\S+/.test(form.fullName ?? '')) errors.fullName = 'Enter your given and family name.';
    if (!isCalendarDate(form.birthDate ?? '') || (form.birthDate ?? '') > new Date().toISOString().slice(0, 10)) errors.birthDate = 'Enter a valid date of birth.';
    if (!isCountryCode((form.nationality ?? '').toUpperCase())) errors.nationality = 'Enter a two-letter country code.';
  }
  req('line1', 'Street address');
  req('postalCode', 'Postal code');
  if (!isCountryCode((form.country ?? '').toUpperCase())) errors.country = 'Enter a two-letter country code.';
  if (form.consent !== 'yes') errors.consent = 'Please confirm your details.';
  return errors;
}

type LinkState = { ok: true; link: KycLink; customer: Customer } | { ok: false; status: number; title: string; message: string };

async function linkState(deps: AppDeps, token: string): Promise<LinkState> {
  const tokenHash = /^[A-Za-z0-9_-]{20,100}$/.test(token) ? hashLinkToken(token) : null;
  const platformId = tokenHash ? await platformOfLookup(deps.prisma, 'KYC_LINK_TOKEN', tokenHash) : null;
  const link = tokenHash && platformId ? await deps.prisma.kycLink.findUnique({ where: { platformId_tokenHash: { platformId, tokenHash } } }) : null;
  if (!link) return { ok: false, status: 404, title: 'Link not found', message: 'This verification link does not exist. Ask for a new link.' };
  if (link.usedAt) return { ok: false, status: 410, title: 'Link already used', message: 'This verification link was already used. Ask for a new link if you need to verify again.' };
  if (link.expiresAt <= deps.clock.now()) return { ok: false, status: 410, title: 'Link expired', message: 'This verification link has expired. Ask for a new link.' };
  const customer = await ctxFor(deps, link.platformId).db.customer.findFirst({ where: { id: link.customerId } });
  if (!customer || customer.isDeleted) return { ok: false, status: 410, title: 'Link no longer valid', message: 'This verification is no longer available.' };
  return { ok: true, link, customer };
}

const title = (c: Customer) => (c.customerType === 'BUSINESS' ? 'Verify your business' : 'Verify your identity');
const intro = 'Confirm or complete these details. Your verification starts when you submit.';

/**
 * The sandbox provider's hosted page (GET shows the form, POST completes the flow). Public: the
 * single-use token in the URL is the proof of access. A used, expired or unknown link shows an
 * error page.
 */
export async function hostedKycRoutes(app: FastifyInstance, deps: AppDeps) {
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16_384 }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });

    scope.get<{ Params: { token: string } }>(`${SANDBOX_HOSTED_PATH}/:token`, async (req, reply) => {
      const state = await linkState(deps, req.params.token);
      if (!state.ok) return sendPage(reply, state.status, renderMessage(state.title, state.message));
      return sendPage(reply, 200, renderHostedForm({ title: title(state.customer), intro, fields: fieldsFor(state.customer, {}), errors: {} }));
    });

    scope.post<{ Params: { token: string }; Body: Record<string, string> }>(`${SANDBOX_HOSTED_PATH}/:token`, async (req, reply) => {
      const state = await linkState(deps, req.params.token);
      if (!state.ok) return sendPage(reply, state.status, renderMessage(state.title, state.message));
      const form = typeof req.body === 'object' && req.body ? Object.fromEntries(Object.entries(req.body).map(([k, v]) => [k, String(v)])) : {};
      const errors = validateHostedForm(state.customer.customerType, form);
      if (Object.keys(errors).length) {
        return sendPage(reply, 400, renderHostedForm({ title: title(state.customer), intro, fields: fieldsFor(state.customer, form), errors }));
      }
      try {
        const v = await completeHostedFlow(ctxFor(deps, state.link.platformId), state.link, state.customer, form);
        await enqueueDecision(deps, state.link.platformId, v);
      } catch (err) {
        if (err instanceof HostedFlowError) return sendPage(reply, err.status, renderMessage(err.title, err.message));
        throw err;
      }
      if (state.link.redirectUri) return reply.status(303).header('location', state.link.redirectUri).header('cache-control', 'no-store').send();
      return sendPage(reply, 200, renderMessage('Thank you', 'Your details were submitted. We will let you know once your verification is complete.'));
    });
  });
}
