import type { DomainModule } from './platform/module.js';
import { platformsModule } from './domains/platforms/index.js';
import { webhooksModule } from './domains/webhooks/index.js';
import { ledgerModule } from './domains/ledger/index.js';
import { feesModule } from './domains/fees/index.js';
import { externalAccountsModule } from './domains/external-accounts/index.js';
import { quotesModule } from './domains/quotes/index.js';
import { transactionsModule } from './domains/transactions/index.js';
import { customersModule } from './domains/customers/index.js';
import { documentsModule } from './domains/documents/index.js';
import { verificationModule } from './domains/verification/index.js';

/** Every capability of the service, in registration order. */
export const MODULES: DomainModule[] = [platformsModule, webhooksModule, ledgerModule, feesModule, externalAccountsModule, quotesModule, transactionsModule, customersModule, documentsModule, verificationModule];

export const ALL_QUEUES: string[] = MODULES.flatMap((m) => m.queues ?? []);
