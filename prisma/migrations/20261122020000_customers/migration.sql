-- Customer onboarding: customers, contact verification, hosted KYC links, beneficial owners,
-- documents, verifications, and the history of their status moves.
-- Prisma models: prisma/schema/customers.prisma, documents.prisma, verification.prisma.

CREATE TABLE "customers" (
  "id"                   TEXT PRIMARY KEY,
  "platform_id"          TEXT NOT NULL,
  "platform_customer_id" TEXT NOT NULL CHECK (length("platform_customer_id") BETWEEN 1 AND 255),
  "customer_type"        TEXT NOT NULL CHECK ("customer_type" IN ('INDIVIDUAL', 'BUSINESS')),
  "status"               TEXT NOT NULL CHECK ("status" IN ('UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED', 'HOLD')),
  "region"               TEXT CHECK ("region" ~ '^[A-Z]{2}$'),
  "currencies"           TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
  "email"                TEXT,
  "phone_number"         TEXT CHECK ("phone_number" ~ '^\+[1-9][0-9]{1,14}$'),
  "email_verification"   TEXT CHECK ("email_verification" IN ('PENDING', 'VERIFIED')),
  "phone_verification"   TEXT CHECK ("phone_verification" IN ('PENDING', 'VERIFIED')),
  "uma_address"          TEXT NOT NULL,
  "full_name"            TEXT,
  "birth_date"           DATE,
  "nationality"          TEXT CHECK ("nationality" ~ '^[A-Z]{2}$'),
  "address"              JSONB,
  "id_type"              TEXT CHECK ("id_type" IN ('SSN', 'ITIN', 'EIN', 'NON_US_TAX_ID')),
  "identifier"           TEXT,
  "country_of_issuance"  TEXT,
  "due_diligence"        JSONB,
  "business_info"        JSONB,
  "is_deleted"           BOOLEAN NOT NULL DEFAULT false,
  "deleted_at"           TIMESTAMPTZ(3),
  "created_at"           TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"           TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  -- A verified channel has something verified.
  CHECK ("email_verification" IS NULL OR "email" IS NOT NULL),
  CHECK ("phone_verification" IS NULL OR "phone_number" IS NOT NULL),
  -- Spec "Customer": individuals accept only SSN and ITIN.
  CHECK ("customer_type" = 'BUSINESS' OR "id_type" IS NULL OR "id_type" IN ('SSN', 'ITIN')),
  -- Spec "Customer": a business is created with legalName, country, taxId and incorporatedOn.
  CHECK ("customer_type" = 'INDIVIDUAL' OR (
    "business_info" ? 'legalName' AND "business_info" ? 'country' AND "business_info" ? 'taxId' AND "business_info" ? 'incorporatedOn')),
  CHECK ("customer_type" = 'BUSINESS' OR "business_info" IS NULL),
  CHECK ("is_deleted" = ("deleted_at" IS NOT NULL))
);
CREATE UNIQUE INDEX "customers_platform_id_uma_address_key" ON "customers"("platform_id", "uma_address");
CREATE INDEX "customers_platform_id_id_idx" ON "customers"("platform_id", "id");
CREATE INDEX "customers_platform_id_platform_customer_id_idx" ON "customers"("platform_id", "platform_customer_id");
-- Spec "Customer": platformCustomerId is unique among the platform's active customers only, so a
-- deleted customer's id can be reused. Partial: not expressible in schema.prisma.
CREATE UNIQUE INDEX "customers_platform_customer_id_active_key" ON "customers"("platform_id", "platform_customer_id") WHERE NOT "is_deleted";

CREATE TABLE "contact_verification_codes" (
  "platform_id" TEXT NOT NULL,
  "customer_id" TEXT NOT NULL REFERENCES "customers"("id") ON DELETE RESTRICT ON UPDATE CASCADE,
  "channel"     TEXT NOT NULL CHECK ("channel" IN ('EMAIL', 'PHONE')),
  "code_hash"   TEXT NOT NULL,
  "attempts"    INTEGER NOT NULL DEFAULT 0 CHECK ("attempts" >= 0),
  "expires_at"  TIMESTAMPTZ(3) NOT NULL,
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY ("platform_id", "customer_id", "channel")
);
CREATE INDEX "contact_verification_codes_customer_id_idx" ON "contact_verification_codes"("customer_id");

CREATE TABLE "kyc_links" (
  "id"           TEXT PRIMARY KEY,
  "platform_id"  TEXT NOT NULL,
  "customer_id"  TEXT NOT NULL REFERENCES "customers"("id") ON DELETE RESTRICT ON UPDATE CASCADE,
  "token_hash"   TEXT NOT NULL,
  "redirect_uri" TEXT,
  "expires_at"   TIMESTAMPTZ(3) NOT NULL,
  "used_at"      TIMESTAMPTZ(3),
  "created_at"   TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX "kyc_links_token_hash_key" ON "kyc_links"("token_hash");
CREATE INDEX "kyc_links_platform_id_customer_id_idx" ON "kyc_links"("platform_id", "customer_id");

CREATE TABLE "beneficial_owners" (
  "id"            TEXT PRIMARY KEY,
  "platform_id"   TEXT NOT NULL,
  "customer_id"   TEXT NOT NULL REFERENCES "customers"("id") ON DELETE RESTRICT ON UPDATE CASCADE,
  "roles"         TEXT[] NOT NULL CHECK (cardinality("roles") >= 1),
  "ownership_bps" INTEGER NOT NULL CHECK ("ownership_bps" BETWEEN 0 AND 10000),
  "personal_info" JSONB NOT NULL,
  "kyc_status"    TEXT NOT NULL CHECK ("kyc_status" IN ('UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED', 'HOLD')),
  "created_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX "beneficial_owners_platform_id_customer_id_id_idx" ON "beneficial_owners"("platform_id", "customer_id", "id");

CREATE TABLE "onboarding_status_changes" (
  "id"          TEXT PRIMARY KEY,
  "platform_id" TEXT NOT NULL,
  "machine"     TEXT NOT NULL,
  "resource_id" TEXT NOT NULL,
  "event"       TEXT NOT NULL,
  "from_status" TEXT,
  "to_status"   TEXT,
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX "onboarding_status_changes_platform_id_resource_id_idx" ON "onboarding_status_changes"("platform_id", "resource_id");

CREATE TABLE "documents" (
  "id"                TEXT PRIMARY KEY,
  "platform_id"       TEXT NOT NULL,
  "customer_id"       TEXT NOT NULL REFERENCES "customers"("id") ON DELETE RESTRICT ON UPDATE CASCADE,
  "holder_id"         TEXT NOT NULL,
  "document_type"     TEXT NOT NULL CHECK ("document_type" IN (
    'PASSPORT', 'DRIVERS_LICENSE', 'NATIONAL_ID', 'PROOF_OF_ADDRESS', 'BANK_STATEMENT', 'TAX_RETURN',
    'CERTIFICATE_OF_INCORPORATION', 'ARTICLES_OF_INCORPORATION', 'ARTICLES_OF_ASSOCIATION', 'STATE_REGISTRY_EXCERPT',
    'GOOD_STANDING_CERTIFICATE', 'INFORMATION_STATEMENT', 'INCUMBENCY_CERTIFICATE', 'BUSINESS_LICENSE',
    'SHAREHOLDER_REGISTER', 'POWER_OF_ATTORNEY', 'UTILITY_BILL', 'ELECTRICITY_BILL', 'RENT_OR_LEASE_AGREEMENT',
    'DIRECTOR_REGISTRY', 'TRUST_AGREEMENT', 'STATE_COMPANY_REGISTRY', 'PARTNERSHIP_CONTROL_AGREEMENT',
    'PARTNERSHIP_AGREEMENT', 'SELFIE', 'OTHER')),
  "side"              TEXT CHECK ("side" IN ('FRONT', 'BACK')),
  "country"           TEXT NOT NULL CHECK ("country" ~ '^[A-Z]{2}$'),
  "document_number"   TEXT,
  "issuing_authority" TEXT,
  "issued_on"         DATE,
  "file_name"         TEXT NOT NULL,
  -- Spec "Document": PDF, JPEG or PNG (decided from the bytes), at most 10 MB.
  "content_type"      TEXT NOT NULL CHECK ("content_type" IN ('application/pdf', 'image/jpeg', 'image/png')),
  "size_bytes"        INTEGER NOT NULL CHECK ("size_bytes" BETWEEN 1 AND 10485760),
  "sha256"            TEXT NOT NULL,
  "storage_key"       TEXT NOT NULL,
  "submitted_at"      TIMESTAMPTZ(3),
  "created_at"        TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"        TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  -- Identity documents carry their number and issuing authority.
  CHECK ("document_type" NOT IN ('PASSPORT', 'DRIVERS_LICENSE', 'NATIONAL_ID') OR ("document_number" IS NOT NULL AND "issuing_authority" IS NOT NULL)),
  -- Two-sided documents are uploaded one side at a time.
  CHECK ("document_type" NOT IN ('DRIVERS_LICENSE', 'NATIONAL_ID') OR "side" IS NOT NULL)
);
CREATE INDEX "documents_platform_id_holder_id_id_idx" ON "documents"("platform_id", "holder_id", "id");
CREATE INDEX "documents_platform_id_customer_id_idx" ON "documents"("platform_id", "customer_id");

CREATE TABLE "verifications" (
  "id"             TEXT PRIMARY KEY,
  "platform_id"    TEXT NOT NULL,
  "customer_id"    TEXT NOT NULL REFERENCES "customers"("id") ON DELETE RESTRICT ON UPDATE CASCADE,
  "status"         TEXT NOT NULL CHECK ("status" IN ('RESOLVE_ERRORS', 'IN_PROGRESS', 'PENDING_MANUAL_REVIEW', 'APPROVED', 'REJECTED')),
  "errors"         JSONB NOT NULL DEFAULT '[]' CHECK (jsonb_typeof("errors") = 'array'),
  "channel"        TEXT NOT NULL CHECK ("channel" IN ('HOSTED', 'DIRECT')),
  "decision_count" INTEGER NOT NULL DEFAULT 0 CHECK ("decision_count" >= 0),
  "created_at"     TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"     TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  -- Spec "Verification status": RESOLVE_ERRORS lists what is unmet; other statuses carry no errors
  -- except a rejection's reasons.
  CHECK ("status" IN ('RESOLVE_ERRORS', 'REJECTED') OR jsonb_array_length("errors") = 0)
);
CREATE INDEX "verifications_platform_id_customer_id_id_idx" ON "verifications"("platform_id", "customer_id", "id");
CREATE INDEX "verifications_status_updated_at_idx" ON "verifications"("status", "updated_at");
-- One open case per customer: a second submission while the provider works is a conflict.
-- Partial: not expressible in schema.prisma.
CREATE UNIQUE INDEX "verifications_one_open_per_customer_key" ON "verifications"("platform_id", "customer_id")
  WHERE "status" IN ('IN_PROGRESS', 'PENDING_MANUAL_REVIEW');

-- Status guards: the transition tables of src/domains/customers/customers.model.ts and
-- src/domains/verification/verification.model.ts, repeated here so that no code path (another
-- service, a hand-written UPDATE) can write an illegal move. Argument 1: the column; argument 2:
-- the allowed "from>to" pairs ("-" stands for NULL). test/customers/state-machines.test.ts keeps
-- these lists and the TypeScript tables identical.
CREATE FUNCTION onboarding_guard_status() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_value TEXT;
  new_value TEXT;
BEGIN
  EXECUTE format('SELECT ($1).%I::text, ($2).%I::text', TG_ARGV[0], TG_ARGV[0]) INTO old_value, new_value USING OLD, NEW;
  IF old_value IS DISTINCT FROM new_value
     AND NOT (coalesce(old_value, '-') || '>' || coalesce(new_value, '-')) = ANY (TG_ARGV[1]::text[]) THEN
    RAISE EXCEPTION '%.% cannot move from % to %', TG_TABLE_NAME, TG_ARGV[0], coalesce(old_value, '-'), coalesce(new_value, '-')
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER "customers_status_guard" BEFORE UPDATE OF "status" ON "customers"
  FOR EACH ROW EXECUTE FUNCTION onboarding_guard_status('status', '{UNVERIFIED>PENDING,HOLD>PENDING,PENDING>APPROVED,PENDING>REJECTED,PENDING>HOLD}');
CREATE TRIGGER "customers_email_verification_guard" BEFORE UPDATE OF "email_verification" ON "customers"
  FOR EACH ROW EXECUTE FUNCTION onboarding_guard_status('email_verification', '{->PENDING,PENDING>VERIFIED,VERIFIED>PENDING,PENDING>-,VERIFIED>-}');
CREATE TRIGGER "customers_phone_verification_guard" BEFORE UPDATE OF "phone_verification" ON "customers"
  FOR EACH ROW EXECUTE FUNCTION onboarding_guard_status('phone_verification', '{->PENDING,PENDING>VERIFIED,VERIFIED>PENDING,PENDING>-,VERIFIED>-}');
CREATE TRIGGER "beneficial_owners_kyc_status_guard" BEFORE UPDATE OF "kyc_status" ON "beneficial_owners"
  FOR EACH ROW EXECUTE FUNCTION onboarding_guard_status('kyc_status', '{UNVERIFIED>PENDING,PENDING>APPROVED,PENDING>REJECTED}');
CREATE TRIGGER "verifications_status_guard" BEFORE UPDATE OF "status" ON "verifications"
  FOR EACH ROW EXECUTE FUNCTION onboarding_guard_status('status', '{IN_PROGRESS>PENDING_MANUAL_REVIEW,IN_PROGRESS>APPROVED,PENDING_MANUAL_REVIEW>APPROVED,IN_PROGRESS>REJECTED,PENDING_MANUAL_REVIEW>REJECTED,IN_PROGRESS>RESOLVE_ERRORS,PENDING_MANUAL_REVIEW>RESOLVE_ERRORS}');
