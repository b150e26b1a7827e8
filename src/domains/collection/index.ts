import type { DomainModule } from '../../platform/module.js';
import { collectionRoutes } from './collection.routes.js';
import { pollCredits } from './collection.jobs.js';
import { sweepCoordinates } from './coordinates.service.js';
import { finishReceivedCredits } from './credits.service.js';

/**
 * Standing pay-in coordinates (issue 26 item 1, REF `fundingPaymentInstructions`): opened per internal account
 * and rail through the collection port (src/adapters/collection), credits on them applied once each.
 */
export const collectionModule: DomainModule = {
  name: 'collection',
  routes: (api) => collectionRoutes(api),
  loops: [
    { name: 'collection-coordinates', intervalMs: (deps) => deps.config.COLLECTION_SWEEP_INTERVAL_MS, batch: (deps) => deps.config.COLLECTION_SWEEP_BATCH, run: sweepCoordinates },
    { name: 'collection-credits-poll', intervalMs: (deps) => deps.config.COLLECTION_POLL_INTERVAL_MS, batch: (deps) => deps.config.COLLECTION_SWEEP_BATCH, run: pollCredits },
    { name: 'collection-credits-finish', intervalMs: (deps) => deps.config.COLLECTION_SWEEP_INTERVAL_MS, batch: (deps) => deps.config.COLLECTION_SWEEP_BATCH, run: finishReceivedCredits },
  ],
};

/** What the adapter sinks call: a credit pushed by the provider. */
export { receiveCollectionCredit } from './credits.service.js';
