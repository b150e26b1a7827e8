import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.js';

/** A query boolean as REF's clients send it: `true` or `false`. */
const queryBoolean = z.enum(['true', 'false']).transform((v) => v === 'true');
const instant = z.iso.datetime({ offset: true }).transform((s) => new Date(s));

/** REF's GET /agents filters (issue 25): isPaused, isConnected and the created/updated windows (inclusive bounds). */
export const agentListFilters = {
  isPaused: queryBoolean.optional(),
  isConnected: queryBoolean.optional(),
  createdAfter: instant.optional(),
  createdBefore: instant.optional(),
  updatedAfter: instant.optional(),
  updatedBefore: instant.optional(),
};

export interface AgentListFilters {
  isPaused?: boolean;
  isConnected?: boolean;
  createdAfter?: Date;
  createdBefore?: Date;
  updatedAfter?: Date;
  updatedBefore?: Date;
}

/**
 * The filters as a Prisma condition. Paused is an agent that may not act now: its DISABLED status (REF's `isPaused`; the
 * one place to change should a separate pause flag arrive). Connected means one of its device codes was redeemed for
 * an access token (REF: "isConnected becomes true when the device code is redeemed").
 */
export function agentFilterWhere(f: AgentListFilters): Prisma.AgentWhereInput {
  const range = (after?: Date, before?: Date) => (after || before ? { ...(after ? { gte: after } : {}), ...(before ? { lte: before } : {}) } : undefined);
  const created = range(f.createdAfter, f.createdBefore);
  const updated = range(f.updatedAfter, f.updatedBefore);
  const connected: Prisma.AgentWhereInput['deviceCodes'] = { some: { redeemedAt: { not: null } } };
  return {
    ...(f.isPaused === undefined ? {} : f.isPaused ? { status: 'DISABLED' } : { status: { not: 'DISABLED' } }),
    ...(f.isConnected === undefined ? {} : f.isConnected ? { deviceCodes: connected } : { NOT: { deviceCodes: connected } }),
    ...(created ? { createdAt: created } : {}),
    ...(updated ? { updatedAt: updated } : {}),
  };
}
