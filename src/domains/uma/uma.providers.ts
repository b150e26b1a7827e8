import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Ctx } from '../../deps.js';
import { currencyOf, isKnownCurrency } from '../../platform/currencies.js';
import { decodeCursor, encodeCursor, paginationQuery, type Page } from '../../platform/http/pagination.js';
import { parseInput } from '../../platform/http/validate.js';

export interface UmaProvider {
  name: string;
  domain: string;
  lei?: string;
  logoUrl?: string;
  supportedCurrencies: string[];
  supportedRegions: string[];
  allowListed: boolean;
}

/** The sandbox directory (src/adapters/uma/sandbox) as a provider: its test receivers' currencies. */
function sandboxProvider(domain: string): UmaProvider {
  return { name: 'Sandbox UMA directory', domain, supportedCurrencies: ['USD', 'EUR', 'MXN', 'BTC'], supportedRegions: ['US', 'MX', 'DE', 'FR', 'ES', 'IT', 'NL'], allowListed: true };
}

/** The operator's list (UMA_PROVIDERS), or the sandbox directory's provider in the sandbox. */
export function umaProviders(ctx: Ctx): UmaProvider[] {
  const configured = ctx.config.UMA_PROVIDERS;
  if (configured) return configured.map((p) => ({ ...p, allowListed: p.allowListed ?? true }));
  return ctx.config.UMA_PROVIDER === 'sandbox' ? [sandboxProvider(ctx.config.UMA_SANDBOX_DOMAIN)] : [];
}

const queryBool = z.enum(['true', 'false']).transform((v) => v === 'true');

/** REF's `umaProviders.list` filters. */
export const listUmaProvidersQuery = z.object({
  ...paginationQuery,
  countryCode: z.string().regex(/^[A-Za-z]{2}$/, 'Must be an ISO 3166-1 alpha-2 code.').transform((s) => s.toUpperCase()).optional(),
  currencyCode: z.string().regex(/^[A-Za-z]{3,4}$/, 'Must be an ISO 4217 code.').transform((s) => s.toUpperCase()).optional(),
  hasBlockedProviders: queryBool.optional(),
  sortOrder: z.enum(['asc', 'desc']).default('asc'),
});

/**
 * GET /uma-providers: filtered, ordered by domain, paged with the same opaque cursor as every list
 * (the cursor carries the last domain). Blocked providers are listed unless `hasBlockedProviders=false` (REF).
 */
export function listUmaProviders(ctx: Ctx, q: z.output<typeof listUmaProvidersQuery>): Page<UmaProvider> {
  const after = decodeCursor(q.cursor);
  let rows = umaProviders(ctx)
    .filter((p) => !q.countryCode || p.supportedRegions.includes(q.countryCode))
    .filter((p) => !q.currencyCode || p.supportedCurrencies.includes(q.currencyCode))
    .filter((p) => q.hasBlockedProviders !== false || p.allowListed)
    .sort((a, b) => (q.sortOrder === 'asc' ? a.domain.localeCompare(b.domain) : b.domain.localeCompare(a.domain)));
  if (after) rows = rows.filter((p) => (q.sortOrder === 'asc' ? p.domain.localeCompare(after) > 0 : p.domain.localeCompare(after) < 0));
  const hasMore = rows.length > q.limit;
  const data = rows.slice(0, q.limit);
  return { data, hasMore, ...(hasMore ? { nextCursor: encodeCursor(data[data.length - 1]!.domain) } : {}) };
}

/** REF's UmaProviderListResponse: absent optional fields are left out. */
export function umaProviderResource(p: UmaProvider) {
  return {
    name: p.name,
    domain: p.domain,
    ...(p.lei ? { lei: p.lei } : {}),
    ...(p.logoUrl ? { logoUrl: p.logoUrl } : {}),
    supportedCurrencies: p.supportedCurrencies.map((c) => (isKnownCurrency(c) ? currencyOf(c) : { code: c })),
    supportedRegions: p.supportedRegions,
    allowListStatus: p.allowListed,
  };
}

export async function umaProviderRoutes(app: FastifyInstance) {
  app.get('/uma-providers', { config: { query: listUmaProvidersQuery } }, async (req) => {
    const page = listUmaProviders(req.ctx, parseInput(listUmaProvidersQuery, req.query));
    return { ...page, data: page.data.map(umaProviderResource) };
  });
}
