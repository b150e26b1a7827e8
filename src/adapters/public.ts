/**
 * The public extension point: `import type { RailAdapter } from 'svc-payments/adapters'`
 * (package.json `exports`, built to dist/adapters/public.js with declarations). One interface per
 * provider kind, in the service's vocabulary, plus what every adapter shares (context, call
 * options, webhooks, module shape). docs/adapters.md explains each; test/contracts holds the suite
 * every implementation must pass (`npm run adapter:test -- <kind> <module>`).
 *
 * Only ports are exported: nothing here reaches the database, the queues or the domains.
 */
export {
  ADAPTER_KINDS,
  AdapterConfigError,
  adapterEnvName,
  type AdapterContext,
  type AdapterKind,
  type AdapterLifecycle,
  type AdapterLogger,
  type AdapterModule,
  type AdapterSigner,
  type CallOptions,
  type InboundWebhook,
  type InboundWebhookAnswer,
} from './common.js';

// Payment rails (RAIL_ADAPTERS).
export {
  PAYOUT_STATUSES,
  RailError,
  type PayoutReport,
  type PayoutReportReceipt,
  type PayoutRequest,
  type PayoutResult,
  type PayoutStatus,
  type RailAdapter,
  type RailAdapterContext,
  type RefundRequest,
  type RefundResult,
  type StatusOptions,
} from './rails/port.js';

// KYC/KYB (KYC_PROVIDER).
export type { HostedLink, HostedLinkRequest, KycAdapterContext, KycCase, KycOutcome, KycProvider } from './kyc/port.js';

// Exchange rates (FX_PROVIDER).
export { FxRateUnavailableError, type FxRate, type FxRateProvider } from './fx/port.js';

// Contact-code delivery, email and SMS (NOTIFIER).
export type { ContactCodeMessage, Notifier, NotifierChannel } from './notifier/port.js';
export { renderContactCode } from './notifier/message.js'; // anchor 28b: a third-party notifier renders the branded OTP the same way

// Liveness sessions (LIVENESS_PROVIDER).
export type { LivenessAdapter, LivenessAdapterContext, LivenessOutcome, LivenessSession, LivenessSessionRequest } from './liveness/port.js';

// Document storage (DOCUMENT_STORAGE).
export type { DocumentStorage } from './storage/port.js';

// Beneficiary-name check (BENEFICIARY_CHECK_PROVIDER).
export {
  BENEFICIARY_VERIFICATION_STATUSES,
  type BeneficiaryCheckAdapter,
  type BeneficiaryCheckAdapterContext,
  type BeneficiaryCheckRequest,
  type BeneficiaryCheckResult,
  type BeneficiaryVerificationStatus,
} from './beneficiary-check/port.js';

// Bank-account linking (BANK_LINK_PROVIDER): REF's plaid.* endpoints.
export { BankLinkError, type BankLinkAdapter, type LinkedBankAccount, type LinkToken, type LinkTokenRequest, type PublicTokenExchange } from './bank-link/port.js';

// UMA counterparties (UMA_PROVIDER) and deposit detectors (DEPOSIT_DETECTOR): ports of the UMA and
// real-time funding work; selected by their own settings for now, not yet by module path.
export { UmaCounterpartyError, type UmaCounterpartyAdapter, type UmaCurrencyOption, type UmaLookupRequest, type UmaPayRequest, type UmaPayTerms, type UmaReceiver } from './uma/port.js';
export { FUNDING_NETWORKS, matchKeyFor, type DepositDetector, type FundingInstructionOut, type InstructionsRequest } from './deposits/port.js';

// Stablecoin issuance (STABLECOIN_ISSUER_PROVIDER, issue 26): REF's stablecoin provider (BRALE).
export {
  IssuerError, ISSUER_OPERATION_STATUSES, type StablecoinIssuer, type StablecoinIssuerContext, type IssuerCredentials, type IssuerAccount,
  type CredentialCheck, type TokenQuery, type ResolvedToken, type IssuerOperationRequest, type IssuerOperationResult, type IssuerOperationStatus,
  type IssuerBankAccount, type IssuerReportReceipt,
} from './stablecoin-issuer/port.js';

// Standing pay-in coordinates (COLLECTION_PROVIDER, issue 26 item 1): docs/adapters.md "Collection".
export {
  CollectionError, OPENING_STATUSES, type CollectionAdapter, type CollectionAdapterContext, type CollectionCredit, type CreditReceipt,
  type OpenCoordinatesRequest, type OpenCoordinatesResult, type CloseCoordinatesRequest, type ListCreditsRequest, type ListCreditsResult, type PaymentInstructionsWire,
} from './collection/port.js';
