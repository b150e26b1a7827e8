import { createHash, randomBytes, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { defineLifecycle, type TransitionTable } from '../../platform/state-machine.js';
import { DomainError } from '../../platform/errors.js';
import { EEA_COUNTRIES } from '../customers/index.js';

/** Decisions A8, A15, B§6.5. Pure rules of Strong Customer Authentication; no I/O. */

/** Decision A2: fixed sandbox one-time code. */
export const SANDBOX_SCA_CODE = '123456';

/**
 * A8: a customer is in an SCA region when its region (`region`, else its address country) is in the EEA,
 * or when its platform carries the `scaRegion` flag.
 */
export function isScaCustomer(c: { region: string | null; address: unknown }, platformScaRegion: boolean): boolean {
  if (platformScaRegion) return true;
  const addressCountry = c.address && typeof c.address === 'object' ? (c.address as Record<string, unknown>).country : undefined;
  const region = c.region ?? (typeof addressCountry === 'string' ? addressCountry : undefined);
  return !!region && EEA_COUNTRIES.has(region.toUpperCase());
}

// ------------------------------------------------------------------------------------------- codes

/** A 6-digit one-time code: the sandbox constant, else uniformly random. */
export const newOneTimeCode = (sandbox: boolean) => (sandbox ? SANDBOX_SCA_CODE : String(randomInt(0, 1_000_000)).padStart(6, '0'));
/** Only this is stored; the challenge id salts it so equal codes of two challenges differ. */
export const hashCode = (challengeId: string, code: string) => createHash('sha256').update(`${challengeId}:${code}`).digest('hex');

// -------------------------------------------------------------------------------------------- TOTP

/** A15: RFC 6238, SHA-1, 30-second steps, 6 digits, one step of drift either way. */
export const TOTP_PERIOD_S = 30;
export const TOTP_DIGITS = 6;
export const TOTP_WINDOW = 1;

export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

export function totpUri(secretBase32: string, label: string, issuer: string): string {
  return new TOTP({ issuer, label, algorithm: 'SHA1', digits: TOTP_DIGITS, period: TOTP_PERIOD_S, secret: Secret.fromBase32(secretBase32) }).toString();
}

/** The time step a valid code belongs to, or null. The caller refuses a step already used (no replay). */
export function matchTotp(secretBase32: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = TOTP.validate({ token: code, secret: Secret.fromBase32(secretBase32), algorithm: 'SHA1', digits: TOTP_DIGITS, period: TOTP_PERIOD_S, timestamp: now.getTime(), window: TOTP_WINDOW });
  return delta === null ? null : Math.floor(now.getTime() / 1000 / TOTP_PERIOD_S) + delta;
}

/** Ten single-use recovery codes, shown once at confirmation; only their hashes are kept. */
export function newRecoveryCodes(): { codes: string[]; hashes: string[] } {
  const codes = Array.from({ length: 10 }, () => randomBytes(5).toString('hex'));
  return { codes, hashes: codes.map((c) => createHash('sha256').update(c).digest('hex')) };
}

// ----------------------------------------------------------------------------------------- lockout

/**
 * Decisions B§6.5 ladder: the 5th consecutive failed proof locks for 15 minutes, the 6th 30 minutes, the
 * 7th an hour, the 8th a day; from the 9th the customer is suspended until a factor reset completes.
 */
export function lockoutFor(failedAttempts: number, now: Date): { lockedUntil: Date | null; suspended: boolean } {
  const minutes = failedAttempts >= 9 ? null : ({ 5: 15, 6: 30, 7: 60, 8: 1440 } as Record<number, number>)[failedAttempts];
  if (failedAttempts >= 9) return { lockedUntil: null, suspended: true };
  return { lockedUntil: minutes ? new Date(now.getTime() + minutes * 60_000) : null, suspended: false };
}

export class AccountLockedError extends DomainError {
  constructor(details: { lockedUntil: string | null; failedAttempts: number; suspended: boolean }) {
    super(423, 'ACCOUNT_LOCKED', details.suspended ? 'SCA is suspended for this customer after repeated failures; complete a factor reset.' : 'Too many failed SCA attempts; retry after lockedUntil.', details);
  }
}

// ------------------------------------------------------------------------------------ factor reset

/** Spec "SCA factor reset status"; decisions B§6.5. */
export const RESET_STATUSES = ['INITIATED', 'PENDING_REVIEW', 'LIVENESS_PASSED', 'COMPLETED', 'REJECTED', 'EXPIRED'] as const;
export type ResetStatus = (typeof RESET_STATUSES)[number];
export const TERMINAL_RESET_STATUSES: readonly ResetStatus[] = ['COMPLETED', 'REJECTED', 'EXPIRED'];
export const OPEN_RESET_STATUSES = ['INITIATED', 'PENDING_REVIEW', 'LIVENESS_PASSED'] as const;

export const resetTransitions = {
  /** The end user submitted liveness (sandbox: chose pass or fail on the page). */
  livenessSubmitted: { from: ['INITIATED'], to: 'PENDING_REVIEW' },
  livenessPassed: { from: ['PENDING_REVIEW'], to: 'LIVENESS_PASSED' },
  livenessFailed: { from: ['PENDING_REVIEW'], to: 'REJECTED' },
  complete: { from: ['LIVENESS_PASSED'], to: 'COMPLETED' },
  expire: { from: [...OPEN_RESET_STATUSES], to: 'EXPIRED' },
} as const satisfies TransitionTable<ResetStatus>;
export type ResetEvent = keyof typeof resetTransitions;

export const resetLifecycle = defineLifecycle({
  name: 'sca-factor-reset',
  label: 'The factor reset',
  statuses: RESET_STATUSES,
  transitions: resetTransitions,
  terminal: TERMINAL_RESET_STATUSES,
});

/** A one-time-code challenge (login, payout authorization): answered or expired once. */
export const SCA_CHALLENGE_STATUSES = ['OUTSTANDING', 'SUCCEEDED', 'FAILED', 'EXPIRED'] as const;
export const scaChallengeLifecycle = defineLifecycle({
  name: 'sca-challenge',
  label: 'The challenge',
  statuses: SCA_CHALLENGE_STATUSES,
  transitions: {
    succeed: { from: ['OUTSTANDING'], to: 'SUCCEEDED' },
    fail: { from: ['OUTSTANDING'], to: 'FAILED' },
    expire: { from: ['OUTSTANDING'], to: 'EXPIRED' },
  },
  terminal: ['SUCCEEDED', 'FAILED', 'EXPIRED'],
});

/**
 * An enrolled factor (TOTP): PENDING until its first valid code. Enrolling again replaces the row (a new
 * id, PENDING), it does not move it; removing a factor deletes it.
 */
export const SCA_FACTOR_STATUSES = ['PENDING', 'ACTIVE'] as const;
export const scaFactorLifecycle = defineLifecycle({
  name: 'sca-factor',
  label: 'The enrollment',
  statuses: SCA_FACTOR_STATUSES,
  transitions: { confirm: { from: ['PENDING'], to: 'ACTIVE' } },
  terminal: ['ACTIVE'],
  conflictCode: 'CONFLICT',
});

export const RESET_FACTORS = ['TOTP', 'SMS_OTP', 'PASSKEY'] as const;
export type ResetFactor = (typeof RESET_FACTORS)[number];
