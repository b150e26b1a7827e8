import type pg from 'pg';
import { query } from '../../platform/db.js';

/**
 * What a card authorization decision rests on besides the balance (issue 27 item 4): the card (state,
 * currency, first funding source, per-transaction cap), its cardholder (KYC status, the platform's id
 * for them), the funding source (status, currency) and the platform's limit in the card's currency.
 * Read by the processor's reference on a cache miss; re-checked by the writing statement itself through
 * the fingerprint (card-money.writer.ts writeAuthorization), so a cached copy can be stale but is never
 * acted on: a changed fact makes the write answer STALE and write nothing. Every join stays inside the
 * card's platform, found by each table's primary key (platform_id, id) (issue 29); the card's platform comes
 * from tenant_lookups (CARD_PROCESSOR_REF), so the card too is read by a key that leads with platform_id.
 */
export const AUTHORIZATION_FACTS_FROM = `FROM cards c
      LEFT JOIN customers cu ON cu.platform_id = c.platform_id AND cu.id = c.customer_id
      LEFT JOIN internal_accounts a ON a.platform_id = c.platform_id AND a.id = c.funding_sources[1]
      LEFT JOIN platform_currencies pc ON pc.platform_id = c.platform_id AND pc.currency_code = c.currency`;

/** Every fact above in one text (NULLs spelled out, so no two fact sets share one); the balance is not a fact: the ledger's guard checks it. */
export const AUTHORIZATION_FINGERPRINT_SQL = `concat_ws('|', c.state, c.currency, c.customer_id, coalesce(c.funding_sources[1], '∅'),
      coalesce(c.max_spend_per_transaction::text, '∅'), coalesce(cu.status, '∅'), coalesce(cu.platform_customer_id, '∅'),
      coalesce(a.status, '∅'), coalesce(a.currency, '∅'), coalesce(pc.max_amount::text, '∅'))`;

export interface AuthorizationFacts {
  cardId: string;
  platformId: string;
  customerId: string;
  platformCustomerId: string | null;
  state: string;
  currency: string;
  accountId: string | null;
  accountStatus: string | null;
  /** The funding source's currency (what is held; equal to the card's by the spec's rules). */
  accountCurrency: string | null;
  /** The funding source's type (issue 28: an EMBEDDED_WALLET source is signed by the card's delegated key). */
  accountType: string | null;
  customerStatus: string | null;
  maxSpendPerTransaction: bigint | null;
  platformMaxAmount: bigint | null;
  fingerprint: string;
}

interface FactsRow {
  id: string; platform_id: string; customer_id: string; platform_customer_id: string | null; state: string; currency: string;
  account_id: string | null; account_status: string | null; account_currency: string | null; account_type: string | null; customer_status: string | null; max_spend: string | null; max_amount: string | null; fingerprint: string;
}

const FACTS_SQL = `SELECT c.id, c.platform_id, c.customer_id, cu.platform_customer_id, c.state, c.currency, c.funding_sources[1] AS account_id,
       a.status AS account_status, a.currency AS account_currency, a.type AS account_type, cu.status AS customer_status, c.max_spend_per_transaction::text AS max_spend, pc.max_amount::text AS max_amount,
       ${AUTHORIZATION_FINGERPRINT_SQL} AS fingerprint
  ${AUTHORIZATION_FACTS_FROM}
 WHERE c.platform_id = (SELECT l.platform_id FROM tenant_lookups l WHERE l.kind = 'CARD_PROCESSOR_REF' AND l.value = $1 || chr(31) || $2)
   AND c.issuer_adapter = $1 AND c.processor_ref = $2`;

/** The facts of the card the processor calls `processorRef` (undefined: no such card with this issuer). */
export async function readAuthorizationFacts(pool: pg.Pool, adapterId: string, processorRef: string): Promise<AuthorizationFacts | undefined> {
  const { rows } = await query<FactsRow>(pool, FACTS_SQL, [adapterId, processorRef]);
  const r = rows[0];
  if (!r) return undefined;
  return {
    cardId: r.id, platformId: r.platform_id, customerId: r.customer_id, platformCustomerId: r.platform_customer_id, state: r.state, currency: r.currency,
    accountId: r.account_id, accountStatus: r.account_status, accountCurrency: r.account_currency, accountType: r.account_type, customerStatus: r.customer_status,
    maxSpendPerTransaction: r.max_spend === null ? null : BigInt(r.max_spend), platformMaxAmount: r.max_amount === null ? null : BigInt(r.max_amount),
    fingerprint: r.fingerprint,
  };
}

/** The decision already written for a processor token (the winner of a concurrent duplicate). */
export async function readDecidedAuthorization(pool: pg.Pool, platformId: string, issuerTransactionToken: string): Promise<{ id: string; status: string; declineReason: string | null; heldAmount: bigint; fundingCurrency: string } | undefined> {
  const { rows } = await query<{ id: string; status: string; decline_reason: string | null; held_amount: string; funding_currency: string }>(
    pool,
    'SELECT id, status, decline_reason, held_amount::text AS held_amount, funding_currency FROM card_transactions WHERE platform_id = $1 AND issuer_transaction_token = $2',
    [platformId, issuerTransactionToken],
  );
  const r = rows[0];
  return r && { id: r.id, status: r.status, declineReason: r.decline_reason, heldAmount: BigInt(r.held_amount), fundingCurrency: r.funding_currency };
}
