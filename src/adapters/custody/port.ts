import type { AdapterLifecycle, CallOptions } from '../common.js';

/**
 * Wallet custody: who holds the keys of an EMBEDDED_WALLET internal account (REF "Global Accounts").
 * The service never signs a wallet's outgoing transfer itself: it hands the custody provider the
 * customer's stamp (a P-256 signature by a live session key over `payloadToSign`) and the keys allowed
 * to stamp, and the provider checks the stamp again before it signs and submits (docs/adapters.md
 * "Wallet custody"). The product's promise, "the operator cannot move a customer's funds without the
 * customer's signature", holds only when the provider keeps the keys in an enclave the operator cannot
 * read (`enclaveBacked`); the sandbox provider keeps them in Postgres, sealed with the server's key,
 * which makes the operator a custodian.
 *
 * Implementations are stateless apart from their own store, take our ids as idempotency keys and throw
 * CustodyError (with `retryable` and, for a refused stamp, the failed check in `reason`).
 */

export interface CustodyScope {
  /** The platform's key: a bare uuid since platform ids are stored as uuid (issue 30, 30e); it was `Platform:<uuid>` before. */
  platformId: string;
}

export interface CreatedWallet {
  /** The provider's name for the wallet (stable for one walletId). */
  custodyRef: string;
  /** The wallet's receiving address (a Spark address in REF; deterministic in the sandbox). */
  address: string;
}

/** A credential the provider must accept as a way into the wallet. */
export interface CredentialRegistration {
  credentialId: string;
  type: 'EMAIL_OTP' | 'SMS_OTP' | 'OAUTH' | 'PASSKEY';
  /** PASSKEY: the COSE public key, base64url. */
  publicKey?: string;
}

/**
 * An OTP target: a fresh P-256 key whose public half travels to the client in `targetBundle` (REF's
 * `otpEncryptionTargetBundle`: `{version, data: hex(JSON {targetPublic}), dataSignature, enclaveQuorumPublic}`).
 * The client HPKE-seals `{otp_code, public_key}` to it; only the provider can open the attempt.
 */
export interface OtpTarget {
  targetRef: string;
  targetBundle: string;
}

export interface OpenedOtpAttempt {
  otpCode: string;
  /** The client's key (TEK) sealed with the code, compressed SEC1 hex: the session key to be. */
  publicKey: string;
}

export interface Stamp {
  publicKey: string;
  /** DER ECDSA P-256 / SHA-256 over the UTF-8 bytes of the payload. */
  signature: Buffer;
}

export interface TransferToSign {
  /** Our transaction (or quote) id: signing twice with the same key submits once. */
  idempotencyKey: string;
  amount: bigint;
  currency: string;
  destination: string;
}

export interface DelegatedSigner {
  signerRef: string;
  /** Compressed SEC1 P-256 hex. */
  publicKey: string;
}

/**
 * An on-chain credit to a wallet as the provider saw it (REF: incoming funds arrive passively). `reference`
 * is the provider's id of that credit, stable across reports: the service books each reference once.
 */
export interface CustodyCredit {
  reference: string;
  amount: bigint;
  currency: string;
  senderAddress?: string;
  receivedAt: Date;
}

export interface WalletCustody extends AdapterLifecycle {
  readonly id: string;
  /** True only when the keys live where the operator cannot read them (an enclave). */
  readonly enclaveBacked: boolean;
  createWallet(req: { scope: CustodyScope; walletId: string }, opts?: CallOptions): Promise<CreatedWallet>;
  registerCredential(req: { scope: CustodyScope; custodyRef: string; credential: CredentialRegistration }, opts?: CallOptions): Promise<void>;
  revokeCredential(req: { scope: CustodyScope; custodyRef: string; credentialId: string }, opts?: CallOptions): Promise<void>;
  issueOtpTarget(req: { scope: CustodyScope; challengeId: string; expiresAt: Date }, opts?: CallOptions): Promise<OtpTarget>;
  /** Opens an HPKE-sealed attempt (`{encappedPublic, ciphertext}` JSON). Throws CustodyError reason OTP_BUNDLE_INVALID. */
  openOtpAttempt(req: { scope: CustodyScope; targetRef: string; encryptedOtpBundle: string }, opts?: CallOptions): Promise<OpenedOtpAttempt>;
  /** Binds a session key to the wallet until expiresAt. */
  createSession(req: { scope: CustodyScope; custodyRef: string; sessionId: string; publicKey: string; expiresAt: Date }, opts?: CallOptions): Promise<void>;
  revokeSession(req: { scope: CustodyScope; custodyRef: string; sessionId: string }, opts?: CallOptions): Promise<void>;
  /**
   * Checks the stamp over `payload` against `allowedPublicKeys` (the live session keys) and signs and
   * submits the transfer. Throws CustodyError reason STAMP_INVALID (nothing signed) when the check fails.
   */
  signTransfer(req: { scope: CustodyScope; custodyRef: string; payload: string; stamp: Stamp | 'SANDBOX'; allowedPublicKeys: string[]; transfer: TransferToSign }, opts?: CallOptions): Promise<{ reference: string }>;
  /** The wallet's mnemonic HPKE-sealed to clientPublicKey (REF's `encryptedWalletCredentials`). */
  exportWallet(req: { scope: CustodyScope; custodyRef: string; clientPublicKey: string }, opts?: CallOptions): Promise<{ encryptedWalletCredentials: string }>;
  setPrivacy(req: { scope: CustodyScope; custodyRef: string; enabled: boolean }, opts?: CallOptions): Promise<void>;
  createDelegatedSigner(req: { scope: CustodyScope; custodyRef: string; idempotencyKey: string }, opts?: CallOptions): Promise<DelegatedSigner>;
  revokeDelegatedSigner(req: { scope: CustodyScope; signerRef: string }, opts?: CallOptions): Promise<void>;
  /** Signs `payload` with an ACTIVE delegated signer (a card authorization); CustodyError SIGNER_REVOKED otherwise. */
  signWithDelegatedSigner(req: { scope: CustodyScope; signerRef: string; payload: string }, opts?: CallOptions): Promise<Stamp>;
  /**
   * Re-points an OTP credential at a new email or phone (a customer's contact change, PATCH /customers/{id}).
   * CustodyError CREDENTIAL_UPDATE_FAILED when the provider refused it; calling it again with the old
   * contact undoes it.
   */
  updateCredentialContact(req: { scope: CustodyScope; custodyRef: string; credentialId: string; type: 'EMAIL_OTP' | 'SMS_OTP'; contact: string }, opts?: CallOptions): Promise<void>;
  /** The credits the provider saw arrive on the wallet, newest first (at most `limit`). */
  listCredits(req: { scope: CustodyScope; custodyRef: string; limit: number }, opts?: CallOptions): Promise<CustodyCredit[]>;
  /** Sandbox only: an on-chain credit arrives (POST /sandbox/internal-accounts/{id}/receive). Same reference: one credit. */
  simulateCredit?(req: { scope: CustodyScope; custodyRef: string; reference: string; amount: bigint; currency: string; senderAddress?: string }): Promise<void>;
}

export type CustodyFailure = 'OTP_BUNDLE_INVALID' | 'STAMP_INVALID' | 'SIGNER_REVOKED' | 'WALLET_NOT_FOUND' | 'PROVIDER_UNAVAILABLE' | 'INVALID_KEY' | 'CREDENTIAL_UPDATE_FAILED';

export class CustodyError extends Error {
  constructor(
    readonly reason: CustodyFailure,
    message: string,
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'CustodyError';
  }
}
