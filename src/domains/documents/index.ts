import type { DomainModule } from '../../platform/module.js';
import { registerDocumentRoutes } from './documents.routes.js';

export const documentsModule: DomainModule = {
  name: 'documents',
  routes: async (api, deps) => {
    await registerDocumentRoutes(api, deps.config.DOCUMENT_MAX_BYTES);
  },
};

/** What verification calls: a customer's documents and their submission. */
export { documentsOfCustomer, markDocumentsSubmitted } from './documents.service.js';
