import { z } from 'zod';
import { paginationQuery } from '../../platform/http/pagination.js';
import { PERMISSIONS, type ApiToken } from './tokens.model.js';

const dateTime = () => z.iso.datetime({ offset: true }).transform((s) => new Date(s));

export const createTokenBody = z.strictObject({
  name: z.string().trim().min(1).max(255),
  permissions: z.array(z.enum(PERMISSIONS)).min(1).max(PERMISSIONS.length * 3),
});

export const listTokensQuery = z.strictObject({
  ...paginationQuery,
  name: z.string().min(1).max(255).optional(),
  createdAfter: dateTime().optional(),
  createdBefore: dateTime().optional(),
  updatedAfter: dateTime().optional(),
  updatedBefore: dateTime().optional(),
});
export type ListTokensQuery = z.infer<typeof listTokensQuery>;

export const tokenIdParams = z.object({ tokenId: z.string().min(1).max(200) });

export function tokenResource(t: ApiToken, clientSecret?: string) {
  return {
    id: t.id,
    name: t.name,
    permissions: t.permissions,
    clientId: t.clientId,
    ...(clientSecret ? { clientSecret } : {}),
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}
