import type { DomainModule } from './platform/module.js';
import { platformsModule } from './domains/platforms/index.js';
import { webhooksModule } from './domains/webhooks/index.js';
import { ledgerModule } from './domains/ledger/index.js';

/** Every capability of the service, in registration order. */
export const MODULES: DomainModule[] = [platformsModule, webhooksModule, ledgerModule];

export const ALL_QUEUES: string[] = MODULES.flatMap((m) => m.queues ?? []);
