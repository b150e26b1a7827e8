import type { DomainModule } from '../../platform/module.js';
import { webhookRoutes } from './webhooks.routes.js';
import { relayOutbox, startWebhookWorker, WEBHOOK_QUEUE } from './webhooks.jobs.js';

export const webhooksModule: DomainModule = {
  name: 'webhooks',
  queues: [WEBHOOK_QUEUE],
  routes: (api) => webhookRoutes(api),
  workers: (deps, connection) => [startWebhookWorker(deps, connection)],
  loops: [
    {
      name: 'outbox-relay',
      intervalMs: (deps) => deps.config.OUTBOX_RELAY_INTERVAL_MS,
      batch: (deps) => deps.config.OUTBOX_RELAY_BATCH,
      run: relayOutbox,
    },
  ],
};
