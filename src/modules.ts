import type { DomainModule } from './platform/module.js';
import { bindWalletConfig, platformsModule } from './domains/platforms/index.js';
import { webhooksModule } from './domains/webhooks/index.js';
import { ledgerModule } from './domains/ledger/index.js';
import { feesModule } from './domains/fees/index.js';
import { externalAccountsModule } from './domains/external-accounts/index.js';
import { bindUmaDestinations, creditIncomingPayment, quotesModule, transactionsModule } from './domains/payments/index.js';
import { bindContactChange, bindCustomerCreated, customersModule } from './domains/customers/index.js';
import { documentsModule } from './domains/documents/index.js';
import { verificationModule } from './domains/verification/index.js';
import { umaDestinations, umaModule } from './domains/uma/index.js';
import { fundingModule } from './domains/funding/index.js';
import { agentsModule } from './domains/agents/index.js';
import { agentActionsModule } from './domains/agent-actions/index.js';
import { adapterWebhooksModule } from './adapters/webhooks.routes.js';
import { sandboxLivenessModule } from './sandbox-liveness.js';
import { signingModule } from './domains/signing/index.js';
import { cardsModule } from './domains/cards/index.js';
import { stablecoinModule } from './domains/stablecoin/index.js';
import { scaModule } from './domains/sca/index.js';
import { tokensModule } from './domains/tokens/index.js';
import { refCompatModule } from './domains/ref-compat/index.js';
import { invitationsModule } from './domains/invitations/index.js';
import { bulkCustomersModule } from './domains/bulk-customers/index.js';
import { plaidModule } from './domains/plaid/index.js';
import { retentionModule } from './platform/retention.js';
import { vaspsModule } from './domains/vasps/index.js';
import { withdrawalsModule } from './domains/withdrawals/index.js';
import { bindWalletCreditWriter, gateContactChange, provisionEmbeddedWallet, recordOwedWallets, walletModule } from './domains/wallet/index.js';
import { collectionModule } from './domains/collection/index.js';

/** Every capability of the service, in registration order. */
export const MODULES: DomainModule[] = [platformsModule, tokensModule, webhooksModule, ledgerModule, feesModule, externalAccountsModule, sandboxLivenessModule, quotesModule, transactionsModule, customersModule, documentsModule, verificationModule, adapterWebhooksModule, signingModule, cardsModule, stablecoinModule, scaModule, umaModule, fundingModule, agentsModule, refCompatModule, invitationsModule, bulkCustomersModule, plaidModule, vaspsModule, withdrawalsModule, walletModule];
// Issue 30: the retention job (bounded batches over tables that only grow).
MODULES.push(retentionModule);
// Issue 26: REF's agent surface (/agents/me/*, approvals), above agents and payments.
MODULES.push(agentActionsModule);
MODULES.push(collectionModule);

/**
 * Ports bound once per process (docs/decisions.md "Payments domain and module boundaries"): quotes to UMA
 * addresses need the uma domain, which sits above payments.
 */
bindUmaDestinations(umaDestinations);
// Issue 28: a customer of a Global Accounts platform gets an EMBEDDED_WALLET account (the wallet domain sits above customers).
bindCustomerCreated(provisionEmbeddedWallet);
bindWalletConfig(recordOwedWallets);
// Issue 28 (anchor 28b): contact changes tied to OTP credentials; passive wallet credits through the payments writer.
bindContactChange(gateContactChange);
bindWalletCreditWriter(creditIncomingPayment);

export const ALL_QUEUES: string[] = MODULES.flatMap((m) => m.queues ?? []);
