-- Issue 25 (anchor 25c): per-platform choices between the spec's behaviour (NULL: the deployment default) and REF's.
ALTER TABLE platforms ADD COLUMN beneficiary_rules TEXT;
ALTER TABLE platforms ADD CONSTRAINT platforms_beneficiary_rules_check CHECK (beneficiary_rules IN ('SPEC', 'REF'));
ALTER TABLE platforms ADD COLUMN incoming_payment_approval BOOLEAN;
