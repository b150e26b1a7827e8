import type { DomainModule } from '../../platform/module.js';
import { invitationRoutes } from './invitations.routes.js';

/** UMA invitations (REF's `invitations.*`, issue 13): send-by-link codes that an invitee claims once. */
export const invitationsModule: DomainModule = {
  name: 'invitations',
  routes: (api) => invitationRoutes(api),
};
