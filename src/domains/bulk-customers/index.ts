import type { DomainModule } from '../../platform/module.js';
import { bulkCustomerRoutes } from './bulk-customers.routes.js';
import { startBulkCustomersWorker } from './bulk-customers.jobs.js';
import { BULK_CUSTOMERS_QUEUE } from './bulk-customers.service.js';

/** Bulk customer creation from a CSV file (REF's `customers.bulk.*`, issue 13). */
export const bulkCustomersModule: DomainModule = {
  name: 'bulk-customers',
  queues: [BULK_CUSTOMERS_QUEUE],
  routes: (api, deps) => bulkCustomerRoutes(api, deps.config.BULK_CSV_MAX_BYTES),
  workers: (deps, connection) => [startBulkCustomersWorker(deps, connection)],
};
