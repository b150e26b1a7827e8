/**
 * Liveness (a selfie video matched to the person) as a hosted session: the service hands the end user a link,
 * the provider reports the outcome asynchronously. Used for wallet-ownership challenges (decisions B§6.4);
 * SCA factor reset may reuse it.
 */

export interface LivenessSessionRequest {
  /** Our id for the session (challenge id): the provider's idempotency key. */
  reference: string;
  /** Single-use secret naming the session in the link and in the outcome callback. */
  token: string;
  expiresAt: Date;
}

export interface LivenessSession {
  verificationLink: string;
}

export type LivenessOutcome = 'PASSED' | 'FAILED';

export interface LivenessAdapter {
  readonly id: string;
  startSession(request: LivenessSessionRequest): Promise<LivenessSession>;
}
