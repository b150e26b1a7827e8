import { z } from 'zod';

const id = z.string().min(1).max(200);
const code = z.string().min(1).max(64);
/** An IPv4 or IPv6 address (spec: `endUserIpAddress`, required on login and reset). */
const ipAddress = z.union([z.ipv4(), z.ipv6()]);

export const customerQuery = z.object({ customerId: id });
export const credentialParams = z.object({ credentialId: id });
export const resetParams = z.object({ resetId: id });

export const enrollBody = z.strictObject({ type: z.enum(['TOTP', 'PASSKEY']) });
export const confirmBody = z.strictObject({
  type: z.enum(['TOTP', 'PASSKEY']),
  secret: z.string().max(200).optional(),
  code: code.optional(),
  origin: z.string().max(500).optional(),
  credential: z.record(z.string(), z.unknown()).optional(),
});

export const loginStartBody = z.strictObject({ factor: z.enum(['SMS_OTP', 'TOTP', 'PASSKEY']) });
export const loginCompleteBody = z.strictObject({
  factor: z.enum(['SMS_OTP', 'TOTP', 'PASSKEY']),
  endUserIpAddress: ipAddress,
  challengeId: id.nullable().optional().transform((v) => v ?? undefined),
  code: code.optional(),
  passkeyAssertion: z.record(z.string(), z.unknown()).nullable().optional(),
  origin: z.string().max(500).nullable().optional(),
});

/** Decisions B§4.4 `ScaAuthorization`; passkey assertions are refused until passkeys exist. */
export const authorizeBody = z
  .strictObject({
    code: code.optional(),
    passkeyAssertion: z.record(z.string(), z.unknown()).nullable().optional(),
    origin: z.string().max(500).nullable().optional(),
    endUserIpAddress: ipAddress.optional(),
  })
  .superRefine((b, ctx) => {
    if (!b.code) ctx.addIssue({ code: 'custom', path: ['code'], message: b.passkeyAssertion ? 'Passkeys are not available yet; send the code.' : 'Required.' });
  });

export const resetStartBody = z.strictObject({
  factor: z.enum(['TOTP', 'SMS_OTP', 'PASSKEY']),
  endUserIpAddress: ipAddress,
});
export const resetCompleteBody = z.strictObject({
  endUserIpAddress: ipAddress,
  mobile: z.strictObject({ countryCode: z.string().regex(/^\+?[1-9]\d{0,3}$/), number: z.string().regex(/^[\d ()-]{4,20}$/) }).optional(),
});
