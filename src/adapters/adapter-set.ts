import type { InboundWebhook, InboundWebhookAnswer } from './common.js';
import type { RailAdapter } from './rails/port.js';
import type { KycProvider } from './kyc/port.js';
import type { FxRateProvider } from './fx/port.js';
import type { Notifier } from './notifier/port.js';
import type { LivenessAdapter } from './liveness/port.js';
import type { DocumentStorage } from './storage/port.js';
import type { BeneficiaryCheckAdapter } from './beneficiary-check/port.js';
import type { BankLinkAdapter } from './bank-link/port.js';
import type { StablecoinIssuer } from './stablecoin-issuer/port.js';
import type { UmaCounterpartyAdapter } from './uma/port.js';
import type { DepositDetector } from './deposits/port.js';
import type { CardIssuerAdapter } from './card-issuer/port.js';
import type { CollectionAdapter } from './collection/port.js';

/*
 * The adapters a process built (src/adapters/registry.ts), as their users see them. Apart from the
 * registry so that the ports' users can name the type without importing the registry's builders.
 */

export interface RailRouter {
  /** The adapter serving a rail; rails RAIL_ADAPTERS does not name get the `*` one (default sandbox). */
  forRail(rail: string | null): RailAdapter;
  /** Each distinct adapter once, with the rails named for it. */
  list(): Array<{ adapter: RailAdapter; rails: string[]; fallback: boolean }>;
  /** How long a payout on this rail normally takes (the adapter's figure, else 0). */
  expectedSettlementMs(rail: string | null): number;
}

export interface Adapters {
  rails: RailRouter;
  kyc: KycProvider;
  fx: FxRateProvider;
  notifier: Notifier;
  /** undefined: no liveness provider (LIVENESS challenges answer 501). */
  liveness: LivenessAdapter | undefined;
  storage: DocumentStorage;
  beneficiaryCheck: BeneficiaryCheckAdapter;
  /** undefined: no bank-link provider (POST /plaid/link-tokens answers 501). */
  bankLink: BankLinkAdapter | undefined;
  /** undefined: no stablecoin issuer (STABLECOIN_ISSUER_PROVIDER=none): mints and burns answer 503. */
  stablecoinIssuer: StablecoinIssuer | undefined;
  /** Who answers UMA lookups and pay requests (UMA_PROVIDER). */
  uma: UmaCounterpartyAdapter;
  /** Real-time funding: payment instructions and deposit matching (DEPOSIT_DETECTOR). */
  deposits: DepositDetector;
  /** undefined: no card issuer (every /cards operation answers 501, as REF). */
  cardIssuer: CardIssuerAdapter | undefined;
  /** undefined: no collection provider (COLLECTION_PROVIDER=none): internal accounts show no pay-in coordinates. */
  collection: CollectionAdapter | undefined;
  /** The inbound webhook handler of the adapter with this id, if it takes webhooks. */
  webhookHandler(adapterId: string): ((request: InboundWebhook) => Promise<InboundWebhookAnswer>) | undefined;
  /** What serves what, for the start-up log line. */
  summary: Record<string, string>;
  close(): Promise<void>;
}
