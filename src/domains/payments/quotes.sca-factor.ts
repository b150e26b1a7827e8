import { z } from 'zod';
import { NotImplementedError } from '../../platform/errors.js';

/**
 * REF's `scaFactor` on `POST /quotes` and `POST /quotes/{quoteId}/execute` (issue 25): the preferred factor
 * of the payment's SCA challenge. `SMS_OTP` is the default and what this server's challenges use; `TOTP`
 * is refused as REF refuses it (it cannot carry the dynamic linking a payment needs); `PASSKEY` is REF's,
 * and this server serves no passkeys (its SCA passkey operations answer 501 too).
 */
export const SCA_FACTORS = ['SMS_OTP', 'PASSKEY'] as const;

export const scaFactorField = z.string().superRefine((v, ctx) => {
  if (v === 'TOTP') ctx.addIssue({ code: 'custom', message: 'TOTP cannot carry the dynamic linking a payment needs: use SMS_OTP.', params: { enum: [...SCA_FACTORS] } });
  else if (!(SCA_FACTORS as readonly string[]).includes(v)) ctx.addIssue({ code: 'custom', message: `Must be one of: ${SCA_FACTORS.join(', ')}.`, params: { enum: [...SCA_FACTORS] } });
});

/** `POST /quotes/{quoteId}/execute`'s optional body: only `scaFactor` is read (other keys are ignored, as before). */
export const executeQuoteBody = z.object({ scaFactor: scaFactorField.optional() });

/** Errors: 501 NOT_IMPLEMENTED for PASSKEY (details.errors on `scaFactor`). */
export function assertScaFactorServed(factor: string | undefined): void {
  if (factor === 'PASSKEY') {
    throw new NotImplementedError('Passkey SCA factors are not served by this deployment; use SMS_OTP.', { errors: [{ field: 'scaFactor', message: 'PASSKEY is not served here.' }] });
  }
}
