import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import type { Ctx } from '../../deps.js';
import { ConflictError, ValidationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { getCustomerFacts } from './external-accounts.customers.js';
import { isScaCustomer } from './external-accounts.model.js';
import { abandonChallenges, findOutstandingChallenge, insertChallenge, resolveChallenge, setTrusted } from './external-accounts.repo.js';
import type { ExternalAccountRecord } from './external-accounts.schemas.js';
import { getExternalAccount } from './external-accounts.service.js';

/**
 * Trusted beneficiaries (SCA whitelisting; decisions B§6.1, A8): POST .../trust and .../untrust issue an SMS_OTP
 * SCA challenge, .../confirm checks its code and flips the flag. Only customers in an SCA region (EEA country,
 * or a platform with the scaRegion flag) have it; everyone else gets 409.
 *
 * Codes: in sandbox the code is always 123456 (A2). Elsewhere a random 6-digit code is generated and only its
 * hash stored; delivering it by SMS belongs to the SCA module, which does not exist yet (docs/decisions.md).
 * One wrong code consumes the challenge: the caller starts again, so codes cannot be guessed in a loop.
 */

export type TrustAction = 'TRUST' | 'UNTRUST';

export const SANDBOX_SCA_CODE = '123456';

export interface ScaChallenge {
  id: string;
  expiresAt: string;
  factor: 'SMS_OTP';
  availableFactors: Array<'SMS_OTP'>;
  purpose: string;
}

const hashCode = (challengeId: string, code: string) => createHash('sha256').update(`${challengeId}:${code}`).digest('hex');

async function scaAccount(ctx: Ctx, id: string): Promise<ExternalAccountRecord> {
  const a = await getExternalAccount(ctx, 'customers', id);
  const notRequired = () => new ConflictError('CONFLICT', 'Strong customer authentication is not required for this account\'s owner; trust does not apply.');
  if (!a.customerId) throw notRequired();
  const [customer, platform] = await Promise.all([getCustomerFacts(ctx, a.customerId), ctx.db.platform.findFirstOrThrow({})]);
  if (!isScaCustomer(customer, platform.scaRegion)) throw notRequired();
  return a;
}

const isInTargetState = (a: ExternalAccountRecord, action: TrustAction) => (action === 'TRUST') === (a.trustedAt !== null);

/** 200 `{scaChallenge}`; `{}` when the account already is in the asked state. Errors: 404; 409 outside SCA. */
export async function startTrustChange(ctx: Ctx, id: string, action: TrustAction): Promise<{ scaChallenge?: ScaChallenge }> {
  const a = await scaAccount(ctx, id);
  if (isInTargetState(a, action)) return {};
  const challengeId = newId('ScaChallenge');
  const code = ctx.config.SVC_ENV === 'sandbox' ? SANDBOX_SCA_CODE : String(randomInt(0, 1_000_000)).padStart(6, '0');
  const expiresAt = new Date(ctx.clock.now().getTime() + ctx.config.TRUST_CHALLENGE_TTL_MS);
  await ctx.db.$transaction(async (tx) => {
    await abandonChallenges(ctx, tx, a.id, 'TRUST');
    await insertChallenge(ctx, tx, { id: challengeId, externalAccountId: a.id, purpose: 'TRUST', method: 'SMS_OTP', action, secretHash: hashCode(challengeId, code), expiresAt });
  });
  return {
    scaChallenge: { id: challengeId, expiresAt: expiresAt.toISOString(), factor: 'SMS_OTP', availableFactors: ['SMS_OTP'], purpose: action === 'TRUST' ? 'TRUST_BENEFICIARY' : 'UNTRUST_BENEFICIARY' },
  };
}

export interface ConfirmInput {
  challengeId?: string | null;
  code?: string | null;
  passkeyAssertion?: Record<string, unknown> | null;
  origin?: string | null;
}

/**
 * 200 `{trusted}`. Errors: 400 INVALID_INPUT (no outstanding challenge for this action, wrong or expired code,
 * passkey without an enrolled passkey); 404; 409 outside SCA.
 */
export async function confirmTrustChange(ctx: Ctx, id: string, action: TrustAction, input: ConfirmInput): Promise<{ trusted: boolean }> {
  const a = await scaAccount(ctx, id);
  const challenge = await findOutstandingChallenge(ctx.db, a.id, 'TRUST');
  if (!challenge || challenge.action !== action) {
    if (isInTargetState(a, action)) return { trusted: a.trustedAt !== null };
    throw new ValidationError([{ field: 'challengeId', message: `No ${action.toLowerCase()} challenge is outstanding; call .../${action.toLowerCase()} first.` }]);
  }
  if (input.challengeId && input.challengeId !== challenge.id) {
    throw new ValidationError([{ field: 'challengeId', message: 'Not the outstanding challenge of this account.' }]);
  }
  if (!input.code) {
    throw new ValidationError([{ field: 'passkeyAssertion', message: 'No passkey is enrolled for this customer; confirm with the SMS code.' }]);
  }
  const late = ctx.clock.now().getTime() > challenge.expiresAt.getTime();
  const expected = Buffer.from(challenge.secretHash ?? '', 'hex');
  const given = Buffer.from(hashCode(challenge.id, input.code), 'hex');
  const valid = !late && expected.length === given.length && timingSafeEqual(expected, given);
  const trusted = action === 'TRUST';
  const applied = await ctx.db.$transaction(async (tx) => {
    if (!(await resolveChallenge(ctx, tx, challenge.id, valid ? 'SUCCEEDED' : 'FAILED'))) return false;
    return valid ? setTrusted(ctx, tx, a.id, trusted) : true;
  });
  if (!applied) throw new ValidationError([{ field: 'challengeId', message: 'The challenge was used by a concurrent request; start a new one.' }]);
  if (!valid) throw new ValidationError([{ field: 'code', message: late ? 'The challenge has expired; start a new one.' : 'Wrong code; start a new challenge.' }]);
  return { trusted };
}
