import type { DomainModule } from '../../platform/module.js';
import { registerDocumentRoutes } from './documents.routes.js';
import { storageFor } from './documents.service.js';

export const documentsModule: DomainModule = {
  name: 'documents',
  routes: async (api, deps) => {
    // Built now so a bad DOCUMENT_STORAGE configuration stops start-up, not the first upload.
    storageFor(deps.config);
    await registerDocumentRoutes(api, deps.config.DOCUMENT_MAX_BYTES);
  },
};

/** What verification calls: a customer's documents and their submission. */
export { documentsOfCustomer, markDocumentsSubmitted } from './documents.service.js';
