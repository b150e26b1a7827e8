import { z } from 'zod';
import type { TenantTx } from '../../platform/db.js';
import type { Prisma, Transaction } from '../../generated/prisma/client.js';

/**
 * REF's originator fields on a `REALTIME_FUNDING` source (issue 25; REF #544): who paid the deposit that
 * funded the payment, as the deposit detector reports it — best effort, every field optional — and, for a
 * crypto deposit, the on-chain transfer (`onChainTransaction`, REF #681).
 */
export const originatorFields = {
  accountHolderName: z.string().trim().min(1).max(255).optional(),
  accountIdentifier: z.string().trim().min(1).max(64).optional(),
  bankName: z.string().trim().min(1).max(255).optional(),
  bankIdentifier: z.string().trim().min(1).max(64).optional(),
  paymentRail: z.string().regex(/^[A-Z_]{2,20}$/, 'Must be a payment rail such as RTP.').optional(),
  remittanceInformation: z.string().max(140).optional(),
  endToEndId: z.string().trim().min(1).max(64).optional(),
  traceNumber: z.string().trim().min(1).max(64).optional(),
};
export type Originator = { [K in keyof typeof originatorFields]?: string };

/** Chains a crypto deposit settles on (REF CryptoNetwork); the detector's deposit id there is the transfer's hash. */
const CHAINS = new Set(['SOLANA', 'BASE', 'POLYGON', 'ETHEREUM', 'TRON', 'SPARK', 'BITCOIN', 'PLASMA']);

/** The funded transaction's source with what the deposit says about its payer; unchanged when it says nothing. */
export function fundedSource(source: unknown, d: { originator?: Originator; depositId?: string; network?: string }): Record<string, unknown> | undefined {
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d.originator ?? {})) if (v !== undefined) extra[k] = v;
  if (d.depositId && d.network && CHAINS.has(d.network)) extra.onChainTransaction = { transactionHash: d.depositId, network: d.network };
  if (Object.keys(extra).length === 0 || !source || typeof source !== 'object') return undefined;
  return { ...(source as Record<string, unknown>), ...extra };
}

/**
 * Records the payer on the transaction the deposit funds, in the deposit's database transaction; returns
 * the row as it now is (the execution that follows announces it with these fields).
 */
export async function recordOriginator(tx: TenantTx, t: Transaction, d: { originator?: Originator; depositId?: string; network?: string }): Promise<Transaction> {
  const source = fundedSource(t.source, d);
  if (!source) return t;
  await tx.transaction.updateMany({ where: { id: t.id }, data: { source: source as Prisma.InputJsonValue } });
  return { ...t, source: source as Prisma.JsonValue };
}
