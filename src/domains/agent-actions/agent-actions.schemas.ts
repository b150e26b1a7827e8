import { z } from 'zod';
import { paginationQuery } from '../../platform/http/pagination.js';

const id = z.string().min(1).max(200);
const instant = z.iso.datetime({ offset: true }).transform((s) => new Date(s));
const ACTION_STATUSES = ['PENDING_APPROVAL', 'APPROVED', 'REJECTED', 'FAILED'] as const;

export const actionParams = z.object({ actionId: id });
export const agentActionParams = z.object({ agentId: id, actionId: id });
export const quoteParams = z.object({ quoteId: id });
export const transactionParams = z.object({ transactionId: id });
export const externalAccountParams = z.object({ externalAccountId: id });

/** GET /agents/me/actions (REF: filter `status`). */
export const ownActionsQuery = z.object({ ...paginationQuery, status: z.enum(ACTION_STATUSES).optional() });

/** GET /agents/approvals (REF): agentId, customerId, startDate, endDate (inclusive), sortOrder. */
export const approvalsQuery = z.object({
  ...paginationQuery,
  agentId: id.optional(),
  customerId: id.optional(),
  startDate: instant.optional(),
  endDate: instant.optional(),
  sortOrder: z.enum(['asc', 'desc']).default('desc'),
});

/** REF's AgentActionRejectRequest. */
export const rejectBody = z.object({ reason: z.string().trim().min(1).max(500).optional() }).strict();

/** REF's TransferInRequest for an agent: the amount is required (the agent says how much to pull). */
export const agentTransferInBody = z
  .object({ source: z.object({ accountId: id }).strict(), destination: z.object({ accountId: id }).strict(), amount: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER) })
  .strict();
