import type { DomainModule } from '../../platform/module.js';
import { customerRoutes } from './customers.routes.js';

export const customersModule: DomainModule = {
  name: 'customers',
  routes: (api) => customerRoutes(api),
};

/** What other domains call: the customer a payment, card, document or verification belongs to, and shared field rules. */
export { createCustomer, getActiveCustomer, moveCustomerStatus } from './customers.service.js';
export { bindCustomerCreated } from './customers.service.js'; // hook:28
export { bindContactChange } from './customers.service.js'; // hook:28b
export { EEA_COUNTRIES, maskIdentifier, ownerStatusMachine, type CustomerStatus, type OwnerEvent } from './customers.model.js';
export { country, isCalendarDate, isCountryCode, oneOf, pastDate, text, UMA_ADDRESS_PATTERN } from './customers.fields.js';
export { getOwner } from './beneficial-owners.js';
export { createKycLink, hashLinkToken } from './kyc-link.service.js';
export { unverifiedChannels } from './contact.service.js';
export { assertEndUserTermsAccepted } from './end-user-terms.js';
