import type { DomainModule } from '../../platform/module.js';
import { webhookRoutes } from './webhooks.routes.js';
import { relayOutbox, startWebhookWorker, sweepDeliveries, WEBHOOK_QUEUE } from './webhooks.jobs.js';

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
    {
      // Issue 11: deliveries whose job was lost (Redis data loss) are queued again from webhook_events.
      name: 'webhook-delivery-sweep',
      intervalMs: (deps) => deps.config.JOB_SWEEP_INTERVAL_MS,
      batch: (deps) => deps.config.JOB_SWEEP_BATCH,
      run: sweepDeliveries,
    },
  ],
};

/** What other domains call: the endpoint URL rules (platforms) and the test event (ref-compat). */
export { assertWebhookUrl } from './webhook-url.js';
export { deliverInFlow, sendTestEvent } from './webhooks.service.js';
