-- Issue 25 (anchor 25c): per-platform choices between the spec's behaviour (NULL: the deployment default) and REF's.
ALTER TABLE platforms ADD COLUMN beneficiary_rules TEXT;
ALTER TABLE platforms ADD CONSTRAINT platforms_beneficiary_rules_check CHECK (beneficiary_rules IN ('SPEC', 'REF'));
ALTER TABLE platforms ADD COLUMN incoming_payment_approval BOOLEAN;

-- REF's CREATED, REJECTED and REFUNDED, reached by incoming payments only (the approval handshake,
-- src/domains/payments/incoming-approval.ts): the status check allows them, for INCOMING rows alone.
ALTER TABLE transactions
  DROP CONSTRAINT transactions_status_check,
  ADD CONSTRAINT transactions_status_check CHECK (status IN ('CREATED', 'PENDING', 'PENDING_AUTHORIZATION', 'PROCESSING', 'COMPLETED', 'REJECTED', 'FAILED', 'REFUNDED', 'EXPIRED')),
  ADD CONSTRAINT transactions_incoming_statuses_check CHECK (status NOT IN ('CREATED', 'REJECTED', 'REFUNDED') OR type = 'INCOMING');

-- The approval-window sweep (expireIncomingApprovals) reads only incoming payments waiting for their platform.
CREATE INDEX transactions_incoming_approval_due_idx ON transactions (approval_requested_at)
  WHERE type = 'INCOMING' AND status = 'PENDING' AND pending_reason = 'PLATFORM_APPROVAL';
