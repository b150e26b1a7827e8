import type { DomainModule } from '../../platform/module.js';
import { customerRoutes } from './customers.routes.js';

export const customersModule: DomainModule = {
  name: 'customers',
  routes: (api) => customerRoutes(api),
};
