import type { CallOptions } from '../../common.js';
import type { BeneficiaryCheckAdapter, BeneficiaryCheckRequest, BeneficiaryCheckResult, BeneficiaryVerificationStatus } from '../port.js';

/**
 * Deterministic sandbox (documented in docs/decisions.md, External accounts):
 * - identifier suffix `008`: the account goes UNDER_REVIEW (decision A9);
 * - suffixes `101`..`105` force a result: `101` MATCHED, `102` PARTIAL_MATCH, `103` NOT_MATCHED,
 *   `104` UNSUPPORTED, `105` CHECKED_BY_RECEIVING_FI (REF §12: name-check scenarios use 1xx suffixes);
 * - wallets and Lightning: UNSUPPORTED; US accounts: CHECKED_BY_RECEIVING_FI (ACH, wire, RTP and FedNow
 *   have no payee-name scheme, the receiving bank checks); types whose rail has a name scheme (below) compare
 *   the beneficiary name with the holder name the "rail" returns: the customer's name for the customer's own
 *   accounts, else the beneficiary name itself; other types UNSUPPORTED.
 */

/** Account types whose rail offers a name check (CoP, VoP, Pix DICT, UPI/IMPS, SPEI, NIP, mobile-money KYC). */
const NAME_CHECK_TYPES = new Set([
  'GBP_ACCOUNT', 'EUR_ACCOUNT', 'DKK_ACCOUNT', 'BRL_ACCOUNT', 'INR_ACCOUNT', 'MXN_ACCOUNT', 'NGN_ACCOUNT', 'PHP_ACCOUNT',
  'KES_ACCOUNT', 'TZS_ACCOUNT', 'UGX_ACCOUNT', 'RWF_ACCOUNT', 'ZMW_ACCOUNT', 'MWK_ACCOUNT', 'GHS_ACCOUNT', 'BWP_ACCOUNT',
  'XOF_ACCOUNT', 'XAF_ACCOUNT',
]);

const FORCED: Record<string, BeneficiaryVerificationStatus> = {
  '101': 'MATCHED',
  '102': 'PARTIAL_MATCH',
  '103': 'NOT_MATCHED',
  '104': 'UNSUPPORTED',
  '105': 'CHECKED_BY_RECEIVING_FI',
};

export const sandboxBeneficiaryCheck: BeneficiaryCheckAdapter = {
  id: 'sandbox',
  async check(req: BeneficiaryCheckRequest, callOpts?: CallOptions): Promise<BeneficiaryCheckResult> {
    callOpts?.signal?.throwIfAborted();
    const requiresReview = req.identifierLast3 === '008';
    const forced = FORCED[req.identifierLast3];
    const claimed = req.beneficiaryName ?? req.customerName ?? 'Account Holder';
    if (forced) return { status: forced, requiresReview, ...(holderFor(forced, claimed) ?? {}) };
    if (req.accountType.endsWith('_WALLET') || req.accountType === 'LIGHTNING') return { status: 'UNSUPPORTED', requiresReview };
    if (req.accountType === 'USD_ACCOUNT') return { status: 'CHECKED_BY_RECEIVING_FI', requiresReview };
    if (!NAME_CHECK_TYPES.has(req.accountType) || !req.beneficiaryName) return { status: 'UNSUPPORTED', requiresReview };
    const holderName = req.customerName && req.ownershipType !== 'THIRD_PARTY' ? req.customerName : req.beneficiaryName;
    return { status: compareNames(req.beneficiaryName, holderName), holderName, requiresReview };
  },
};

function holderFor(status: BeneficiaryVerificationStatus, claimed: string): { holderName: string } | undefined {
  if (status === 'MATCHED') return { holderName: claimed };
  if (status === 'PARTIAL_MATCH') return { holderName: `${claimed.split(/\s+/)[0]} ${claimed.split(/\s+/).slice(-1)[0]?.slice(0, 1) ?? ''}.`.trim() };
  if (status === 'NOT_MATCHED') return { holderName: 'Someone Else' };
  return undefined;
}

const BUSINESS_SUFFIXES = new Set(['ltd', 'limited', 'inc', 'llc', 'plc', 'gmbh', 'sa', 'sas', 'bv', 'co', 'corp', 'company']);

function tokens(name: string): string[] {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9\s]/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
}

/** Exact (after case, accents and punctuation) is MATCHED; a subset of words, initials or a typo is PARTIAL_MATCH. */
export function compareNames(claimed: string, holder: string): 'MATCHED' | 'PARTIAL_MATCH' | 'NOT_MATCHED' {
  const a = tokens(claimed);
  const b = tokens(holder);
  if (a.join(' ') === b.join(' ')) return 'MATCHED';
  const core = (t: string[]) => t.filter((w) => !BUSINESS_SUFFIXES.has(w));
  const [ca, cb] = [core(a), core(b)];
  if (ca.length > 0 && ca.join(' ') === cb.join(' ')) return 'PARTIAL_MATCH';
  const covers = (x: string[], y: string[]) => x.every((w) => y.some((v) => v === w || (w.length === 1 && v.startsWith(w))));
  if (ca.length > 0 && cb.length > 0 && (covers(ca, cb) || covers(cb, ca))) return 'PARTIAL_MATCH';
  if (levenshtein(ca.join(' '), cb.join(' ')) <= 2) return 'PARTIAL_MATCH';
  return 'NOT_MATCHED';
}

function levenshtein(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}
