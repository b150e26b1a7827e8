import { describe, expect, it } from 'vitest';
import { IllegalTransitionError, nextStatus, type Lifecycle } from '../../src/platform/state-machine.js';
import { contactChannelMachine, customerStatusMachine, ownerStatusMachine } from '../../src/domains/customers/customers.model.js';
import { verificationMachine } from '../../src/domains/verification/verification.model.js';
import { accountChallengeLifecycle, externalAccountLifecycle } from '../../src/domains/external-accounts/external-accounts.model.js';
import { cardLifecycle } from '../../src/domains/cards/cards.model.js';
import { resetLifecycle, scaChallengeLifecycle, scaFactorLifecycle } from '../../src/domains/sca/sca.model.js';
import { stablecoinEnablementLifecycle } from '../../src/domains/stablecoin/stablecoin.model.js';
import { invitationLifecycle } from '../../src/domains/invitations/invitations.model.js';
import { bankLinkLifecycle } from '../../src/domains/plaid/plaid.model.js';
import { bulkImportLifecycle } from '../../src/domains/bulk-customers/bulk-customers.model.js';
import { deliveryLifecycle } from '../../src/domains/webhooks/webhooks.model.js';
import { quoteLifecycle, refundLifecycle, transactionLifecycle } from '../../src/domains/payments/transactions.model.js';
import { agentActionLifecycle } from '../../src/domains/agents/agents.model.js';
import { coordinatesLifecycle } from '../../src/domains/collection/collection.model.js';

/**
 * Every lifecycle's documented moves, written out independently of its transition table as
 * `event: FROM>TO`, with its terminal statuses and the error code of a refused move. The test pairs
 * every event of the table with every status: a documented pair must land on the documented target,
 * every other pair must raise IllegalTransitionError — so a move added to, dropped from or
 * retargeted in a table fails here until its documentation says so.
 */
interface Documented {
  lifecycle: Lifecycle;
  moves: string[];
  terminal: string[];
  code: string;
}

/** Decisions Part B §3.1, §6.2 and A17: the payment's moves (its quote makes the same ones). */
const PAYMENT_MOVES = [
  'execute: PENDING>PROCESSING',
  'requireAuthorization: PENDING>PENDING_AUTHORIZATION',
  'authorize: PENDING_AUTHORIZATION>PROCESSING',
  'authorizationExpired: PENDING_AUTHORIZATION>FAILED',
  'expire: PENDING>EXPIRED',
  'complete: PROCESSING>COMPLETED',
  'fail: PROCESSING>FAILED',
  'bankReturn: COMPLETED>FAILED',
  'reject: PENDING>FAILED',
  'cancel: PENDING>FAILED', 'cancel: PENDING_AUTHORIZATION>FAILED', 'cancel: PROCESSING>FAILED',
  // REF's incoming-only statuses (issue 25).
  'receive: CREATED>PENDING',
  'rejectIncoming: CREATED>REJECTED', 'rejectIncoming: PENDING>REJECTED',
  'refundIncoming: PENDING>REFUNDED', 'refundIncoming: PROCESSING>REFUNDED',
];

const DOCUMENTED: Documented[] = [
  // The lifecycle that moves money: COMPLETED is not final (a bank may return the payment).
  { lifecycle: transactionLifecycle, moves: PAYMENT_MOVES, terminal: ['FAILED', 'EXPIRED', 'REJECTED', 'REFUNDED'], code: 'INVALID_STATE_TRANSITION' },
  { lifecycle: quoteLifecycle, moves: PAYMENT_MOVES, terminal: ['FAILED', 'EXPIRED', 'REJECTED', 'REFUNDED'], code: 'INVALID_STATE_TRANSITION' },
  {
    // B§6.2: a failed payment's automatic refund; NONE: no refund started (a NULL column).
    lifecycle: refundLifecycle,
    moves: ['start: NONE>PENDING', 'complete: PENDING>COMPLETED', 'fail: PENDING>FAILED'],
    terminal: ['COMPLETED', 'FAILED'],
    code: 'INVALID_STATE_TRANSITION',
  },
  {
    // Spec "Customer verification status"; A10 (HOLD entered by the provider, left by a new submission).
    lifecycle: customerStatusMachine,
    moves: ['submit: UNVERIFIED>PENDING', 'submit: HOLD>PENDING', 'approve: PENDING>APPROVED', 'reject: PENDING>REJECTED', 'hold: PENDING>HOLD'],
    terminal: ['APPROVED', 'REJECTED'],
    code: 'CONFLICT',
  },
  {
    lifecycle: ownerStatusMachine,
    moves: ['submit: UNVERIFIED>PENDING', 'approve: PENDING>APPROVED', 'reject: PENDING>REJECTED'],
    terminal: ['APPROVED', 'REJECTED'],
    code: 'CONFLICT',
  },
  {
    // Spec "Contact verification channel"; NONE: not required (a NULL column).
    lifecycle: contactChannelMachine,
    moves: ['confirm: PENDING>VERIFIED', 'reset: VERIFIED>PENDING', 'require: NONE>PENDING', 'release: PENDING>NONE', 'release: VERIFIED>NONE'],
    terminal: [],
    code: 'CONFLICT',
  },
  {
    // Spec "Verification status": RESOLVE_ERRORS, APPROVED and REJECTED end a case.
    lifecycle: verificationMachine,
    moves: [
      'review: IN_PROGRESS>PENDING_MANUAL_REVIEW',
      'approve: IN_PROGRESS>APPROVED', 'approve: PENDING_MANUAL_REVIEW>APPROVED',
      'reject: IN_PROGRESS>REJECTED', 'reject: PENDING_MANUAL_REVIEW>REJECTED',
      'requestInformation: IN_PROGRESS>RESOLVE_ERRORS', 'requestInformation: PENDING_MANUAL_REVIEW>RESOLVE_ERRORS',
    ],
    terminal: ['RESOLVE_ERRORS', 'APPROVED', 'REJECTED'],
    code: 'CONFLICT',
  },
  {
    // Spec "External account status"; A11, B§6.4.
    lifecycle: externalAccountLifecycle,
    moves: [
      'beneficiaryCheckPassed: PENDING>ACTIVE', 'beneficiaryCheckNeedsReview: PENDING>UNDER_REVIEW',
      'challengeRestarted: UNVERIFIED>PENDING_OWNERSHIP_VERIFICATION',
      'signatureVerified: PENDING_OWNERSHIP_VERIFICATION>ACTIVE', 'signatureRejected: PENDING_OWNERSHIP_VERIFICATION>UNVERIFIED',
      'livenessPassed: PENDING_OWNERSHIP_VERIFICATION>ACTIVE', 'livenessFailed: PENDING_OWNERSHIP_VERIFICATION>UNVERIFIED',
      'reviewApproved: UNDER_REVIEW>ACTIVE',
      'deactivate: PENDING>INACTIVE', 'deactivate: ACTIVE>INACTIVE', 'deactivate: PENDING_OWNERSHIP_VERIFICATION>INACTIVE',
      'deactivate: UNVERIFIED>INACTIVE', 'deactivate: UNDER_REVIEW>INACTIVE',
      'reactivate: INACTIVE>ACTIVE',
    ],
    terminal: [],
    code: 'CONFLICT',
  },
  {
    lifecycle: accountChallengeLifecycle,
    moves: ['succeed: OUTSTANDING>SUCCEEDED', 'fail: OUTSTANDING>FAILED', 'abandon: OUTSTANDING>ABANDONED'],
    terminal: ['SUCCEEDED', 'FAILED', 'ABANDONED'],
    code: 'CONFLICT',
  },
  {
    // Spec "Card state", plus REF's PENDING_KYC and PROCESSING while the issuer provisions (issue 27).
    lifecycle: cardLifecycle,
    moves: [
      'kycApproved: PENDING_KYC>PROCESSING', 'activate: PROCESSING>ACTIVE', 'issuerReject: PROCESSING>CLOSED',
      'freeze: ACTIVE>FROZEN', 'unfreeze: FROZEN>ACTIVE',
      'close: PENDING_KYC>CLOSED', 'close: PROCESSING>CLOSED', 'close: ACTIVE>CLOSED', 'close: FROZEN>CLOSED',
    ],
    terminal: ['CLOSED'],
    code: 'INVALID_STATE_TRANSITION',
  },
  {
    // Spec "SCA factor reset status"; B§6.5.
    lifecycle: resetLifecycle,
    moves: [
      'livenessSubmitted: INITIATED>PENDING_REVIEW', 'livenessPassed: PENDING_REVIEW>LIVENESS_PASSED', 'livenessFailed: PENDING_REVIEW>REJECTED',
      'complete: LIVENESS_PASSED>COMPLETED',
      'expire: INITIATED>EXPIRED', 'expire: PENDING_REVIEW>EXPIRED', 'expire: LIVENESS_PASSED>EXPIRED',
    ],
    terminal: ['COMPLETED', 'REJECTED', 'EXPIRED'],
    code: 'INVALID_STATE_TRANSITION',
  },
  {
    lifecycle: scaChallengeLifecycle,
    moves: ['succeed: OUTSTANDING>SUCCEEDED', 'fail: OUTSTANDING>FAILED', 'expire: OUTSTANDING>EXPIRED'],
    terminal: ['SUCCEEDED', 'FAILED', 'EXPIRED'],
    code: 'INVALID_STATE_TRANSITION',
  },
  {
    lifecycle: scaFactorLifecycle,
    moves: ['confirm: PENDING>ACTIVE'],
    terminal: ['ACTIVE'],
    code: 'CONFLICT',
  },
  {
    // Spec "Stablecoin enablement status"; A16.
    lifecycle: stablecoinEnablementLifecycle,
    moves: [
      'request: NOT_ENABLED>PENDING_APPROVAL',
      'approve: PENDING_APPROVAL>ENABLING', 'approve: DISABLED>ENABLING',
      'enable: PENDING_APPROVAL>ENABLED', 'enable: ENABLING>ENABLED',
      'disable: PENDING_APPROVAL>DISABLED', 'disable: ENABLING>DISABLED', 'disable: ENABLED>DISABLED',
    ],
    terminal: [],
    code: 'INVALID_STATE_TRANSITION',
  },
  {
    lifecycle: invitationLifecycle,
    moves: ['claim: PENDING>CLAIMED', 'cancel: PENDING>CANCELLED'],
    terminal: ['CLAIMED', 'CANCELLED'],
    code: 'INVALID_STATE_TRANSITION',
  },
  {
    lifecycle: bankLinkLifecycle,
    moves: ['complete: PENDING>COMPLETED'],
    terminal: ['COMPLETED', 'FAILED'],
    code: 'INVALID_STATE_TRANSITION',
  },
  {
    lifecycle: bulkImportLifecycle,
    moves: ['start: PENDING>PROCESSING', 'complete: PENDING>COMPLETED', 'complete: PROCESSING>COMPLETED', 'fail: PENDING>FAILED', 'fail: PROCESSING>FAILED'],
    terminal: ['COMPLETED', 'FAILED'],
    code: 'INVALID_STATE_TRANSITION',
  },
  {
    // Decisions A7, §7.3; a failed attempt inside the retry window stays PENDING.
    lifecycle: deliveryLifecycle,
    moves: [
      'deliver: PENDING>DELIVERED', 'retry: PENDING>PENDING', 'fail: PENDING>FAILED', 'markUndeliverable: PENDING>UNDELIVERABLE',
      'redeliver: PENDING>PENDING', 'redeliver: DELIVERED>PENDING', 'redeliver: FAILED>PENDING', 'redeliver: UNDELIVERABLE>PENDING',
    ],
    terminal: [],
    code: 'INVALID_STATE_TRANSITION',
  },
  {
    // REF's AgentActionStatus (issue 26): created APPROVED or PENDING_APPROVAL; an undecided action whose quote expired fails.
    lifecycle: agentActionLifecycle,
    moves: ['approve: PENDING_APPROVAL>APPROVED', 'reject: PENDING_APPROVAL>REJECTED', 'expire: PENDING_APPROVAL>FAILED', 'fail: APPROVED>FAILED'],
    terminal: ['REJECTED', 'FAILED'],
    code: 'AGENT_ACTION_NOT_PENDING',
  },
  {
    // Issue 26 (26a): pay-in coordinates of one account on one rail (docs/decisions.md 26a).
    lifecycle: coordinatesLifecycle,
    moves: ['open: PENDING>OPEN', 'reject: PENDING>FAILED', 'close: OPEN>CLOSING', 'closed: CLOSING>CLOSED', 'abandon: PENDING>CLOSED'],
    terminal: ['CLOSED', 'FAILED'],
    code: 'INVALID_STATE_TRANSITION',
  },
];

function documentedTarget(d: Documented, event: string, from: string): string | undefined {
  const move = d.moves.find((m) => m.startsWith(`${event}: ${from}>`));
  return move?.slice(move.indexOf('>') + 1);
}

describe.each(DOCUMENTED.map((d) => [d.lifecycle.name, d] as const))('the %s lifecycle', (_name, d) => {
  const events = Object.keys(d.lifecycle.transitions);

  it('documents every event of its table, and only those', () => {
    expect([...new Set(d.moves.map((m) => m.slice(0, m.indexOf(':'))))].sort()).toEqual([...events].sort());
  });

  it('names its terminal statuses: exactly those no event leaves', () => {
    expect([...d.lifecycle.terminal].sort()).toEqual([...d.terminal].sort());
    for (const s of d.terminal) for (const e of events) expect(() => nextStatus(d.lifecycle, e, s), `${e} from ${s}`).toThrow(IllegalTransitionError);
  });

  for (const event of events) {
    for (const from of d.lifecycle.statuses) {
      const to = documentedTarget(d, event, from);
      it(to ? `${event} from ${from} → ${to}` : `${event} from ${from} is refused (409 ${d.code})`, () => {
        if (to) {
          expect(nextStatus(d.lifecycle, event, from)).toBe(to);
          return;
        }
        let refused: unknown;
        try {
          nextStatus(d.lifecycle, event, from);
        } catch (err) {
          refused = err;
        }
        expect(refused).toBeInstanceOf(IllegalTransitionError);
        expect(refused).toMatchObject({ status: 409, code: d.code, details: { event, from } });
      });
    }
  }
});
