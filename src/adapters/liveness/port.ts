import type { AdapterContext, AdapterLifecycle, CallOptions } from '../common.js';

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

export interface LivenessAdapter extends AdapterLifecycle {
  readonly id: string;
  startSession(request: LivenessSessionRequest, opts?: CallOptions): Promise<LivenessSession>;
}

export interface LivenessAdapterContext extends AdapterContext {
  /**
   * The outcome of a session, named by the session's token (as given to startSession). Applied once,
   * asynchronously; `UNKNOWN_SESSION` for an unknown, used or expired token.
   */
  reportLivenessOutcome(report: { token: string; outcome: LivenessOutcome }): Promise<'ACCEPTED' | 'UNKNOWN_SESSION'>;
}
